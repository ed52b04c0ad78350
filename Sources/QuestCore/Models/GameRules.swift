/// Every tunable number of the game in one value (XP-1, LVL-1, GAME-4, GAME-6, §5), so a
/// constant is changed in one place and tests can pin the defaults.
public struct GameRules: Codable, Equatable, Sendable {
    // XP-1
    public var xpSpotOn = 100
    public var xpClose = 60
    public var xpOff = 25
    public var xpWayOff = 10
    public var xpSessionCompletionBonus = 20
    // LVL-1: xpRequired(L) = floor(levelBaseXP · L^levelExponent)
    public var levelBaseXP = 100
    public var levelExponent = 1.5
    // CAL-1
    public var calibrationSessions = 3
    // STREAK-2
    public var jokerEveryGoodDays = 7
    public var maxJokers = 3
    public var goodDayMinimumMinutes = 2
    // GAME-4 / GAME-6 / §2, in milliseconds
    public var accidentalStopGuardMs: Int64 = 2_000
    public var abandonHoldMs: Int64 = 3_000
    public var taskLimitMs: Int64 = 3 * 60 * 60 * 1_000
    public var revealTimeoutMs: Int64 = 8_000
    public var summaryTimeoutMs: Int64 = 30_000
    // §5 buttons
    public var debounceMs: Int64 = 30
    public var holdMs: Int64 = 800
    /// Hold-repeat: first repeat interval, shrinking by `repeatAcceleration` per step down to `repeatMinimumMs`.
    public var repeatInitialMs: Int64 = 250
    public var repeatAcceleration = 0.8
    public var repeatMinimumMs: Int64 = 60
    // §2 estimates
    public var defaultEstimateSeconds = 120
    public var minimumEstimateSeconds = 15
    public var maximumEstimateSeconds = 3 * 60 * 60

    public init() {}

    public static let standard = GameRules()
}

/// Choices the parent or player makes (persisted by the store).
public struct GameSettings: Codable, Equatable, Sendable {
    public enum StreakPolicy: String, Codable, Sendable, Equatable {
        case pause
        case joker
    }

    public var streakPolicy: StreakPolicy = .pause
    public var hintsEnabled = true
    /// Buzz the locked-in estimate back when the box has no display (§2).
    public var estimateReadBack = false

    public init(streakPolicy: StreakPolicy = .pause, hintsEnabled: Bool = true, estimateReadBack: Bool = false) {
        self.streakPolicy = streakPolicy
        self.hintsEnabled = hintsEnabled
        self.estimateReadBack = estimateReadBack
    }
}
