import Foundation
import QuestCore
import QuestReports

/// #33: what a parent reads in ten seconds at the top of the parent area: today per quest
/// (done, under way, paused, not yet, with its reminder), and the last four weeks (quests
/// done, days played, accuracy, and the daily accuracy as a chart). Aggregates only (seed
/// 003): no task, guess or duration of the player's ever shows here.
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

    init(home: PlayerHome, report: StatsReport, box: BoxLink.State) {
        let running = Self.questUnderWay(box)
        today = home.quests.map { quest in
            if quest.playedToday { return Today(name: quest.name, state: "done", words: "Done") }
            if quest.name == running { return Today(name: quest.name, state: "running", words: "Under way now") }
            if let paused = quest.paused { return Today(name: quest.name, state: "paused", words: paused) }
            let reminder = quest.reminder.map { " · " + $0 } ?? ""
            return Today(name: quest.name, state: "waiting", words: "Not yet" + reminder)
        }
        hasToday = !today.isEmpty
        let reflections = ([report.weeklyReflection].compactMap { $0 } + report.earlierReflections).prefix(4)
        weeks = reflections.map { week in
            Week(
                dates: week.weekDates, quests: CountText.counted(week.questsCompleted, "quest"),
                days: "\(week.daysPlayedThisWeek) of \(week.totalDaysInWeek)",
                accuracy: week.accuracyText ?? "learning")
        }
        hasWeeks = !weeks.isEmpty
        chart = AccuracyChart.svg(report.trend)
        let played = report.days.filter { $0.daysAgo < 28 && $0.questsCompleted > 0 }.count
        playedLine = "Played on \(CountText.counted(played, "day")) of the last 28."
    }

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
