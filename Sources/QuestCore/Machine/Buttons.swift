/// CLOCK_MONOTONIC nanoseconds (kernel edge timestamps). Signed so that a task resumed
/// after a reboot can carry a lock time from before the current boot.
public typealias MonotonicNanos = Int64

public enum ButtonRole: String, Codable, Sendable, CaseIterable {
    case lock, stop, up, down
}

/// Leading-edge debounce on kernel timestamps (§5), one state per line, no threads.
///
/// The first edge that changes a line's state counts at once, at its own timestamp; edges
/// within `windowNanos` of it are bounce and are ignored. When the window closes the shell
/// reads the line's real level (`QuestEffect.readButton`) and `settle` reports a change the
/// edges left behind, so a release is never lost and a button never sticks down.
///
/// An edge's reported level is only a hint: the kernel reads the level back after the
/// interrupt, so during a bounce burst it can report the level the line started from, or
/// the same level twice (seen on gpio-sim in the HIL bounce scenario). An edge that reports
/// no change still means the line moved, so it asks for a settle at the window's end, and
/// the change it started counts from its timestamp.
public struct ButtonDebouncer: Codable, Equatable, Sendable {
    public struct Line: Codable, Equatable, Sendable {
        public var pressed = false
        public var lastAcceptedNanos: MonotonicNanos?
        /// The first edge inside the window of the last counted change.
        public var firstInWindowNanos: MonotonicNanos?
        /// The first edge after that window that reported no change: a change began there.
        public var firstAfterWindowNanos: MonotonicNanos?
    }

    public enum Outcome: Equatable, Sendable {
        /// A change counted; the line must be read when the window closes, at `atNanos + window`.
        case accepted(pressed: Bool, atNanos: MonotonicNanos)
        /// A stale edge (older than the last counted change or read).
        case ignored
        /// The line moved without a counted change: read it at this time and `settle`.
        case settleAt(MonotonicNanos)
    }

    public var windowNanos: MonotonicNanos
    public private(set) var lines: [ButtonRole: Line] = [:]

    public init(windowNanos: MonotonicNanos) { self.windowNanos = windowNanos }

    public func isPressed(_ role: ButtonRole) -> Bool { lines[role]?.pressed ?? false }

    public mutating func feed(_ role: ButtonRole, pressed: Bool, atNanos t: MonotonicNanos) -> Outcome {
        var line = lines[role] ?? Line()
        defer { lines[role] = line }
        if let last = line.lastAcceptedNanos, t < last { return .ignored }  // stale: already accounted for
        if let last = line.lastAcceptedNanos, t - last < windowNanos {
            // Bounce (or a tap shorter than the window): the read when the window closes
            // settles it. Asked for again, since a change counted by a read has none pending.
            if line.firstInWindowNanos == nil { line.firstInWindowNanos = t }
            return .settleAt(last + windowNanos)
        }
        guard pressed != line.pressed else {
            if line.firstAfterWindowNanos == nil { line.firstAfterWindowNanos = t }
            return .settleAt(t + windowNanos)
        }
        line.pressed = pressed
        line.lastAcceptedNanos = t
        line.firstInWindowNanos = nil
        line.firstAfterWindowNanos = nil
        return .accepted(pressed: pressed, atNanos: t)
    }

    /// The line was read at `now` and rests at `level`: the change to report if the counted
    /// state differs, timed from the edge that began it. Edges stamped before `now` are
    /// then stale: the read already accounts for them.
    public mutating func settle(_ role: ButtonRole, level: Bool, at now: MonotonicNanos) -> (pressed: Bool, atNanos: MonotonicNanos)? {
        var line = lines[role] ?? Line()
        defer { lines[role] = line }
        let began = line.firstAfterWindowNanos ?? line.firstInWindowNanos ?? now
        line.firstInWindowNanos = nil
        line.firstAfterWindowNanos = nil
        guard level != line.pressed else { return nil }
        line.pressed = level
        line.lastAcceptedNanos = max(now, line.lastAcceptedNanos ?? now)
        return (level, began)
    }
}

/// §2 estimate steps: 15 s below 2 min, 30 s below 10 min, 1 min below 30 min, then 5 min.
public enum EstimateStepper: Sendable {
    public static func stepSize(at seconds: Int) -> Int {
        switch seconds {
        case ..<120: 15
        case ..<600: 30
        case ..<1800: 60
        default: 300
        }
    }

    /// Next value up, snapped to the grid of the band it lands in.
    public static func up(_ seconds: Int, rules: GameRules = .standard) -> Int {
        let step = stepSize(at: seconds)
        return clamp((seconds / step + 1) * step, rules: rules)
    }

    /// Next value down: the step of the band just below, so 2:00 goes to 1:45, not 1:30.
    public static func down(_ seconds: Int, rules: GameRules = .standard) -> Int {
        let step = stepSize(at: seconds - 1)
        return clamp(((seconds - 1) / step) * step, rules: rules)
    }

    public static func clamp(_ seconds: Int, rules: GameRules = .standard) -> Int {
        min(rules.maximumEstimateSeconds, max(rules.minimumEstimateSeconds, seconds))
    }

    /// Hold-repeat interval after `repeats` repeats: accelerating down to the minimum.
    public static func repeatInterval(afterRepeats repeats: Int, rules: GameRules = .standard) -> MonotonicNanos {
        let ms = Double(rules.repeatInitialMs) * power(rules.repeatAcceleration, Double(repeats))
        return max(rules.repeatMinimumMs, Int64(ms.rounded())) * 1_000_000
    }
}
