import Foundation
import Hummingbird
import QuestCore
import QuestStore
import QuestReports

/// `/stats`: the 30-day accuracy trend (TREND-1), personal bests, the player's per-task
/// patterns (INS-1) and the weekly reflection with the four weeks before it (REFL-1), read
/// from the store at most once per 2 s (`WebServices.stats`). Curiosity framing only: no
/// comparison with anyone else's times (SPEC §9).
struct StatsController {
    let resources: WebResources
    let calendar: Calendar
    let reads: PlayerPageReads
    let settings: any FamilySettings
    let plays: any PlayHistory

    func addRoutes(to router: RoomRoutes<WebRequestContext>) {
        router.get("/stats") { _, _ in try await reads.stats().page }
        // #48: a day of the calendar opens: the quests finished that day, task by task.
        router.get("/stats/day/:date") { _, context in
            let calendar = try settings.familyCalendar(from: self.calendar)
            guard let text = context.parameters.get("date"), let day = StatsDay.date(text, calendar: calendar, now: Date()) else {
                throw HTTPError(.notFound, message: "No such day.")
            }
            let view = try await BackgroundRead.run { Result { try StatsDay(day: day, plays: plays, calendar: calendar) } }.get()
            return try resources.page("stats-day", view)
        }
    }

    func addAPIRoutes(to group: RoomRoutes<WebRequestContext>) {
        group.get("stats") { _, _ in try await reads.stats().report }
    }
}

extension StatsReport: ResponseEncodable {}

/// A day of her calendar (#48): each quest finished that day, its tasks with the guess, the
/// time and how close, in the reveal's words.
struct StatsDay: Encodable {
    struct Task: Encodable {
        var name: String
        var line: String
    }
    struct Quest: Encodable {
        var name: String
        var learning: Bool
        var tasks: [Task]
    }

    var title: String
    var quests: [Quest]
    var nothing: Bool

    /// "2026-11-23" as a day of the family's calendar: a real date, not in the future, in
    /// the last five years; anything else is nil.
    static func date(_ text: String, calendar: Calendar, now: Date) -> Date? {
        guard text.utf8.count == 10, let match = text.wholeMatch(of: /([0-9]{4})-([0-9]{2})-([0-9]{2})/),
              let year = Int(match.1), let month = Int(match.2), let day = Int(match.3),
              let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
              calendar.component(.day, from: date) == day, calendar.component(.month, from: date) == month
        else { return nil }
        let today = calendar.startOfDay(for: now)
        guard date <= today, let earliest = calendar.date(byAdding: .year, value: -5, to: today), date >= earliest else { return nil }
        return date
    }

    init(day: Date, plays: any PlayHistory, calendar: Calendar) throws {
        let end = calendar.date(byAdding: .day, value: 1, to: day) ?? day.addingTimeInterval(86_400)
        // A quest counts on the day it was finished (as the calendar and the streak count it);
        // one started the evening before is read too.
        let from = calendar.date(byAdding: .day, value: -1, to: day) ?? day
        let finished = try plays.sessions(startedIn: from..<end).filter { s in
            s.status == .completed && s.completedAt.map { $0 >= day && $0 < end } == true
        }
        let estimations = Dictionary(grouping: try plays.estimations(ofSessions: finished.map(\.id)), by: \.sessionID)
        let c = calendar.dateComponents([.weekday, .day, .month], from: day)
        title = "\(CalendarWords.weekday(c.weekday)) \(c.day ?? 1) \(CalendarWords.month(c.month))"
        quests = finished.map { session in
            Quest(
                name: session.routineDisplayName, learning: session.isCalibration,
                tasks: (estimations[session.id] ?? []).sorted { $0.orderIndex < $1.orderIndex }.map { e in
                    Task(
                        name: e.taskDisplayName,
                        line: "guessed \(DurationText.clock(measured: e.estimatedSeconds)), took \(DurationText.clock(measured: e.actualSeconds))"
                            + (session.isCalibration ? "" : " · \(e.rating.words)"))
                })
        }
        nothing = quests.isEmpty
    }
}

/// A read of the stats with its page rendered.
struct RenderedStats: Sendable {
    let report: StatsReport
    let page: HTML
}

/// The stats page's view of a `StatsReport`: words and the chart, nothing computed in the
/// template.
struct StatsPage: Sendable {
    struct Best: Sendable {
        var task: String
        var offBy: String
    }
    struct Pattern: Sendable {
        var task: String
        var texts: [String]
    }
    struct ChartDay: Sendable {
        var date: String
        var accuracy: String
        var estimates: Int
    }
    struct Week: Sendable {
        var title: String
        var lines: [String]
        /// #33: what changed from the week before, in one sentence (nil with nothing to compare).
        var change: String? = nil
    }

