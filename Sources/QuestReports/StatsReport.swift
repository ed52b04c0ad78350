import Foundation
import QuestCore
import QuestStore

/// What `questbox stats --json` prints and the web app's stats page shows: read from the
/// store's history each time (the store is the one truth), never kept in a process.
public struct StatsReport: Encodable, Sendable {
    public struct Best: Encodable, Sendable {
        public var taskDisplayName: String
        public var absDifferenceSeconds: Double
        public var recordedAt: String
    }

    public var totalXP: Int
    public var level: Int
    public var levelProgress: Double
    public var xpToNextLevel: Int
    public var streakPolicy: String
    public var currentStreak: Int
    public var availableJokers: Int?
    public var sessionsCompleted: Int
    public var personalBests: [Best]
    public var weeklyReflection: WeeklyReflection?
    /// REFL-1: the four weeks before last week that had quests, newest first.
    public var earlierReflections: [WeeklyReflection]
    /// TREND-1: each played day of the last 30 (today included), oldest first.
    public var trend: [TrendDay]
    /// INS-1: per task with enough estimations, in the curiosity wording.
    public var insights: [Pattern]
    public var lastBackup: String?
    /// #33: the last five weeks a day each, from the first day of the week: quests completed,
    /// and whether one was left paused that day.
    public var days: [PlayDay]
    /// #33: each task's accuracy per day over the last 30 days (learning quests left out, as
    /// CAL-1 says), the tasks played most first, at most six.
    public var taskTrends: [TaskTrend]

    public struct PlayDay: Encodable, Sendable, Equatable {
        public var date: String
        public var daysAgo: Int
        public var questsCompleted: Int
        public var paused: Bool
        /// STREAK-2: a missed day a joker covered (the streak went on through it).
        public var joker: Bool
        public init(date: String, daysAgo: Int, questsCompleted: Int, paused: Bool, joker: Bool = false) {
            self.date = date
            self.daysAgo = daysAgo
            self.questsCompleted = questsCompleted
            self.paused = paused
            self.joker = joker
        }
    }

    public struct TaskTrend: Encodable, Sendable, Equatable {
        public var taskDisplayName: String
        public var days: [TrendDay]
    }

    /// One task's INS-1 patterns, named as the player knows the task (the store's ids stay
    /// inside the box).
    public struct Pattern: Encodable, Sendable {
        public var taskDisplayName: String
        public var estimationCount: Int
        public var bias: BiasInsight
        public var trend: TrendInsight?
        public var consistency: ConsistencyInsight
        public var bestTimeOfDay: TimeOfDayInsight?
        public var texts: [String]
        public init(_ i: TaskInsight) {
            taskDisplayName = i.taskDisplayName
            estimationCount = i.estimationCount
            bias = i.bias
            trend = i.trend
            consistency = i.consistency
            bestTimeOfDay = i.bestTimeOfDay
            texts = i.texts
        }
    }

    /// One day of the accuracy trend; `date` is the calendar day, `YYYY-MM-DD`, `daysAgo` 0
    /// for today.
    public struct TrendDay: Encodable, Sendable, Equatable {
        public var date: String
        public var daysAgo: Int
        public var averageAccuracy: Double
        public var estimationCount: Int
        public init(date: String, daysAgo: Int, averageAccuracy: Double, estimationCount: Int) {
            self.date = date
            self.daysAgo = daysAgo
            self.averageAccuracy = averageAccuracy
            self.estimationCount = estimationCount
        }
    }

    enum CodingKeys: String, CodingKey {
        case totalXP, level, levelProgress, xpToNextLevel, streakPolicy, currentStreak, availableJokers, sessionsCompleted,
             personalBests, weeklyReflection, earlierReflections, trend, insights, lastBackup, days, taskTrends
    }

