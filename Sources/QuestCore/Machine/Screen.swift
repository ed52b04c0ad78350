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
}

public struct QuestOption: Codable, Equatable, Sendable {
    public var routineID: UUID
    /// GAME-1: display name or "Quest N", never the internal name.
    public var name: String
    public var badge: String?
    public var playedToday: Bool
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
        }
    }

    /// Plain text lines for the terminal renderer and logs.
    public var textLines: [String] {
        switch self {
        case .idle(let s):
            var lines = ["TimeQuest · Level \(s.level) (\(Int((s.levelProgress * 100).rounded(.down)))% to next) · \(s.streakText)"]
            if let notice = s.notice { lines.append(notice) }
            if s.reflection != nil { lines.append("Your week in review comes with your first quest.") }
            if s.quests.isEmpty { lines.append("No quests today. Enjoy the day!") }
            for (i, q) in s.quests.enumerated() {
                let marker = i == s.selectedIndex ? ">" : " "
                let badge = q.badge.map { " [\($0)]" } ?? ""
                lines.append("\(marker) \(q.name)\(badge)\(q.playedToday ? " ✓" : "")")
            }
            if s.calibrationSessionsLeft > 0 {
                lines.append("Learning your patterns: \(CountText.counted(s.calibrationSessionsLeft, "quest")) to go")
            }
            return lines
        case .estimating(let s):
            var lines = ["\(s.questName) · task \(s.taskNumber) of \(s.taskCount)", s.taskName,
                         "How long will it take?  \(DurationText.clock(seconds: s.estimateSeconds))"]
            if let hint = s.hint { lines.append(hint) }
            return lines
        case .active(let s):
            return ["\(s.questName) · task \(s.taskNumber) of \(s.taskCount)", s.taskName,
                    "Go! Your guess: \(DurationText.format(seconds: Double(s.estimateSeconds))). Press STOP when done."]
        case .reveal(let s):
            var lines = [s.taskName, s.feedback.headline,
                         "Guess \(DurationText.format(seconds: s.estimatedSeconds)) · took \(DurationText.format(seconds: s.actualSeconds)) · \(s.feedback.detail)",
                         "+\(s.xpGained) XP"]
            if s.isPersonalBest { lines.append("Personal best!") }
            return lines
        case .summary(let s):
            var lines = ["\(s.questName) complete!", "+\(s.sessionXP) XP · total \(s.totalXP)",
                         "Level \(s.level) (\(Int((s.levelProgress * 100).rounded(.down)))% to next)\(s.leveledUp ? " · LEVEL UP!" : "")",
                         s.streakText]
            if !s.personalBests.isEmpty { lines.append("Personal best: " + s.personalBests.joined(separator: ", ")) }
            if let m = s.streakMilestone { lines.append("\(m)-day streak!") }
            if s.calibrationSessionsLeft > 0 { lines.append("Still learning your patterns: \(s.calibrationSessionsLeft) to go") }
            return lines
        case .reflection(let r):
            return r.summaryLines + ["Press any button to go on."]
        }
    }
}
