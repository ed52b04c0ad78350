import Synchronization
import SystemClock

/// A value read from the store at most once per `refreshNanos` on the box's monotonic clock,
/// for the checks every request makes (the player pages' setting, the host names allowed):
/// a flood of requests costs one read per period. A read that fails (nil) keeps what was
/// read last, or `initial` (which is therefore the closed answer). The async, shared
/// counterpart for pages is `RecentValue`.
final class PeriodicRead<Value: Sendable>: Sendable {
    private let held: Mutex<(value: Value, readAt: Int64?)>
    private let read: @Sendable () -> Value?
    let clock: any SystemClock
    let refreshNanos: Int64

    init(initial: Value, refreshNanos: Int64, clock: any SystemClock, read: @escaping @Sendable () -> Value?) {
        held = Mutex((initial, nil))
        self.read = read
        self.clock = clock
        self.refreshNanos = refreshNanos
    }

    /// What was read last, fresh or not (never reads).
    var last: Value { held.withLock { $0.value } }

    /// The value, read anew when the last read is older than `refreshNanos` (or forgotten).
    var current: Value {
        let now = clock.monotonicNanos()
        let fresh = held.withLock { h -> Value? in
            guard let at = h.readAt, now - at < refreshNanos else { return nil }
            return h.value
        }
        if let fresh { return fresh }
        let value = read()
        return held.withLock { h in
            h = (value ?? h.value, now)
            return h.value
        }
    }

    /// This process changed what is read: the next asker reads it.
    func forget() { held.withLock { $0.readAt = nil } }
}
