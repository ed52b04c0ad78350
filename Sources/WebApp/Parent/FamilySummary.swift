import Foundation
import QuestCore
import QuestReports

/// #33: what a parent reads in ten seconds at the top of the parent area: today per quest
/// (done, under way, paused, not yet, with its reminder), and the last four weeks (quests
/// done, days played, accuracy, and the daily accuracy as a chart). Aggregates only (seed
/// 003): no task, guess or duration of the player's ever shows here.
///
/// #48: every number of "the last four weeks" is over the same 28 days ending today (the
/// chart's 30, a line's 28 and the last four finished calendar weeks sat side by side): the
/// table's rows are those 28 days by seven, the newest first.
struct FamilySummary: Encodable {
    struct Today: Encodable {
        var name: String
        /// done | running | paused | waiting (the page's colour and icon).
        var state: String
        var words: String
    }

    struct Week: Encodable {
        var dates: String
        var quests: String
        var days: String
        var accuracy: String
    }

    var today: [Today]
    var hasToday: Bool
    var weeks: [Week]
    var hasWeeks: Bool
    var chart: String?
    var playedLine: String

    init(home: PlayerHome, report: StatsReport, box: BoxLink.State, calendar: Calendar, now: Date = Date()) {
        let running = Self.questUnderWay(box)
        today = home.quests.map { quest in
            if quest.playedToday { return Today(name: quest.name, state: "done", words: "Done") }
            if quest.name == running { return Today(name: quest.name, state: "running", words: "Under way now") }
            if let paused = quest.paused { return Today(name: quest.name, state: "paused", words: paused) }
            let reminder = quest.reminder.map { " · " + $0 } ?? ""
            return Today(name: quest.name, state: "waiting", words: "Not yet" + reminder)
        }
        hasToday = !today.isEmpty
        let today = calendar.startOfDay(for: now)
        weeks = (0..<(Self.windowDays / 7)).map { block in
            let range = (block * 7)...(block * 7 + 6)
            let days = report.days.filter { range.contains($0.daysAgo) }
            let scored = report.trend.filter { range.contains($0.daysAgo) }
            let guesses = scored.reduce(0) { $0 + $1.estimationCount }
            let quests = days.reduce(0) { $0 + $1.questsCompleted }
            let accuracy = guesses > 0
                ? "\(Int((scored.reduce(0.0) { $0 + $1.averageAccuracy * Double($1.estimationCount) } / Double(guesses)).rounded()))%"
                : (quests > 0 ? "learning" : "–")
            let end = calendar.date(byAdding: .day, value: 1 - block * 7, to: today) ?? today
            let start = calendar.date(byAdding: .day, value: -7, to: end) ?? today
            return Week(
                dates: block == 0 ? "The last 7 days" : WeeklyReflectionEngine.datesText(start: start, end: end, calendar: calendar),
                quests: CountText.counted(quests, "quest"),
                days: "\(days.filter { $0.questsCompleted > 0 }.count) of 7", accuracy: accuracy)
        }
        let played = report.days.filter { $0.daysAgo < Self.windowDays && $0.questsCompleted > 0 }.count
        hasWeeks = played > 0
        chart = AccuracyChart.svg(report.trend, days: Self.windowDays)
        playedLine = "Played on \(CountText.counted(played, "day")) of the last \(Self.windowDays)."
    }

    /// The summary's one window: four weeks, ending today.
    static let windowDays = 28

    /// The quest the box is playing now (its name as the box shows it), if any.
    static func questUnderWay(_ box: BoxLink.State) -> String? {
        guard case .online(let reply) = box, let screen = reply.screen?.screen else { return nil }
        return switch screen {
        case .estimating(let s): s.questName
        case .active(let s): s.questName
        default: nil
        }
    }
}
