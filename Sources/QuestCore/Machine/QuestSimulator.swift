/// Drives the machine on a virtual monotonic clock: events at given times, due timers fired
/// in order before each event. Deterministic for a given script, start time and id source —
/// the engine of the demo, the walk-through tests and scripted simulation.
public struct QuestSimulator: Sendable {
    public enum IDSource: Sendable {
        /// 00000000-0000-0000-0000-000000000001, …: reproducible output.
        case sequential(next: Int)
        /// Fresh random ids, for runs whose results are stored.
        case random
    }

    public struct Step: Sendable {
        public var atNanos: MonotonicNanos
        /// nil for the start-up step.
        public var event: QuestEvent?
        public var effects: [QuestEffect]
    }

    public private(set) var state: QuestState
    public private(set) var timers = TimerQueue()
    public private(set) var nowNanos: MonotonicNanos
    public var wallClockStart: Date
    public let monotonicStart: MonotonicNanos
    public var wallClockTrusted: Bool
    public var ids: IDSource
    /// Every step so far, in order.
    public private(set) var log: [Step] = []

    public init(
        state: QuestState, wallClockStart: Date, monotonicStart: MonotonicNanos = 0, wallClockTrusted: Bool = true,
        ids: IDSource = .sequential(next: 1)
    ) {
        self.state = state
        self.wallClockStart = wallClockStart
        self.monotonicStart = monotonicStart
        self.nowNanos = monotonicStart
        self.wallClockTrusted = wallClockTrusted
        self.ids = ids
    }

    public var wallClock: Date { wallClockStart.addingTimeInterval(Double(nowNanos - monotonicStart) / 1e9) }

    mutating func environment() -> QuestEnvironment {
        let id: UUID
        switch ids {
        case .sequential(let n):
            ids = .sequential(next: n + 1)
            id = Self.sequentialID(n)
        case .random:
            id = UUID()
        }
        return QuestEnvironment(now: wallClock, newID: id, wallClockTrusted: wallClockTrusted)
    }

    public static func sequentialID(_ n: Int) -> UUID {
        let hex = String(UInt64(truncatingIfNeeded: n), radix: 16)
        let padded = String(repeating: "0", count: max(0, 12 - hex.count)) + hex
        return UUID(uuidString: "00000000-0000-0000-0000-" + padded.suffix(12)) ?? UUID()
    }

    /// The start-up screen and lights.
    @discardableResult
    public mutating func start() -> [QuestEffect] {
        let env = environment()
        let (next, effects) = QuestMachine.start(state, env: env)
        state = next
        timers.apply(effects)
        log.append(Step(atNanos: nowNanos, event: nil, effects: effects))
        return effects
    }

    /// Fires every timer due up to `t`, then moves the clock to `t`.
    public mutating func advance(to t: MonotonicNanos) {
        while let due = timers.next, due.atNanos <= t {
            nowNanos = max(nowNanos, due.atNanos)
            _ = timers.popDue(now: nowNanos)
            deliver(.timerFired(due.timer, atNanos: due.atNanos))
        }
        nowNanos = max(nowNanos, t)
    }

    /// Delivers an event at `t` (after any timers due before it).
    @discardableResult
    public mutating func send(_ event: QuestEvent, at t: MonotonicNanos) -> [QuestEffect] {
        advance(to: t)
        return deliver(event)
    }

    @discardableResult
    public mutating func press(_ role: ButtonRole, at t: MonotonicNanos) -> [QuestEffect] {
        send(.button(role, pressed: true, atNanos: t), at: t)
    }

    @discardableResult
    public mutating func release(_ role: ButtonRole, at t: MonotonicNanos) -> [QuestEffect] {
        send(.button(role, pressed: false, atNanos: t), at: t)
    }

    /// Runs pending timers until none is left (or `limit` of them ran).
    public mutating func runUntilQuiet(limit: Int = 10_000) {
        var count = 0
        while let due = timers.next, count < limit {
            advance(to: due.atNanos)
            count += 1
        }
    }

    /// Each line's level as the last event sent left it: what reading the line gives.
    public private(set) var levels: [ButtonRole: Bool] = [:]

    @discardableResult
    mutating func deliver(_ event: QuestEvent) -> [QuestEffect] {
        if case .button(let role, let pressed, _) = event { levels[role] = pressed }
        if case .touch(let role, let pressed, _) = event { levels[role] = pressed }
        let env = environment()
        let (next, effects) = QuestMachine.step(state, event, env: env)
        state = next
        timers.apply(effects)
        log.append(Step(atNanos: nowNanos, event: event, effects: effects))
        var all = effects
        for case .readButton(let role) in effects {
            all += deliver(.buttonLevel(role, pressed: levels[role] ?? false, atNanos: nowNanos))
        }
        return all
    }

    /// Every effect so far, in order.
    public var allEffects: [QuestEffect] { log.flatMap(\.effects) }
}
