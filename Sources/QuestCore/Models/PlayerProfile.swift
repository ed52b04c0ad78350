/// The player's progression (one per box).
public struct PlayerProfile: Codable, Equatable, Sendable {
    public var totalXP: Int
    /// STREAK-1 (pause policy) streak; the joker streak is derived from play history.
    public var currentStreak: Int
    public var lastPlayedDate: Date?
    public var sessionsCompleted: Int

    public init(totalXP: Int = 0, currentStreak: Int = 0, lastPlayedDate: Date? = nil, sessionsCompleted: Int = 0) {
        self.totalXP = totalXP
        self.currentStreak = currentStreak
        self.lastPlayedDate = lastPlayedDate
        self.sessionsCompleted = sessionsCompleted
    }

    public func level(rules: GameRules = .standard) -> Int {
        LevelCalculator.level(fromTotalXP: totalXP, rules: rules)
    }

    /// The profile as the history says it is: XP as the store summed it, and the quest count,
    /// the STREAK-1 streak and the last play day from the completed quests. Every writer (the
    /// daemon, the CLI, the web app) sees the same totals whatever order their plays landed in.
    public static func derived(totalXP: Int, plays: [QuestPlay], calendar: Calendar) -> PlayerProfile {
        let streak = StreakTracker.replay(playedAt: plays.map(\.completedAt), calendar: calendar)
        return PlayerProfile(
            totalXP: totalXP, currentStreak: streak.currentStreak, lastPlayedDate: streak.lastPlayedDate, sessionsCompleted: plays.count)
    }
}

/// A completed quest as the streak rules see it (STREAK-2's good-day test).
public struct QuestPlay: Codable, Equatable, Sendable {
    public var routineID: UUID?
    public var completedAt: Date
    public var measuredTaskSeconds: Double

    public init(routineID: UUID? = nil, completedAt: Date, measuredTaskSeconds: Double) {
        self.routineID = routineID
        self.completedAt = completedAt
        self.measuredTaskSeconds = measuredTaskSeconds
    }
}

extension QuestPlay {
    /// The completed quests of a history with their measured task time, oldest first: the
    /// same as the store's `questPlays()`, from data already loaded.
    public static func completedPlays(sessions: [GameSession], snapshots: [EstimationSnapshot]) -> [QuestPlay] {
        var measured: [UUID: Double] = [:]
        for s in snapshots { if let id = s.sessionID { measured[id, default: 0] += s.actualSeconds } }
        return sessions.compactMap { s -> QuestPlay? in
            guard s.status == .completed, let at = s.completedAt else { return nil }
            return QuestPlay(routineID: s.routineID, completedAt: at, measuredTaskSeconds: measured[s.id] ?? 0)
        }
        .sorted { $0.completedAt < $1.completedAt }
    }
}