    var chart: String?
    /// #33: the days played, each task over the month, the patterns as bars.
    var calendar: String?
    var taskTrends: [TaskPicture]
    var patternBars: String?
    var hasTaskTrends: Bool
    struct TaskPicture: Sendable {
        var task: String
        var svg: String
        var latest: String
    }
    /// The chart's days as a table (a screen reader's view, and anyone's who prefers one).
    var chartDays: [ChartDay]
    var playedDays: Int
    var bests: [Best]
    var patterns: [Pattern]
    var reflection: Week?
    var earlier: [Week]
    // Stored, not computed: templates see stored properties only.
    var noBests: Bool
    var noPatterns: Bool
    var noEarlier: Bool
    /// What it takes for the first pattern to show (INS-1 leaves the learning quests out).
    var patternsWaiting: String

    init(_ report: StatsReport, rules: GameRules = .standard, weekdayLetters: [String] = ["M", "T", "W", "T", "F", "S", "S"]) {
        chart = AccuracyChart.svg(report.trend)
        calendar = StatsPictures.calendar(report.days, weekdayLetters: weekdayLetters)
        taskTrends = report.taskTrends.map {
            TaskPicture(task: $0.taskDisplayName, svg: StatsPictures.taskTrend($0), latest: $0.days.last.map { "\(Int($0.averageAccuracy.rounded()))% on target" } ?? "")
        }
        hasTaskTrends = !taskTrends.isEmpty
        patternBars = StatsPictures.patternBars(report.insights)
        chartDays = report.trend.filter { $0.daysAgo >= 0 && $0.daysAgo < 30 }.reversed().map {
            ChartDay(date: $0.date, accuracy: "\(Int($0.averageAccuracy.rounded()))%", estimates: $0.estimationCount)
        }
        playedDays = report.trend.count
        bests = report.personalBests.map { Best(task: $0.taskDisplayName, offBy: DurationText.format(seconds: $0.absDifferenceSeconds)) }
        patterns = report.insights.map { Pattern(task: $0.taskDisplayName, texts: $0.texts) }
        let all = (report.weeklyReflection.map { [$0] } ?? []) + report.earlierReflections
        func week(_ r: WeeklyReflection) -> Week {
            // The week just before, if it had quests (the list holds weeks with quests only).
            let before = all.first { $0.weekEndDate <= r.weekStartDate && r.weekStartDate.timeIntervalSince($0.weekStartDate) < 8 * 86_400 }
            return Week(title: "Week of \(r.weekDates)", lines: Array(r.summaryLines.dropFirst()), change: Self.change(r, before: before))
        }
        reflection = report.weeklyReflection.map(week)
        earlier = report.earlierReflections.map(week)
        noBests = bests.isEmpty
        noPatterns = patterns.isEmpty
        patternsWaiting = Self.patternsWaiting(sessionsCompleted: report.sessionsCompleted, rules: rules)
        noEarlier = earlier.isEmpty
    }

    static func patternsWaiting(sessionsCompleted: Int, rules: GameRules) -> String {
        let learningLeft = max(0, rules.calibrationSessions - sessionsCompleted)
        let estimates = "\(InsightEngine.minimumSampleSize) estimates"
        if learningLeft == 0 {
            return "After \(estimates) of a task, what the box notices about it shows here."
        }
        return "Your first \(CountText.counted(rules.calibrationSessions, "quest")) are for learning (\(learningLeft) to go). "
            + "After them, \(estimates) of a task show what the box notices about it here."
    }

    /// The calendar's column letters from the family's first weekday.
    static func weekdayLetters(_ calendar: Calendar) -> [String] {
        let letters = ["S", "M", "T", "W", "T", "F", "S"]  // 1 = Sunday
        return WeekdayText.order(calendar).map { letters[$0 - 1] }
    }

    /// One sentence on what changed from the week before, curious, never judging (FEED-1):
    /// how close the guesses were, and how many days were played.
    static func change(_ week: WeeklyReflection, before: WeeklyReflection?) -> String? {
        var parts: [String] = []
        if let points = week.accuracyChangeVsPriorWeek.map({ Int($0.rounded()) }) {
            switch points {
            case 1...: parts.append("closer than the week before by \(CountText.counted(points, "point"))")
            case ...(-1): parts.append("\(CountText.counted(-points, "point")) further off than the week before, a week with something to discover")
            default: parts.append("as close as the week before")
            }
        }
        let daysBefore = before?.daysPlayedThisWeek ?? 0
        let more = week.daysPlayedThisWeek - daysBefore
        if before != nil || week.accuracyChangeVsPriorWeek != nil {
            if more > 0 { parts.append("\(CountText.counted(more, "more day")) played") }
            if more < 0 { parts.append("\(CountText.counted(-more, "day")) fewer played") }
        }
        guard let first = parts.first else { return nil }
        let sentence = ([first.prefix(1).uppercased() + first.dropFirst()] + parts.dropFirst()).joined(separator: ", and ")
        return sentence + "."
    }
}
