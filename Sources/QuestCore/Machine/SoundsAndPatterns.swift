/// Every sound of §6; the raw value is the WAV file's base name in `Sounds/`.
public enum SoundID: String, Codable, Sendable, CaseIterable {
    case lockIn = "lock_in"
    case stop
    case revealSpotOn = "reveal_spot_on"
    case revealClose = "reveal_close"
    case revealOff = "reveal_off"
    case revealWayOff = "reveal_way_off"
    case levelUp = "level_up"
    case personalBest = "personal_best"
    case questComplete = "quest_complete"
    case questAvailable = "quest_available"
    case streakMilestone = "streak_milestone"
    case estimateTick = "estimate_tick"

    public static func reveal(_ rating: AccuracyRating) -> SoundID {
        switch rating {
        case .spotOn: .revealSpotOn
        case .close: .revealClose
        case .off: .revealOff
        case .wayOff: .revealWayOff
        }
    }
}

public enum LEDColor: String, Codable, Sendable, CaseIterable {
    case off, red, green, blue, yellow, cyan, magenta, white
}

extension LEDColor {
    /// The lines of an RGB LED that are on for this colour.
    public var rgb: (red: Bool, green: Bool, blue: Bool) {
        switch self {
        case .off: (false, false, false)
        case .red: (true, false, false)
        case .green: (false, true, false)
        case .blue: (false, false, true)
        case .yellow: (true, true, false)
        case .cyan: (false, true, true)
        case .magenta: (true, false, true)
        case .white: (true, true, true)
        }
    }

    /// The colour an RGB LED shows with these lines on.
    public init(red: Bool, green: Bool, blue: Bool) {
        self = Self.allCases.first { $0.rgb == (red, green, blue) } ?? .off
    }
}

/// One timed step of an output sequence. A single-colour LED is on for any colour but `off`.
public struct LEDStep: Codable, Equatable, Sendable {
    public var color: LEDColor
    public var durationMs: Int
}

public struct BuzzerStep: Codable, Equatable, Sendable {
    public var on: Bool
    public var durationMs: Int
}

/// The status LED's states (§2). The output layer plays `steps`, looping when `repeats`.
public enum LEDPattern: Codable, Equatable, Sendable {
    case off
    /// Idle with a quest to play: a slow blink (GPIO lines cannot breathe without PWM).
    case questAvailable
    case estimating
    /// While the task runs: a slow heartbeat, no clock.
    case active
    case reveal(AccuracyRating)
    case celebration
    /// REM-1: a reminder sounded and its quest is not played yet: a slow blink until it is,
    /// or the day ends.
    case reminder
    /// REFL-1: steady while last week's reflection is offered.
    case reflection
    /// No screen (§2): with two or more quests today, which one is selected, as that many
    /// blinks and a pause: blue while it is to be played, yellow after its reminder, green
    /// once played today. Loops while anything is left to play, else blinks once.
    case questNumber(Int, color: LEDColor, looping: Bool)
    /// PAR-2: someone asks to set the parent PIN: a quick magenta blink, steady magenta while
    /// STOP and DOWN are held (no quest ever shows magenta for long).
    case claim(holding: Bool)

    public var repeats: Bool {
        switch self {
        case .questAvailable, .active, .reminder: true
        case .questNumber(_, _, let looping): looping
        case .claim(let holding): !holding
        case .off, .estimating, .reveal, .celebration, .reflection: false
        }
    }

    static let numberBlinkMs = 200, numberGapMs = 300, numberPauseMs = 1_500, numberCycleMs = 3_000

    public var steps: [LEDStep] {
        func s(_ c: LEDColor, _ ms: Int) -> LEDStep { LEDStep(color: c, durationMs: ms) }
        switch self {
        case .off: return [s(.off, 0)]
        case .questAvailable: return [s(.blue, 150), s(.off, 2850)]
        case .reminder: return [s(.yellow, 1000), s(.off, 1000)]
        case .estimating: return [s(.white, 0)]
        case .reflection: return [s(.green, 0)]
        case .claim(holding: false): return [s(.magenta, 250), s(.off, 250)]
        case .claim(holding: true): return [s(.magenta, 0)]
        case .questNumber(let n, let color, let looping):
            let blinks = max(1, n)
            let steps = (0..<blinks).flatMap { _ in [s(color, Self.numberBlinkMs), s(.off, Self.numberGapMs)] }
            // The pause after the count tells one count from the next.
            let rest = max(Self.numberCycleMs - blinks * (Self.numberBlinkMs + Self.numberGapMs), Self.numberPauseMs)
            return looping ? steps.dropLast() + [s(.off, Self.numberGapMs + rest)] : steps.dropLast() + [s(.off, 0)]
        case .active: return [s(.cyan, 80), s(.off, 150), s(.cyan, 80), s(.off, 1690)]
        case .reveal(.spotOn): return [s(.green, 120), s(.off, 80), s(.green, 120), s(.off, 80), s(.green, 120), s(.off, 80), s(.green, 2000), s(.off, 0)]
        case .reveal(.close): return [s(.cyan, 200), s(.off, 100), s(.cyan, 200), s(.off, 100), s(.cyan, 1800), s(.off, 0)]
        case .reveal(.off): return [s(.yellow, 400), s(.off, 200), s(.yellow, 1800), s(.off, 0)]
        case .reveal(.wayOff): return [s(.magenta, 700), s(.off, 300), s(.magenta, 1600), s(.off, 0)]
        case .celebration:
            return [s(.red, 100), s(.yellow, 100), s(.green, 100), s(.cyan, 100), s(.blue, 100), s(.magenta, 100),
                    s(.white, 1500), s(.off, 0)]
        }
    }
}

