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
        init(_ i: TaskInsight) {
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
             personalBests, weeklyReflection, earlierReflections, trend, insights, lastBackup
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
        try c.encode(insights, forKey: .insights)
        try c.encode(lastBackup, forKey: .lastBackup)
    }

    public static func load(from db: QuestDatabase, now: Date, calendar: Calendar) throws -> StatsReport {
        let settings = try db.settings()
        let cal = settings.calendar(from: calendar)
        let snapshots = try db.snapshots()
        let sessions = try db.sessions()
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
            lastBackup: try db.lastBackup().map { $0.createdAt.formatted(.iso8601) })
    }
}
