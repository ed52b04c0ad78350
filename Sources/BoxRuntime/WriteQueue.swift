import QuestCore

/// Plays the store could not take (a full or read-only SD card, an I/O error): kept in memory
/// in order and retried with backoff until the store takes them, so a failed save loses no
/// play. While anything waits, every new request queues behind it (an estimation must never
/// land before the session it belongs to). Pure: the daemon does the writing and the clock.
public struct WriteQueue: Sendable {
    public struct Entry: Sendable {
        public var request: PersistRequest
        /// Whether the wall clock was trusted when the play happened, not when it is written.
        public var wallClockTrusted: Bool
    }

    public private(set) var pending: [Entry] = []
    /// Failed attempts since the queue was last empty.
    public private(set) var failures = 0
    /// When to try again (nil: nothing waits).
    public private(set) var retryAt: MonotonicNanos?

    /// 1, 2, 5, 10, then every 30 s: quick for a passing error, calm for a full card.
    public static let backoffSeconds: [Int64] = [1, 2, 5, 10, 30]

    public init() {}

    public var isEmpty: Bool { pending.isEmpty }

    /// A request that must wait behind earlier ones.
    public mutating func enqueue(_ request: PersistRequest, wallClockTrusted: Bool) {
        pending.append(Entry(request: request, wallClockTrusted: wallClockTrusted))
    }

    /// A write failed at `now`: `request` (a new one that could not be written) joins the
    /// end of the queue; the next attempt comes after the backoff.
    public mutating func failed(_ request: PersistRequest? = nil, wallClockTrusted: Bool = true, at now: MonotonicNanos) {
        if let request { enqueue(request, wallClockTrusted: wallClockTrusted) }
        let delay = Self.backoffSeconds[min(failures, Self.backoffSeconds.count - 1)]
        failures += 1
        retryAt = now + delay * 1_000_000_000
    }

    /// The first `count` entries are now in the store.
    public mutating func written(_ count: Int) {
        pending.removeFirst(min(count, pending.count))
        if pending.isEmpty {
            failures = 0
            retryAt = nil
        }
    }
}
