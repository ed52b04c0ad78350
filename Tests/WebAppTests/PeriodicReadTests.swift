import Foundation
import Synchronization
import SystemClock
import Testing
@testable import WebApp

/// #49: one helper for the settings every request checks (the player pages' setting, the
/// host names allowed), instead of a cache of its own in each.
@Suite("PeriodicRead: the store read at most once a period")
struct PeriodicReadTests {
    @Test("one read per period however many ask; a failed read keeps the last value; forget reads again")
    func readsOncePerPeriod() {
        let clock = FakeSystemClock(wall: Date(timeIntervalSince1970: 1_790_000_000))
        let reads = Mutex(0)
        let answer = Mutex<Int?>(7)
        let value = PeriodicRead(initial: -1, refreshNanos: 1_000_000_000, clock: clock) {
            reads.withLock { $0 += 1 }
            return answer.withLock { $0 }
        }
        #expect(value.last == -1, "nothing read yet: the initial, closed answer")
        for _ in 0..<1_000 { #expect(value.current == 7) }
        #expect(reads.withLock { $0 } == 1)
        clock.advance(seconds: 0.999)
        #expect(value.current == 7 && reads.withLock { $0 } == 1)
        clock.advance(seconds: 0.001)
        answer.withLock { $0 = nil }
        #expect(value.current == 7, "a store that cannot be read keeps what was read last")
        #expect(reads.withLock { $0 } == 2)
        answer.withLock { $0 = 9 }
        #expect(value.current == 7, "the failed read counts as this period's")
        value.forget()
        #expect(value.current == 9 && reads.withLock { $0 } == 3)
        #expect(value.last == 9)
    }
}