/// The buzzer is the haptic channel: key moments only, never every press (seed 004).
public enum BuzzerPattern: Codable, Equatable, Sendable {
    case tap
    case reveal(AccuracyRating)
    case celebration
    /// The locked-in estimate as pulses for a box without a display: one long pulse per
    /// minute and one short pulse per remaining quarter minute; from 10 minutes on, one long
    /// pulse per 5 minutes and one short pulse per remaining minute.
    case readBack(seconds: Int)
    /// No screen (§2): the quest just selected, as that many short pulses.
    case questNumber(Int)
    /// PAR-2: a PIN claim shows on the box: three quick pulses, unlike any quest's.
    case claim

    public var steps: [BuzzerStep] {
        func on(_ ms: Int) -> BuzzerStep { BuzzerStep(on: true, durationMs: ms) }
        func off(_ ms: Int) -> BuzzerStep { BuzzerStep(on: false, durationMs: ms) }
        switch self {
        case .tap: return [on(40), off(0)]
        // Reveals and celebrations follow a tap (the stop press's): a pause first, so the
        // two never run together into one long buzz.
        case .reveal(.spotOn): return [off(80), on(60), off(60), on(60), off(60), on(60), off(0)]
        case .reveal(.close): return [off(80), on(80), off(100), on(80), off(0)]
        case .reveal(.off): return [off(80), on(150), off(0)]
        case .reveal(.wayOff): return [off(80), on(90), off(250), on(90), off(0)]
        case .celebration: return [off(80), on(80), off(80), on(80), off(80), on(80), off(200), on(300), off(0)]
        case .readBack(let seconds):
            let (long, short) = Self.readBackPulses(seconds: seconds)
            var steps: [BuzzerStep] = []
            for _ in 0..<long { steps += [on(400), off(250)] }
            if long > 0 && short > 0 { steps.append(off(400)) }
            for _ in 0..<short { steps += [on(80), off(200)] }
            return steps + [off(0)]
        case .questNumber(let n):
            return (0..<max(1, n)).flatMap { _ in [on(50), off(200)] } + [off(0)]
        case .claim:
            return [on(30), off(70), on(30), off(70), on(30), off(0)]
        }
    }

    /// (long, short) pulse counts for the read-back.
    public static func readBackPulses(seconds: Int) -> (long: Int, short: Int) {
        if seconds >= 600 {
            return (seconds / 300, (seconds % 300) / 60)
        }
        return (seconds / 60, (seconds % 60) / 15)
    }
}

// Names for the live event stream and wiring checks ("reveal-spot_on", "readback").
extension LEDPattern {
    public var name: String {
        switch self {
        case .off: "off"
        case .questAvailable: "quest-available"
        case .estimating: "estimating"
        case .active: "active"
        case .reveal(let r): "reveal-\(r.rawValue)"
        case .celebration: "celebration"
        case .reminder: "reminder"
        case .reflection: "reflection"
        case .questNumber(let n, _, _): "quest-\(n)"
        case .claim(let holding): holding ? "claim-holding" : "claim"
        }
    }
}

extension BuzzerPattern {
    public var name: String {
        switch self {
        case .tap: "tap"
        case .reveal(let r): "reveal-\(r.rawValue)"
        case .celebration: "celebration"
        case .readBack: "readback"
        case .questNumber: "quest-number"
        case .claim: "claim"
        }
    }

    /// The patterns a wiring check can ask for by name.
    public static let testable: [BuzzerPattern] = [.tap, .celebration] + AccuracyRating.allCases.map { .reveal($0) }
}
