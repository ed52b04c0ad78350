import Foundation
import Logging
import QuestStore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// BACK-1, off the card, in the running box: the newest backup goes to every USB stick the
/// moment one is mounted and after each daily backup. The kernel tells the loop of a mount
/// (`watchFD`: /proc/self/mountinfo polls with POLLPRI on every change), so nothing is polled
/// on a timer. A copy (seconds on a slow stick, ending in fsync) runs on a thread of its own,
/// never on the loop that stamps presses; one at a time, and a change during it is looked at
/// once it ends. A stick that failed is tried again only when it is mounted anew or a newer
/// backup exists, so a full stick is one log line a day, not one a minute.
public final class OffCardCopier: Sendable {
    /// The mount table, watched for changes (-1 when it cannot be opened: no copies then).
    public let watchFD: Int32
    private let database: QuestDatabase
    private let dataFolder: String
    private let logger: Logger
    private struct Work {
        var running = false
        var again = false
        /// (mount id, backup file) already copied or tried.
        var done: Set<String> = []
    }
    private let work = Mutex(Work())

    public init(database: QuestDatabase, dataFolder: String, logger: Logger) {
        self.database = database
        self.dataFolder = dataFolder
        self.logger = logger
        watchFD = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)
    }

    deinit { if watchFD >= 0 { close(watchFD) } }

    /// Something changed (a mount, a new backup, the start): look at the sticks off the loop.
    public func check() {
        let start = work.withLock { work -> Bool in
            if work.running { work.again = true; return false }
            work.running = true
            return true
        }
        guard start else { return }
        BoxThread.start(name: "questbox-usb", stackKB: 512) { [self] in
            while true {
                copyToSticks()
                let more = work.withLock { work -> Bool in
                    if work.again { work.again = false; return true }
                    work.running = false
                    return false
                }
                if !more { break }
            }
        }
    }

    private func copyToSticks() {
        let sticks = RemovableVolumes.mounted(excludingFileSystemOf: dataFolder)
        guard !sticks.isEmpty, let newest = try? database.backups.newest() else { return }
        for stick in sticks {
            let key = "\(stick.mountID) \(newest.fileName)"
            let fresh = work.withLock { work in
                if work.done.count > 256 { work.done = [] }
                return work.done.insert(key).inserted
            }
            guard fresh else { continue }
            do {
                switch try database.backups.copyNewest(to: stick, now: Date()) {
                case .copied(let copy):
                    logger.info("backup copied to a USB stick", metadata: ["stick": "\(copy.label)", "file": "\(copy.fileName)", "bytes": "\(copy.sizeBytes)"])
                case .alreadyThere:
                    break
                }
            } catch {
                logger.error("backup not copied to a USB stick", metadata: ["error": "\(error)"])
            }
        }
    }
}