    /// Absent values are `null`, except jokers, which exist only under the joker policy.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(totalXP, forKey: .totalXP)
        try c.encode(level, forKey: .level)
        try c.encode(levelProgress, forKey: .levelProgress)
        try c.encode(xpToNextLevel, forKey: .xpToNextLevel)
        try c.encode(streakPolicy, forKey: .streakPolicy)
        try c.encode(currentStreak, forKey: .currentStreak)
        try c.encodeIfPresent(availableJokers, forKey: .availableJokers)
        try c.encode(sessionsCompleted, forKey: .sessionsCompleted)
        try c.encode(personalBests, forKey: .personalBests)
        try c.encode(weeklyReflection, forKey: .weeklyReflection)
        try c.encode(earlierReflections, forKey: .earlierReflections)
        try c.encode(trend, forKey: .trend)
        try c.encode(days, forKey: .days)
        try c.encode(taskTrends, forKey: .taskTrends)
        try c.encode(insights, forKey: .insights)
        try c.encode(lastBackup, forKey: .lastBackup)
    }

    public static func load(from db: QuestDatabase, now: Date, calendar: Calendar) throws -> StatsReport {
        let settings = try db.settings.current()
        let cal = settings.calendar(from: calendar)
        let snapshots = try db.plays.snapshots()
        let sessions = try db.plays.sessions()
        let plays = QuestPlay.completedPlays(sessions: sessions, snapshots: snapshots)
        let profile = try db.profile(sessions: sessions, plays: plays, calendar: cal)
        let standing = PlayerStanding.of(profile: profile, plays: plays, settings: settings.game, rules: .standard, today: now, calendar: cal)
        let index = InsightIndex(snapshots: snapshots, calendar: cal)
        var reflection: WeeklyReflection?
        if let previous = WeeklyReflectionEngine.previousWeekBounds(from: now, calendar: cal) {
            let r = WeeklyReflectionEngine.computeReflection(
                snapshots: snapshots, sessions: sessions, weekContaining: previous.start, calendar: cal, index: index)
            reflection = r.isMeaningful ? r : nil
        }
        // The four weeks before last week's (whose card is `weeklyReflection`).
        let earlier = WeeklyReflectionEngine.previousWeekBounds(from: now, calendar: cal).map {
            WeeklyReflectionEngine.recentReflections(snapshots: snapshots, sessions: sessions, now: $0.start, calendar: cal, index: index)
        } ?? []
        let today = cal.startOfDay(for: now)
        let trend = AccuracyTrend.dailyAverages(snapshots: snapshots, now: now, calendar: cal).map {
            let d = cal.dateComponents([.year, .month, .day], from: $0.day)
            return TrendDay(
                date: String(format: "%04d-%02d-%02d", d.year ?? 0, d.month ?? 0, d.day ?? 0),
                daysAgo: cal.dateComponents([.day], from: $0.day, to: today).day ?? 0,
                averageAccuracy: $0.averageAccuracy, estimationCount: $0.estimationCount)
        }
        return StatsReport(
            totalXP: standing.totalXP, level: standing.level, levelProgress: standing.levelProgress,
            xpToNextLevel: standing.xpToNextLevel, streakPolicy: standing.streakPolicy.rawValue,
            currentStreak: standing.streak, availableJokers: standing.jokers, sessionsCompleted: standing.sessionsCompleted,
            personalBests: PersonalBestTracker.personalBests(from: snapshots).map {
                Best(taskDisplayName: $0.taskDisplayName, absDifferenceSeconds: $0.absDifferenceSeconds, recordedAt: $0.recordedAt.formatted(.iso8601))
            },
            weeklyReflection: reflection, earlierReflections: earlier, trend: trend, insights: index.insights().map(Pattern.init),
            lastBackup: try db.backups.newest().map { $0.createdAt.formatted(.iso8601) },
            days: playDays(sessions: sessions, now: now, calendar: cal, standing: standing),
            taskTrends: taskTrends(snapshots: snapshots, now: now, calendar: cal))
    }

    static func dayText(_ day: Date, calendar: Calendar) -> String {
        let d = calendar.dateComponents([.year, .month, .day], from: day)
        return String(format: "%04d-%02d-%02d", d.year ?? 0, d.month ?? 0, d.day ?? 0)
    }

    /// From the first day of the week four weeks before this one, through today.
    static func playDays(sessions: [GameSession], now: Date, calendar cal: Calendar, standing: PlayerStanding? = nil) -> [PlayDay] {
        let today = cal.startOfDay(for: now)
        guard let back = cal.date(byAdding: .day, value: -28, to: today),
              let first = cal.dateInterval(of: .weekOfYear, for: back)?.start
        else { return [] }
        var completed: [Date: Int] = [:], paused = Set<Date>()
        for s in sessions {
            if s.status == .completed, let at = s.completedAt, at >= first { completed[cal.startOfDay(for: at), default: 0] += 1 }
            if s.status == .paused, s.startedAt >= first { paused.insert(cal.startOfDay(for: s.startedAt)) }
        }
        var out: [PlayDay] = []
        var day = cal.startOfDay(for: first)
        while day <= today, out.count < 40 {
            out.append(PlayDay(
                date: dayText(day, calendar: cal), daysAgo: cal.dateComponents([.day], from: day, to: today).day ?? 0,
                questsCompleted: completed[day] ?? 0, paused: paused.contains(day),
                joker: standing?.coveredByJoker(day, calendar: cal) ?? false))
            guard let next = cal.date(byAdding: .day, value: 1, to: day) else { break }
            day = cal.startOfDay(for: next)
        }
        return out
    }

    static func taskTrends(snapshots: [EstimationSnapshot], now: Date, calendar cal: Calendar) -> [TaskTrend] {
        let today = cal.startOfDay(for: now)
        guard let since = cal.date(byAdding: .day, value: -29, to: today) else { return [] }
        var byTask: [String: [Date: [Double]]] = [:], counts: [String: Int] = [:]
        for s in snapshots where !s.isCalibration && s.recordedAt >= since && s.recordedAt.timeIntervalSince(today) < 86_400 * 2 {
            byTask[s.taskDisplayName, default: [:]][cal.startOfDay(for: s.recordedAt), default: []].append(s.accuracyPercent)
            counts[s.taskDisplayName, default: 0] += 1
        }
        let ranked = counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(6).map(\.key)
        return ranked.map { task in
            let days = (byTask[task] ?? [:]).sorted { $0.key < $1.key }.map { day, values in
                TrendDay(
                    date: dayText(day, calendar: cal), daysAgo: cal.dateComponents([.day], from: day, to: today).day ?? 0,
                    averageAccuracy: values.reduce(0, +) / Double(values.count), estimationCount: values.count)
            }
            return TaskTrend(taskDisplayName: task, days: days)
        }
    }
}
