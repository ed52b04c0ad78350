import Testing
@testable import QuestCore
