/// What the house may ask of the box through the broker, and how often (#47, #50).
///
/// Anyone the broker lets publish can send commands, and a flood of them cost the link a log
/// line or two each and the box a socket request each: 20,000 junk commands kept an emulated
/// box's CPUs busy enough that its sound underran. So a command is passed on only when it is
/// one (`ON`/`OFF` to mute, anything to remind), fresh (not retained), within the window's
/// budget, and, for a reminder, at least `reminderSpacing` after the last one the box took
/// (REM-1 is one a day per routine; a house's button is a few an hour at most). Everything
/// else is counted, and told once per window: the first ignored command of a window at once,
/// the rest as one count when the window ends.
public struct HouseCommandGate: Sendable {
    public enum Command: Equatable, Sendable {
        case remind
        case mute(Bool)
        /// On a command topic, but not a command (mute takes `ON` or `OFF`).
        case notACommand
    }

    public enum Reason: String, CaseIterable, Sendable {
        case retained
        case notACommand = "not_a_command"
        case tooMany = "too_many"
        case reminderTooSoon = "reminder_too_soon"
    }

    public enum Verdict: Equatable, Sendable {
        case pass
        /// Ignored; `tell` is true for the first ignored command of its window (its own line).
        case ignored(Reason, tell: Bool)
    }

    /// Ignored commands of a window after its first, by reason.
    public struct Summary: Equatable, Sendable {
        public var counts: [Reason: Int]
        public var total: Int { counts.values.reduce(0, +) }
        public init(counts: [Reason: Int]) { self.counts = counts }
    }

    public static let windowSeconds = 10.0
    /// Commands passed to the box per window: a person at Home Assistant taps a few.
    public static let perWindow = 5
    public static let reminderSpacing = 600.0

    private var windowStart: Double?
    private var passed = 0
    private var toldThisWindow = false
    private var untold: [Reason: Int] = [:]
    /// The untold counts of windows that ended, until `summary` hands them out.
    private var pending: [Reason: Int] = [:]
    private var lastReminder: Double?

    public init() {}

    /// What a command on the remind or mute topic is: any payload reminds; mute takes `ON` or
    /// `OFF` in any case, with whitespace around it.
    public static func command(remind: Bool, payload: [UInt8]) -> Command {
        if remind { return .remind }
        let isSpace = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
        guard payload.count <= 64, let first = payload.firstIndex(where: { !isSpace($0) }),
              let last = payload.lastIndex(where: { !isSpace($0) })
        else { return .notACommand }
        switch String(decoding: payload[first...last], as: UTF8.self).uppercased() {
        case "ON": return .mute(true)
        case "OFF": return .mute(false)
        default: return .notACommand
        }
    }

    public mutating func admit(_ command: Command, retained: Bool, at t: Double) -> Verdict {
        roll(at: t)
        let reason: Reason? =
            if retained { .retained }
            else if command == .notACommand { .notACommand }
            else if passed >= Self.perWindow { .tooMany }
            else if command == .remind, let last = lastReminder, t - last < Self.reminderSpacing { .reminderTooSoon }
            else { nil }
        guard let reason else {
            passed += 1
            return .pass
        }
        if toldThisWindow {
            untold[reason, default: 0] += 1
            return .ignored(reason, tell: false)
        }
        toldThisWindow = true
        return .ignored(reason, tell: true)
    }

    /// The box sounded a reminder the house asked for: the next one waits `reminderSpacing`.
    /// (One the box refused, during a quest, does not count.)
    public mutating func reminderTaken(at t: Double) {
        lastReminder = t
    }

    /// What was ignored untold in windows that have ended, once; nil when nothing was.
    public mutating func summary(at t: Double) -> Summary? {
        if let start = windowStart, !Self.within(start, t) {
            closeWindow()
            windowStart = nil
        }
        guard !pending.isEmpty else { return nil }
        defer { pending = [:] }
        return Summary(counts: pending)
    }

    /// A time before the window's start (a turn's time, read before the command came) is in it.
    private static func within(_ start: Double, _ t: Double) -> Bool {
        t - start < windowSeconds
    }

    private mutating func roll(at t: Double) {
        if let start = windowStart, Self.within(start, t) { return }
        closeWindow()
        windowStart = t
    }

    private mutating func closeWindow() {
        for (reason, count) in untold { pending[reason, default: 0] += count }
        untold = [:]
        passed = 0
        toldThisWindow = false
    }
}
