import QuestCore
import Testing
@testable import WebApp

/// #32 item 5: the pages say what is true, in words a teen reads.
@Suite("Page words")
struct PageWordsTests {
    @Test("the stats page's wait for patterns counts the learning quests first (INS-1 leaves them out)")
    func patternsWaiting() {
        let rules = GameRules.standard
        #expect(StatsPage.patternsWaiting(sessionsCompleted: 0, rules: rules)
            == "Your first 3 quests are for learning (3 to go). After them, 5 estimates of a task show what the box notices about it here.")
        #expect(StatsPage.patternsWaiting(sessionsCompleted: 2, rules: rules).contains("(1 to go)"))
        #expect(StatsPage.patternsWaiting(sessionsCompleted: 3, rules: rules)
            == "After 5 estimates of a task, what the box notices about it shows here.")
    }
}
