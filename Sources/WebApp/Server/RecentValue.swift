import Foundation
import Synchronization

/// A value made at most once per `freshNanos` however many ask (the box's state, the stats
/// read from five years of history). Askers within its freshness get it as it is; the first
/// asker after it gets it as it was while one new one is made in the background (so no page
/// waits for a re-read under load); with none yet, or after `forget`, askers wait for the one
/// being made.
final class RecentValue<Value: Sendable>: Sendable {
    private struct Held {
        var value: Value?
        var madeAt: UInt64 = 0
        var making = false
        var waiting: [CheckedContinuation<Value?, Never>] = []
        /// Counts `forget`s: a value begun before one is not fresh for those who came after.
        var generation = 0
    }
    private enum Next { case ready(Value), readyAndRenew(Value), wait, make }
    private let held = Mutex(Held())
    let freshNanos: UInt64

    init(freshNanos: UInt64) { self.freshNanos = freshNanos }

    func get(_ make: @escaping @Sendable () async -> Value) async -> Value {
        let now = DispatchTime.now().uptimeNanoseconds
        let (next, generation) = held.withLock { h -> (Next, Int) in
            (Self.next(&h, now: now, freshNanos: freshNanos), h.generation)
        }
        switch next {
        case .ready(let value):
            return value
        case .readyAndRenew(let value):
            Task { await self.made(await make(), generation: generation) }
            return value
        case .wait:
            let made: Value? = await withCheckedContinuation { continuation in
                // Made meanwhile: it is there.
                let value = held.withLock { h -> Value?? in
                    if !h.making { return .some(h.value) }
                    h.waiting.append(continuation)
                    return .none
                }
                if let value { continuation.resume(returning: value) }
            }
            if let made { return made }
            return await get(make)   // forgotten while it was made: make it anew
        case .make:
            let value = await make()
            await self.made(value, generation: generation)
            return value
        }
    }

    private static func next(_ h: inout Held, now: UInt64, freshNanos: UInt64) -> Next {
        if let value = h.value {
            if now &- h.madeAt < freshNanos || h.making { return .ready(value) }
            h.making = true
            return .readyAndRenew(value)
        }
        if h.making { return .wait }
        h.making = true
        return .make
    }

    /// A value begun in `generation` is done: kept and handed to the waiting askers, unless
    /// a `forget` came since (then they ask again, for one begun after it).
    private func made(_ value: Value, generation: Int) async {
        let (waiting, current) = held.withLock { h in
            defer {
                h.waiting = []
                h.making = false
            }
            guard h.generation == generation else { return (h.waiting, false) }
            h.value = value
            h.madeAt = DispatchTime.now().uptimeNanoseconds
            return (h.waiting, true)
        }
        for continuation in waiting { continuation.resume(returning: current ? value : nil) }
    }

    /// How many times it was forgotten (tests tell a forget from none).
    var forgotten: Int { held.withLock { $0.generation } }

    /// The next `get` makes it anew.
    func forget() {
        held.withLock { h in
            h.value = nil
            h.generation += 1
        }
    }
}
