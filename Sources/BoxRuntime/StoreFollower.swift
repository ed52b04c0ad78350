import CEventLoop
import Foundation
import Logging
import QuestCore
import QuestStore
import SystemClock

/// Follows the store: a commit by another process (the CLI, the web app) is seen through an
/// inotify watch on the data directory and `PRAGMA data_version` (the box's own writes leave
/// it unchanged), and the world is read again — with last week's reflection (REFL-1).
final class StoreFollower {
    private let db: QuestDatabase
    private let clock: SystemClock
    private let logger: Logger
    /// The calendar before the stored first weekday is applied (each read applies it anew).
    private let baseCalendar: Calendar
    /// The store's file name: its changes (and its WAL's, `<name>-wal`) are the ones followed.
    private let storeName: String
    /// The inotify watch on the data directory (-1: none; changes then apply on `reload`).
    let watchFD: Int32
    /// The version of the world the box holds.
    private var version: Int?
    /// The data directory changed: compare the version when the box is next idle. During a
    /// quest nothing is read (a change would wait for the quest's end anyway), so following
    /// the store costs the quest nothing.
    private(set) var checkDue = false
    /// SQLite appends to the WAL (the inotify event) before it publishes the commit in shared
    /// memory (no event): when the version has not moved yet, look again (`StoreRecheckSchedule`).
    private(set) var recheckAt: MonotonicNanos?
    private var rechecksLeft: [Int64] = []
    /// Reads of the store, for the `box` status (1: the read at start).
    private(set) var reads = 1
    /// The week whose previous week's reflection the world holds (REFL-1).
    private(set) var reflectionWeek: String?

    init(database: QuestDatabase, clock: SystemClock, calendar: Calendar, logger: Logger) {
        db = database
        self.clock = clock
        baseCalendar = calendar
        self.logger = logger
        let directory = (database.path as NSString).deletingLastPathComponent
        storeName = (database.path as NSString).lastPathComponent
        watchFD = qb_inotify_directory(directory.isEmpty ? "." : directory)
        if watchFD < 0 {
            logger.warning("cannot watch the data directory; changes by other programs apply on `reload`", metadata: [
                "directory": "\(directory)", "error": "\(String(cString: strerror(-watchFD)))",
            ])
        }
        version = try? database.dataVersion()
    }

    deinit { if watchFD >= 0 { close(watchFD) } }

    /// The watch woke the loop: look at the version when the box is next idle, and keep
    /// looking a while if it has not moved yet.
    func watchFired() {
        // Another file in the folder (the voice's cache folder made, a log): not the store.
        guard qb_inotify_drain_named(watchFD, storeName) > 0 else { return }
        rechecksLeft = StoreRecheckSchedule.gapsMs
        checkDue = true
    }

    /// The box wrote to its store: the watch's events for that write are already queued (the
    /// kernel queues them inside the write); take them now so they never wake the loop. A
    /// change by another process in the same moment is still seen: the version is compared
    /// when the box is next idle.
    func ownWriteDone() {
        guard watchFD >= 0 else { return }
        if qb_inotify_drain_named(watchFD, storeName) > 0 { checkDue = true }
    }

    /// Whether another connection committed since the world was read. When the version has
    /// not moved, the next look is scheduled (`recheckAt`) while the schedule lasts.
    func hasChanged() -> Bool {
        checkDue = false
        recheckAt = nil
        let now: Int
        do {
            now = try db.dataVersion()
        } catch {
            logger.error("reading the store's version failed", metadata: ["error": "\(error)"])
            return false
        }
        guard now != version else {
            if !rechecksLeft.isEmpty { recheckAt = clock.monotonicNanos() + rechecksLeft.removeFirst() * 1_000_000 }
            return false
        }
        rechecksLeft = []
        return true
    }

    /// The world as the store has it now, with last week's reflection unless it was
    /// dismissed; nil when it cannot be read (logged; the box goes on with what it has).
    func readWorld() -> QuestWorld? {
        do {
            return try load()
        } catch {
            logger.error("re-reading the store failed; the box goes on with what it has", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The world read again to follow a change: the version it was read at is the one the
    /// next check compares with, and the read is counted.
    func reread() -> QuestWorld? {
        // The version before the read: a commit made while reading is seen at the next check.
        let before = try? db.dataVersion()
        guard let world = readWorld() else { return nil }
        version = before
        reads += 1
        return world
    }

    /// The world at start (a failure here stops the box: it has nothing to go on).
    func firstWorld() throws -> QuestWorld { try load() }

    /// REFL-1: whether `now` is in another week than the one whose reflection the box holds.
    func isNewWeek(_ now: Date, calendar: Calendar) -> Bool {
        Self.weekIdentifier(now, calendar: calendar) != reflectionWeek
    }

    /// The store's world with last week's reflection, noting the week it was read in. A
    /// reflection that cannot be computed is one log line; the box goes on without it.
    private func load() throws -> QuestWorld {
        var world = try db.loadWorld(calendar: baseCalendar, bootID: clock.bootID)
        let now = clock.wallNow()
        do {
            world.pendingReflection = try db.pendingReflection(now: now, calendar: world.calendar)
        } catch {
            logger.error("computing last week's reflection failed", metadata: ["error": "\(error)"])
        }
        reflectionWeek = Self.weekIdentifier(now, calendar: world.calendar)
        // What the reads left behind, handed back: SQLite's page caches and the heap the rows
        // passed through. The box then waits holding only what it keeps.
        db.releaseCachedPages()
        qb_release_free_memory()
        return world
    }

    static func weekIdentifier(_ now: Date, calendar: Calendar) -> String? {
        WeeklyReflectionEngine.weekBounds(containing: now, calendar: calendar).map {
            WeeklyReflectionEngine.weekIdentifier(ofWeekStarting: $0.start, calendar: calendar)
        }
    }
}
