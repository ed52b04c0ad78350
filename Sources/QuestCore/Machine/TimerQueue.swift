/// The timers the machine has asked for: what a shell arms its one timerfd from.
public struct TimerQueue: Equatable, Sendable {
    public private(set) var deadlines: [QuestTimer: MonotonicNanos] = [:]

    public init() {}

    public var isEmpty: Bool { deadlines.isEmpty }

    public mutating func apply(_ effects: [QuestEffect]) {
        for effect in effects {
            switch effect {
            case .scheduleTimer(let timer, let at): deadlines[timer] = at
            case .cancelTimer(let timer): deadlines[timer] = nil
            default: break
            }
        }
    }

    /// The earliest deadline (ties broken by a fixed order, so runs are reproducible).
    public var next: (timer: QuestTimer, atNanos: MonotonicNanos)? {
        deadlines.min { a, b in (a.value, Self.order(a.key)) < (b.value, Self.order(b.key)) }.map { ($0.key, $0.value) }
    }

    /// Takes the earliest timer off the queue if it is due at `now`.
    public mutating func popDue(now: MonotonicNanos) -> (timer: QuestTimer, atNanos: MonotonicNanos)? {
        guard let n = next, n.atNanos <= now else { return nil }
        deadlines[n.timer] = nil
        return n
    }

    static func order(_ t: QuestTimer) -> Int {
        switch t {
        case .debounce(let r): ButtonRole.allCases.firstIndex(of: r) ?? 0
        case .holdRepeat(let r): 10 + (ButtonRole.allCases.firstIndex(of: r) ?? 0)
        case .abandonHold: 20
        case .taskLimit: 21
        case .revealTimeout: 22
        case .summaryTimeout: 23
        case .reflectionTimeout: 24
        case .buttonCheckLimit: 25
        case .noteTimeout: 26
        case .claimHold: 27
        case .claimLimit: 28
        case .walkAway: 29
        case .muteHold: 30
        case .voiceSettle: 31
        case .pairingLimit: 32
        case .noticeExpiry: 33
        case .introTimeout: 34
        }
    }
}
