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
    static func day(_ date: String, _ ago: Int, done: Int = 0, paused: Bool = false, joker: Bool = false) -> StatsReport.PlayDay {
        StatsReport.PlayDay(date: date, daysAgo: ago, questsCompleted: done, paused: paused, joker: joker)
    }

    @Test("the calendar: a played day filled, a paused one marked, a joker's day marked, today outlined, each day said in words; nothing before a first play")
    func calendar() throws {
        let days = [Self.day("2026-11-16", 7, done: 2), Self.day("2026-11-17", 6, paused: true), Self.day("2026-11-18", 5, joker: true)]
            + (19...23).map { Self.day("2026-11-\($0)", 23 - $0) }
        let svg = try #require(StatsPictures.calendar(days, weekdayLetters: ["M", "T", "W", "T", "F", "S", "S"]))
        // #48: a played day is a link to that day, named by its words.
        #expect(svg.contains("<a href=\"/stats/day/2026-11-16\" aria-label=\"2026-11-16: 2 quests done\"><g class=\"cal played\">"))
        #expect(svg.contains("<g class=\"cal paused\" role=\"img\" aria-label=\"2026-11-17: a quest paused\">"))
        #expect(svg.contains("<g class=\"cal joker\" role=\"img\" aria-label=\"2026-11-18: a joker kept the streak\">"))
        #expect(StatsPictures.calendar([Self.day("2026-11-22", 1, joker: true), Self.day("2026-11-23", 0)], weekdayLetters: []) != nil, "a joker day is worth a calendar")
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
        // #48: each name on a row of its own, left-aligned above its bar, never beside it.
        let labels = svg.matches(of: /<text class="label" x="4" y="([0-9.]+)">/).map { Double($0.1) ?? 0 }
        let bars = svg.matches(of: /<rect x="[0-9.]+" y="([0-9.]+)"/).map { Double($0.1) ?? 0 }
        #expect(labels.count == 3 && bars.count == 3 && zip(labels, bars).allSatisfy { $0 < $1 }, "\(svg)")
        #expect(StatsPictures.patternBars([]) == nil)
    }
}

/// #33: last week's card says what changed from the week before, in one kind sentence.
@Suite("The weekly card's change")
struct WeeklyChangeTests {
    static var cal: Calendar {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "Europe/Berlin")!
        c.firstWeekday = 2
        return c
    }

    /// Two weeks: `days` plays a week, every guess 60 s against `took` s.
    static func weeks(first: (days: Int, took: Double), second: (days: Int, took: Double)) -> (WeeklyReflection, WeeklyReflection) {
        let monday = cal.date(from: DateComponents(year: 2026, month: 11, day: 9, hour: 8))!
        var sessions: [GameSession] = [], snapshots: [EstimationSnapshot] = []
        for (week, plan) in [first, second].enumerated() {
            for day in 0..<plan.days {
                let at = monday.addingTimeInterval(Double(week * 7 + day) * 86_400)
                let id = UUID()
                sessions.append(GameSession(
                    id: id, routineID: id, routineDisplayName: "Q", startedAt: at, startedMonotonicNanos: 0, bootID: "b",
                    completedAt: at.addingTimeInterval(300), status: .completed, isCalibration: false))
                snapshots.append(EstimationSnapshot(taskDisplayName: "T", estimatedSeconds: 60, actualSeconds: plan.took, recordedAt: at))
            }
        }
        let a = WeeklyReflectionEngine.computeReflection(snapshots: snapshots, sessions: sessions, weekContaining: monday, calendar: cal)
        let b = WeeklyReflectionEngine.computeReflection(snapshots: snapshots, sessions: sessions, weekContaining: monday.addingTimeInterval(7 * 86_400), calendar: cal)
        return (a, b)
    }

    @Test("closer and more days; further off and fewer days, in curious words; nothing to compare, no sentence")
    func sentences() {
        var (before, week) = Self.weeks(first: (3, 90), second: (5, 66))
        #expect(StatsPage.change(week, before: before)?.hasPrefix("Closer than the week before by ") == true)
        #expect(StatsPage.change(week, before: before)?.hasSuffix(", and 2 more days played.") == true, "\(StatsPage.change(week, before: before) ?? "")")
        (before, week) = Self.weeks(first: (5, 66), second: (4, 90))
        let off = StatsPage.change(week, before: before) ?? ""
        #expect(off.contains("further off than the week before, a week with something to discover") && off.hasSuffix(", and 1 day fewer played."), "\(off)")
        (_, week) = Self.weeks(first: (0, 60), second: (3, 60))
        #expect(StatsPage.change(week, before: nil) == nil)
    }
}
