import BoxRuntime
import Foundation
import QuestCore
import Testing

@Suite("WriteQueue: a failed save keeps the play and retries")
struct WriteQueueTests {
    let session = GameSession(
        id: UUID(), routineID: UUID(), routineDisplayName: "Q", startedAt: Date(timeIntervalSince1970: 0), startedMonotonicNanos: 0,
        bootID: "b", isCalibration: false)

    @Test("backoff 1, 2, 5, 10, then every 30 s; order kept; empty again once all are written")
    func backoff() {
        var q = WriteQueue()
        #expect(q.isEmpty && q.retryAt == nil)
        q.failed(.sessionStarted(session), at: 0)
        #expect(q.retryAt == 1_000_000_000)
        q.enqueue(.inProgressCleared, wallClockTrusted: false)
        var retries: [Int64] = []
        var now: Int64 = 1_000_000_000
        for _ in 0..<6 {
            q.failed(at: now)
            retries.append((q.retryAt! - now) / 1_000_000_000)
            now = q.retryAt!
        }
        #expect(retries == [2, 5, 10, 30, 30, 30])
        #expect(q.pending.map(\.wallClockTrusted) == [true, false])
        guard case .sessionStarted = q.pending[0].request, case .inProgressCleared = q.pending[1].request else {
            Issue.record("order lost")
            return
        }
        q.written(1)
        #expect(q.pending.count == 1 && q.retryAt != nil)
        q.written(1)
        #expect(q.isEmpty && q.retryAt == nil && q.failures == 0)
    }
}
