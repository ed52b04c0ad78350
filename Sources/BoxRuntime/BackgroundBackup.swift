import CEventLoop
import Foundation
import Logging
import QuestStore
import Synchronization
import SystemClock

/// The daily backup of the box's start, written once the box is ready, off the loop (#49:
/// start to ready): VACUUM INTO five years of play took about 70 of daemon-figures' 320 ms
/// start, and the box now answers presses meanwhile. A `BoxThread` that ends when the file is
/// written; it wakes the loop (`doneFD`), which writes the backup into the store's log. That
/// write is the loop's own, so the store follower takes its events as such: written from the
/// thread, they looked like another program's and set off ten seconds of re-checks.
final class BackgroundBackup: Sendable {
    /// Signalled when the file is written (or the backup was not due, or failed); -1 when no
    /// eventfd could be made (the loop then makes the backup itself).
    let doneFD: Int32
    private struct Work {
        var running = false
        var made: BackupInfo?
    }
    private let work = Mutex(Work())

    init() { doneFD = qb_eventfd_create() }

    deinit { if doneFD >= 0 { close(doneFD) } }

    /// Writes the day's backup file if it is due, unless one is being written.
    func start(database: QuestDatabase, clock: SystemClock, calendar: Calendar, logger: Logger) {
        let idle = work.withLock { work -> Bool in
            defer { work.running = true }
            return !work.running
        }
        guard idle else { return }
        BoxThread.start(name: "questbox-backup") { [self] in
            var made: BackupInfo?
            do {
                let now = clock.wallNow()
                if try database.backups.isDue(now: now, calendar: calendar) { made = try database.backups.makeFile(kind: .automatic, now: now) }
            } catch {
                logger.error("daily backup failed", metadata: ["error": "\(error)"])
            }
            work.withLock { work in
                work.made = made
                work.running = false
            }
            qb_eventfd_signal(doneFD)
        }
    }

    /// Writing, or written and not yet taken.
    var isBusy: Bool { work.withLock { $0.running || $0.made != nil } }

    /// The file written since the last look handed to `record` (on the loop), and only then
    /// forgotten: `isBusy` holds until it is recorded.
    func recordMade(_ record: (BackupInfo) -> Void) {
        guard let made = work.withLock({ $0.made }) else { return }
        record(made)
        work.withLock { $0.made = nil }
    }

    /// Waits for a backup being written to end (at shutdown: the caller then closes the store).
    /// Counted in 5 ms naps, not read off the wall clock (which may be set meanwhile).
    func waitUntilDone(seconds: Int = 60) {
        var naps = seconds * 200
        while naps > 0 && work.withLock({ $0.running }) {
            usleep(5_000)
            naps -= 1
        }
    }
}
