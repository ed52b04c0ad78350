/// CLOCK_MONOTONIC nanoseconds (kernel edge timestamps). Signed so that a task resumed
/// after a reboot can carry a lock time from before the current boot.
public typealias MonotonicNanos = Int64

public enum ButtonRole: String, Codable, Sendable, CaseIterable {
    case lock, stop, up, down
}

/// Leading-edge debounce on kernel timestamps (§5), one state per line, no threads.
///
/// The first edge that changes a line's state counts at once; edges within `windowNanos`
/// of it are bounce and are ignored. If the line's real level differs from the counted one
/// when the window closes (a tap shorter than the window), `settle` reports that change,
/// so a release is never lost and a button never sticks down.
public struct ButtonDebouncer: Codable, Equatable, Sendable {
    public struct Line: Codable, Equatable, Sendable {
        public var pressed = false
        public var lastAcceptedNanos: MonotonicNanos?
        public var rawPressed = false
        public var rawNanos: MonotonicNanos = 0
    }

    public enum Outcome: Equatable, Sendable {
        case accepted(pressed: Bool, atNanos: MonotonicNanos)
        case ignored
        /// Ignored as bounce, but the line now rests elsewhere: call `settle` at this time.
        case settleAt(MonotonicNanos)
    }

    public var windowNanos: MonotonicNanos
    public private(set) var lines: [ButtonRole: Line] = [:]

    public init(windowNanos: MonotonicNanos) { self.windowNanos = windowNanos }

    public func isPressed(_ role: ButtonRole) -> Bool { lines[role]?.pressed ?? false }

    public mutating func feed(_ role: ButtonRole, pressed: Bool, atNanos t: MonotonicNanos) -> Outcome {
        var line = lines[role] ?? Line()
        defer { lines[role] = line }
        if let last = line.lastAcceptedNanos, t < last { return .ignored }  // out of order: stale
        line.rawPressed = pressed
        line.rawNanos = t
        if let last = line.lastAcceptedNanos, t - last < windowNanos {
            return line.rawPressed == line.pressed ? .ignored : .settleAt(last + windowNanos)
        }
        guard pressed != line.pressed else { return .ignored }
        line.pressed = pressed
        line.lastAcceptedNanos = t
        return .accepted(pressed: pressed, atNanos: t)
    }

    /// The window closed: report the line's resting level if it differs from the counted one.
    public mutating func settle(_ role: ButtonRole) -> (pressed: Bool, atNanos: MonotonicNanos)? {
        guard var line = lines[role], line.rawPressed != line.pressed else { return nil }
        line.pressed = line.rawPressed
        line.lastAcceptedNanos = line.rawNanos
        lines[role] = line
        return (line.pressed, line.rawNanos)
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
