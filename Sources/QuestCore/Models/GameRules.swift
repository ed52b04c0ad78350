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
    public var reflectionTimeoutMs: Int64 = 60_000
    /// GAME-9: the first quest's intro left alone this long goes back to the quest list.
    public var introTimeoutMs: Int64 = 2 * 60 * 1_000
    /// GAME-7: a quest waiting for the player this long with no press is paused.
    public var walkAwayPauseMs: Int64 = 10 * 60 * 1_000
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

/// A local time of day, "HH:MM" (REM-1 reminders).
public struct ClockTime: Codable, Equatable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int

    /// nil unless 0 ≤ hour ≤ 23 and 0 ≤ minute ≤ 59.
    public init?(hour: Int, minute: Int) {
        guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        self.hour = hour
        self.minute = minute
    }

    /// Exactly "HH:MM" with two digits each ("7:30" and "07:30:00" are refused).
    public init?(_ text: String) {
        let b = Array(text.utf8)
        func digit(_ i: Int) -> Int? { (48...57).contains(b[i]) ? Int(b[i]) - 48 : nil }
        guard b.count == 5, b[2] == UInt8(ascii: ":"), let h1 = digit(0), let h2 = digit(1), let m1 = digit(3), let m2 = digit(4)
        else { return nil }
        self.init(hour: h1 * 10 + h2, minute: m1 * 10 + m2)
    }

    private init(valid hour: Int, _ minute: Int) {
        self.hour = hour
        self.minute = minute
    }

    /// The time of day `date` falls on in the family's calendar (a wall-clock fact: what a
    /// page says a reminder sounded at).
    public init(of date: Date, calendar: Calendar) {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        self.init(valid: min(max(parts.hour ?? 0, 0), 23), min(max(parts.minute ?? 0, 0), 59))
    }

    /// REM-1's default reminder time.
    public static let morning = ClockTime(valid: 7, 30)

    /// Minutes since midnight.
    public var minutes: Int { hour * 60 + minute }

    public var description: String { (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)" }

    public static func < (a: ClockTime, b: ClockTime) -> Bool { (a.hour, a.minute) < (b.hour, b.minute) }
}

/// When a routine's reminder sounds (REM-1): at the box's reminder time, never, or at its own time.
public enum ReminderChoice: Codable, Equatable, Hashable, Sendable, CustomStringConvertible {
    case standard
    case off
    case at(ClockTime)

    /// "HH:MM", "off" or "default"; nil for anything else.
    public init?(_ text: String) {
        switch text {
        case "off": self = .off
        case "default": self = .standard
        default:
            guard let time = ClockTime(text) else { return nil }
            self = .at(time)
        }
    }

    public var description: String {
        switch self {
        case .standard: "default"
        case .off: "off"
        case .at(let t): t.description
        }
    }
}

/// STREAK-3: the streak policy switched at `at` from `from` to `to`.
public struct StreakPolicyChange: Codable, Equatable, Sendable {
    public var at: Date
    public var from: GameSettings.StreakPolicy
    public var to: GameSettings.StreakPolicy

    public init(at: Date, from: GameSettings.StreakPolicy, to: GameSettings.StreakPolicy) {
        self.at = at
        self.from = from
        self.to = to
    }
}

/// Choices the parent or player makes (persisted by the store).
public struct GameSettings: Codable, Equatable, Sendable {
    public enum StreakPolicy: String, Codable, Sendable, Equatable, CaseIterable {
        case pause
        case joker
    }

    public var streakPolicy: StreakPolicy = .pause
    public var hintsEnabled = true
    /// Buzz the locked-in estimate back when the box has no display (§2).
    public var estimateReadBack = false
    /// GAME-4's guard in whole seconds; nil: the rules' default (2 s).
    public var stopGuardSeconds: Int?
    /// REM-1: the player can turn reminders off; each routine's reminder sounds at its own
    /// time, or at `reminderTime` unless it is off.
    public var remindersEnabled = true
    public var reminderTime = ClockTime.morning
    /// STREAK-3: every switch of `streakPolicy`, oldest first (the store keeps them), so a
    /// switch never takes away a streak already shown.
    public var streakPolicyChanges: [StreakPolicyChange] = []
    /// The box's sounds are off (`sound.mute`): the idle gesture switches them (#32).
    public var soundMuted = false
    /// The player's switches a parent has locked (#32): only the parent changes them.
    public var lockedSwitches: Set<PlayerSwitch> = []
    /// GAME-9: the first quest explains itself (`intro`). The store's default is on; a world
    /// built by hand (a rehearsal, a test) leaves it off unless it asks.
    public var firstQuestIntro = false

    public init(
        streakPolicy: StreakPolicy = .pause, hintsEnabled: Bool = true, estimateReadBack: Bool = false,
        stopGuardSeconds: Int? = nil, remindersEnabled: Bool = true, reminderTime: ClockTime? = nil
    ) {
        self.streakPolicy = streakPolicy
        self.hintsEnabled = hintsEnabled
        self.estimateReadBack = estimateReadBack
        self.stopGuardSeconds = stopGuardSeconds
        self.remindersEnabled = remindersEnabled
        self.reminderTime = reminderTime ?? .morning
    }

    /// GAME-4: how long after lock-in a stop press is taken as an accident.
    public func stopGuardMs(rules: GameRules) -> Int64 {
        stopGuardSeconds.map { Int64($0) * 1_000 } ?? rules.accidentalStopGuardMs
    }

    /// The range `stop.guard-seconds` accepts.
    public static let stopGuardRange = 0...10
}

/// The settings the player switches herself (#32, seed 004: she owns her reminders), on her
/// web page and, for the sound, at the box; a parent can lock each one.
public enum PlayerSwitch: String, CaseIterable, Codable, Sendable {
    case mute = "sound.mute"
    case hints
    case reminders

    /// The switches a parent may lock. Seed 004 (#48): she can always turn her reminders off,
    /// so that one is hers alone.
    public static let lockable: [PlayerSwitch] = [.mute, .hints]

    /// Whether the switch is on in `settings` (the sound switch is on when the sounds are
    /// muted): the one reading for every surface, and what the store's write is tested against.
    public func isOn(in settings: GameSettings) -> Bool {
        switch self {
        case .mute: settings.soundMuted
        case .hints: settings.hintsEnabled
        case .reminders: settings.remindersEnabled
        }
    }
}
