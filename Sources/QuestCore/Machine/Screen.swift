/// What a display surface shows (terminal renderer, kiosk page). The box also works with
/// none: everything important is also a sound, an LED pattern or a buzzer pattern.
public enum Screen: Codable, Equatable, Sendable {
    case idle(IdleScreen)
    case estimating(EstimatingScreen)
    case active(ActiveScreen)
    case reveal(RevealScreen)
    case summary(SummaryScreen)
    /// REFL-1: last week's "sports score card", before the first quest of a new week.
    case reflection(WeeklyReflection)
    /// PAR-2: someone asks to set the parent PIN; the box says how to allow it.
    case claim(ClaimScreen)
    /// PRIV-1: a phone asks to show her pages; the box gives the code it types.
    case pairing(PairingScreen)
    /// GAME-9: before her first quest, what guess, lock, task and reveal mean.
    case intro(IntroScreen)
}

public struct QuestOption: Codable, Equatable, Sendable {
    public var routineID: UUID
    /// GAME-1: display name or "Quest N", never the internal name.
    public var name: String
    public var badge: String?
    public var playedToday: Bool
    /// REM-1: its reminder sounded today and it is not played yet (nil otherwise).
    public var reminded: Bool? = nil
}

public struct IdleScreen: Codable, Equatable, Sendable {
    public var quests: [QuestOption]
    public var selectedIndex: Int?
    public var level: Int
    public var levelProgress: Double
    public var streakText: String
    public var calibrationSessionsLeft: Int
    public var reflection: WeeklyReflection?
    public var notice: String?
}

public struct EstimatingScreen: Codable, Equatable, Sendable {
    public var questName: String
    public var taskName: String
    public var taskNumber: Int
    public var taskCount: Int
    public var estimateSeconds: Int
    public var hint: String?
}

/// GAME-2: no clock, countdown or elapsed time — by construction there is no field for it.
public struct ActiveScreen: Codable, Equatable, Sendable {
    public var questName: String
    public var taskName: String
    public var taskNumber: Int
    public var taskCount: Int
    public var estimateSeconds: Int
    /// A refused press seen (GAME-4's guard): "Just started!" for a moment.
    public var note: String? = nil
}

public struct RevealScreen: Codable, Equatable, Sendable {
    public var taskName: String
    public var estimatedSeconds: Double
    public var actualSeconds: Double
    public var differenceSeconds: Double
    public var accuracyPercent: Double
    public var rating: AccuracyRating
    public var feedback: Feedback
    public var xpGained: Int
    public var isPersonalBest: Bool
    public var isCalibration: Bool
    public var isLastTask: Bool
    /// INS-1's bias of this task, this play included, once it has enough plays (GAME-6,
    /// seed 003: patterns extend the reveal); nil on a learning quest.
    public var pattern: BiasInsight? = nil
}

public struct SummaryScreen: Codable, Equatable, Sendable {
    public var questName: String
    public var sessionXP: Int
    public var totalXP: Int
    public var level: Int
    public var levelProgress: Double
    public var leveledUp: Bool
    public var personalBests: [String]
    public var streakText: String
    public var streakMilestone: Int?
    public var calibrationSessionsLeft: Int
}

extension Screen {
    /// The screen's name on every surface that names it (the socket's `kind`, traces).
    public var kind: String {
        switch self {
        case .idle: "idle"
        case .estimating: "estimating"
        case .active: "active"
        case .reveal: "reveal"
        case .summary: "summary"
        case .reflection: "reflection"
        case .claim: "claim"
        case .pairing: "pairing"
        case .intro: "intro"
        }
    }

    /// Plain text lines for the terminal, the kiosk page and logs: the shared words in
    /// reading order (`ScreenWords`).
    public var textLines: [String] { words.all }
}
