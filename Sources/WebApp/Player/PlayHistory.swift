import Foundation
import QuestCore
import QuestStore

/// What a day of her stats reads of the plays (`/stats/day/…`): the store itself in the
/// running app, a fake in the tests.
protocol PlayHistory: Sendable {
    /// The quests started in `range` (with the index on their start, not the whole history).
    func sessions(startedIn range: Range<Date>?) throws -> [GameSession]
    /// Their estimations, in the order played.
    func estimations(ofSessions ids: [UUID]) throws -> [TaskEstimation]
}

extension PlayStore: PlayHistory {}
