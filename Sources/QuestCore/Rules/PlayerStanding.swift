/// Where the player stands now: level (LVL-1), progress and XP to the next level, and the
/// streak under the parent's policy (STREAK-1, STREAK-2) with its jokers. One function for
/// every surface — the box's idle screen, the web's home, `/stats`, the CLI — so no two of
/// them can disagree.
public struct PlayerStanding: Codable, Equatable, Sendable {
    public var totalXP: Int
    public var level: Int
    /// 0 … 1 of the way from this level's threshold to the next one's.
    public var levelProgress: Double
    public var xpToNextLevel: Int
    public var streakPolicy: GameSettings.StreakPolicy
    public var streak: Int
    /// Jokers held (the joker policy only).
    public var jokers: Int?
    public var sessionsCompleted: Int
    /// CAL-1: learning quests still to come.
    public var calibrationSessionsLeft: Int
    /// STREAK-2: the local day numbers of the missed days a joker covered.
    var jokerDays: Set<Int> = []

    /// Whether a joker covered the missed day `day` falls on (#33: the calendar of days
    /// played shows it); false under the pause policy.
    public func coveredByJoker(_ day: Date, calendar: Calendar) -> Bool {
        guard !jokerDays.isEmpty else { return false }
        var days = LocalHourResolver(timeZone: calendar.timeZone)
        return jokerDays.contains(days.dayNumber(of: day))
    }

    /// The standing from the derived profile and the completed plays, judged on `today`.
    public static func of(
        profile: PlayerProfile, plays: [QuestPlay], settings: GameSettings, rules: GameRules, today: Date, calendar: Calendar
    ) -> PlayerStanding {
        var streak = profile.currentStreak
        var jokers: Int?
        var jokerDays = Set<Int>()
        if !settings.streakPolicyChanges.isEmpty {
            let result = StreakAcrossPolicies.evaluate(
                plays: plays, changes: settings.streakPolicyChanges, today: today, calendar: calendar, rules: rules)
            streak = result.streak
            jokers = result.jokers
            jokerDays = result.jokerDays
        } else if settings.streakPolicy == .joker {
            var days = LocalHourResolver(timeZone: calendar.timeZone)
            let result = JokerStreakCalculator.evaluate(plays: plays, today: today, calendar: calendar, rules: rules)
            streak = result.currentStreak
            jokers = result.availableJokers
            if let first = plays.map({ days.dayNumber(of: $0.completedAt) }).min() {
                jokerDays = Set(result.jokerDayIndices.map { first + $0 })
            }
        }
        var standing = PlayerStanding(
            totalXP: profile.totalXP, level: LevelCalculator.level(fromTotalXP: profile.totalXP, rules: rules),
            levelProgress: LevelCalculator.progressToNextLevel(totalXP: profile.totalXP, rules: rules),
            xpToNextLevel: LevelCalculator.xpToNextLevel(totalXP: profile.totalXP, rules: rules),
            streakPolicy: settings.streakPolicy, streak: streak, jokers: jokers, sessionsCompleted: profile.sessionsCompleted,
            calibrationSessionsLeft: CalibrationTracker.remainingCalibrationSessions(completedSessions: profile.sessionsCompleted, rules: rules))
        standing.jokerDays = jokerDays
        return standing
    }

    /// The world's standing (what the box holds), judged on `today`.
    public static func of(_ world: QuestWorld, rules: GameRules, today: Date) -> PlayerStanding {
        of(profile: world.profile, plays: world.plays, settings: world.settings, rules: rules, today: today, calendar: world.calendar)
    }

    /// The streak as every surface words it ("Streak: 4 days · jokers: 1").
    public var streakText: String {
        let days = "Streak: \(CountText.counted(streak, "day"))"
        return jokers.map { "\(days) · jokers: \($0)" } ?? days
    }
}
