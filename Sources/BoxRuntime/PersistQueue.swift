import Logging
import QuestCore
import QuestStore

/// The persist queue: each play is written as it happens; when the store fails (a full or
/// read-only card) it is kept in memory, in order, and retried with backoff (`WriteQueue`),
/// so a failed save loses no play and the player still sees the result at once.
final class PersistQueue {
    /// What every surface shows while a play waits in memory.
    static let notSavedNotice = "Not saved yet: the box keeps this play and tries again"

    private var queue = WriteQueue()
    /// One write to the store; throws when it failed.
    private let write: (PersistRequest, Bool) throws -> Void
    private let logger: Logger

    /// `write` stores one request (`QuestDatabase.apply`); an error the store gives for good
    /// (`PlayStore.isRefusal`) drops the request, any other keeps it for a retry.
    init(logger: Logger, write: @escaping (PersistRequest, _ wallClockTrusted: Bool) throws -> Void) {
        self.logger = logger
        self.write = write
    }

    var isEmpty: Bool { queue.isEmpty }
    var waiting: Int { queue.pending.count }
    /// When to try again (nil: nothing waits).
    var retryAt: MonotonicNanos? { queue.retryAt }
    /// The line under every screen while plays wait in memory.
    var notice: String? { queue.isEmpty ? nil : Self.notSavedNotice }

    /// Writes a play, or keeps it in memory; returns false when it was kept because the
    /// store failed just now (the caller cues "not saved" and shows the notice).
    @discardableResult
    func save(_ request: PersistRequest, wallClockTrusted: Bool, at now: MonotonicNanos) -> Bool {
        guard queue.isEmpty else {
            queue.enqueue(request, wallClockTrusted: wallClockTrusted)  // keep the order
            return true
        }
        guard let error = attempt(request, wallClockTrusted: wallClockTrusted) else { return true }
        queue.failed(request, wallClockTrusted: wallClockTrusted, at: now)
        logger.error("saving failed; the play is kept in memory and retried", metadata: [
            "request": "\(request.kind)", "retry_s": "\(WriteQueue.backoffSeconds[0])", "error": "\(error)",
        ])
        return false
    }

    /// Writes what waits, in order, until the store fails again or all is saved; true when
    /// all is saved now.
    @discardableResult
    func retry(at now: MonotonicNanos) -> Bool {
        var written = 0
        for entry in queue.pending {
            if let error = attempt(entry.request, wallClockTrusted: entry.wallClockTrusted) {
                queue.written(written)
                queue.failed(at: now)
                logger.warning("saving still fails; the plays stay in memory", metadata: [
                    "requests": "\(queue.pending.count)", "retry_s": "\(((queue.retryAt ?? now) - now) / 1_000_000_000)", "error": "\(error)",
                ])
                return false
            }
            written += 1
        }
        queue.written(written)
        logger.notice("saved the plays kept in memory", metadata: ["requests": "\(written)"])
        return true
    }

    /// One write; the error when it should be tried again (the disk: full, read-only, busy).
    /// A request the store refuses for good would block every later play, so it is logged
    /// and dropped (nil).
    private func attempt(_ request: PersistRequest, wallClockTrusted: Bool) -> Error? {
        do {
            try write(request, wallClockTrusted)
        } catch where PlayStore.isRefusal(error) {
            logger.error("the store refused a request; it is dropped", metadata: ["request": "\(request.kind)", "error": "\(error)"])
        } catch {
            return error
        }
        return nil
    }
}
