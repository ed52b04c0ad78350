import QuestCore

/// Plays a timed output sequence (an LED or buzzer pattern) on the monotonic clock: which
/// value is showing, and when it changes next. A step of 0 ms is a resting state that stays
/// until the next pattern; repeating patterns loop.
public struct PatternPlayer<Value: Equatable & Sendable>: Sendable {
    public private(set) var steps: [(value: Value, durationMs: Int)] = []
    public private(set) var repeats = false
    public private(set) var index = 0
    /// When the current step ends (nil: it rests).
    public private(set) var nextChangeAt: MonotonicNanos?

    public init() {}

    public var current: Value? { steps.indices.contains(index) ? steps[index].value : nil }

    /// Starts a pattern at `now`; returns the value to show immediately.
    public mutating func start(_ steps: [(value: Value, durationMs: Int)], repeats: Bool, at now: MonotonicNanos) -> Value? {
        self.steps = steps
        self.repeats = repeats
        index = 0
        nextChangeAt = Self.end(of: steps.first?.durationMs, from: now, repeats: repeats, isLast: steps.count == 1)
        return current
    }

    /// Moves past every step that has ended by `now`; returns the new value if it changed.
    public mutating func advance(to now: MonotonicNanos) -> Value? {
        guard var due = nextChangeAt, due <= now, !steps.isEmpty else { return nil }
        let before = current
        while due <= now {
            var next = index + 1
            if next >= steps.count {
                guard repeats else {
                    nextChangeAt = nil
                    return current == before ? nil : current
                }
                next = 0
            }
            index = next
            guard let end = Self.end(of: steps[index].durationMs, from: due, repeats: repeats, isLast: index == steps.count - 1) else {
                nextChangeAt = nil
                break
            }
            due = end
            nextChangeAt = end
        }
        return current == before ? nil : current
    }

    static func end(of durationMs: Int?, from start: MonotonicNanos, repeats: Bool, isLast: Bool) -> MonotonicNanos? {
        guard let durationMs else { return nil }
        // A 0 ms step rests (a final state), unless the pattern loops through it.
        if durationMs <= 0 { return repeats && !isLast ? start : nil }
        return start + MonotonicNanos(durationMs) * 1_000_000
    }
}

extension LEDPattern {
    var sequence: [(value: LEDColor, durationMs: Int)] { steps.map { ($0.color, $0.durationMs) } }
}

extension BuzzerPattern {
    var sequence: [(value: Bool, durationMs: Int)] { steps.map { ($0.on, $0.durationMs) } }
}
