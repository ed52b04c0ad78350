import Foundation
import QuestCore
import QuestReports
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

/// #33: the stats page's pictures, drawn from the report.
@Suite("Stats pictures")
struct StatsPicturesTests {
    static func day(_ date: String, _ ago: Int, done: Int = 0, paused: Bool = false) -> StatsReport.PlayDay {
        StatsReport.PlayDay(date: date, daysAgo: ago, questsCompleted: done, paused: paused)
    }

    @Test("the calendar: a played day filled, a paused one marked, today outlined, each day said in words; nothing before a first play")
    func calendar() throws {
        let days = [Self.day("2026-11-16", 7, done: 2), Self.day("2026-11-17", 6, paused: true), Self.day("2026-11-18", 5)]
            + (19...23).map { Self.day("2026-11-\($0)", 23 - $0) }
        let svg = try #require(StatsPictures.calendar(days, weekdayLetters: ["M", "T", "W", "T", "F", "S", "S"]))
        #expect(svg.contains("<g class=\"cal played\" role=\"img\" aria-label=\"2026-11-16: 2 quests done\">"))
        #expect(svg.contains("<g class=\"cal paused\" role=\"img\" aria-label=\"2026-11-17: a quest paused\">"))
        #expect(svg.contains("<g class=\"cal none today\" role=\"img\" aria-label=\"2026-11-23: no quest\">"))
        #expect(svg.components(separatedBy: "<g class=\"cal ").count - 1 == 8)
        #expect(StatsPictures.calendar([Self.day("2026-11-23", 0)], weekdayLetters: []) == nil)
    }

    @Test("the patterns as bars: longer to the right, shorter to the left, the most to discover first; names are text")
    func bars() throws {
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        var snapshots: [EstimationSnapshot] = []
        for (name, guess) in [("Teeth", 105.0), ("Pack <Bag>", 40), ("Dress", 130)] {
            for i in 0..<5 {
                snapshots.append(EstimationSnapshot(
                    taskDisplayName: name, estimatedSeconds: guess, actualSeconds: 100, recordedAt: start.addingTimeInterval(Double(i) * 86_400)))
            }
        }
        let patterns = InsightEngine.generateInsights(snapshots: snapshots).map(StatsReport.Pattern.init)
        let svg = try #require(StatsPictures.patternBars(patterns))
        // Guessed 40 s for 100 s: 150% longer; 130 s for 100 s: 23% shorter.
        let order = ["Pack &lt;Bag&gt;: 150% longer", "Dress: 23% shorter", "Teeth: about as long as you think"].map { svg.range(of: $0)?.lowerBound }
        #expect(order.allSatisfy { $0 != nil } && order[0]! < order[1]! && order[1]! < order[2]!, "\(svg)")
        #expect(svg.contains("<g class=\"bar longer\"") && svg.contains("<g class=\"bar shorter\""))
        #expect(!svg.contains("<Bag>"))
        #expect(StatsPictures.patternBars([]) == nil)
    }
}
