@testable import BoxRuntime
import Foundation
import Logging
import QuestCore
import QuestStore
import Testing

@Suite("The persist queue: a play is written, or kept in order and retried")
struct PersistQueueTests {
    /// A store that fails while `failing`, refuses requests named in `refused`, and records writes.
    final class Store {
        var failing = false
        var written: [(String, Bool)] = []
        var refused: Set<String> = []
        struct Full: Error {}
        func write(_ request: PersistRequest, _ trusted: Bool) throws {
            if failing { throw Full() }
            if refused.contains(request.kind) { throw StoreError.invalid("refused") }
            written.append((request.kind, trusted))
        }
    }

    static let session = GameSession(
        id: UUID(), routineID: UUID(), routineDisplayName: "Q", startedAt: Date(timeIntervalSince1970: 0), startedMonotonicNanos: 0,
        bootID: "b", isCalibration: false)

    func queue(_ store: Store) -> PersistQueue {
        PersistQueue(logger: Logger(label: "test"), write: store.write)
    }

    @Test("a play is written at once; no notice")
    func written() {
        let store = Store()
        let q = queue(store)
        #expect(q.save(.sessionStarted(Self.session), wallClockTrusted: false, at: 0))
        #expect(store.written.map(\.0) == ["sessionStarted"] && store.written[0].1 == false)
        #expect(q.isEmpty && q.notice == nil && q.retryAt == nil)
    }

    @Test("a failed write is kept with the clock's trust at the time; later plays queue behind it; all are written in order once the store recovers")
    func keptAndRetried() {
        let store = Store()
        let q = queue(store)
        store.failing = true
        #expect(!q.save(.sessionStarted(Self.session), wallClockTrusted: false, at: 0), "the caller cues: not saved")
        #expect(q.notice == PersistQueue.notSavedNotice && q.waiting == 1 && q.retryAt == 1_000_000_000)
        store.failing = false
        #expect(q.save(.inProgressCleared, wallClockTrusted: true, at: 10), "queued behind, no second cue")
        #expect(store.written.isEmpty, "nothing jumps the queue")
        store.failing = true
        #expect(!q.retry(at: 1_000_000_000))
        #expect(q.retryAt == 3_000_000_000 && q.waiting == 2)
        store.failing = false
        #expect(q.retry(at: 3_000_000_000))
        #expect(store.written.map(\.0) == ["sessionStarted", "inProgressCleared"])
        #expect(store.written.map(\.1) == [false, true])
        #expect(q.isEmpty && q.notice == nil && q.retryAt == nil)
    }

    @Test("a request the store refuses for good is dropped, so it never blocks later plays")
    func refused() {
        let store = Store()
        store.refused = ["sessionStarted"]
        let q = queue(store)
        #expect(q.save(.sessionStarted(Self.session), wallClockTrusted: true, at: 0))
        #expect(q.isEmpty && store.written.isEmpty)
        #expect(q.save(.inProgressCleared, wallClockTrusted: true, at: 0))
        #expect(store.written.map(\.0) == ["inProgressCleared"])
    }
}
