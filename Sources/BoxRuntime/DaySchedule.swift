import CEventLoop
import Foundation
import GPIO
import Logging
import QuestCore
import QuestStore
import SystemClock

/// The day's schedule on the wall clock: a CLOCK_REALTIME timerfd armed for the next local
/// midnight or, when sooner, the next reminder (REM-1), which also fires when the wall clock
/// is set, so a jump or a DST change is met by computing the times again; the daily backup;
/// and stored wall times corrected once the clock is trusted (NTP synced after boot).
final class DaySchedule {
    let timerFD: Int32
    private let db: QuestDatabase
    private let clock: SystemClock
    private let logger: Logger
    /// Called after each write to the store (the store follower takes its own events).
    private let afterWrite: () -> Void
    /// The wall time the timer is armed for, and whether for a reminder (before midnight).
    private(set) var armed: (at: Date, reminder: Bool)?
    private(set) var wallClockTrusted: Bool
    /// BACK-1: copies of the backups to USB sticks (nil: none).
    var offCard: OffCardCopier?
    private let background = BackgroundBackup()

    init(database: QuestDatabase, clock: SystemClock, logger: Logger, afterWrite: @escaping () -> Void) throws {
        db = database
        self.clock = clock
        self.logger = logger
        self.afterWrite = afterWrite
        wallClockTrusted = clock.isWallClockTrusted()
        timerFD = qb_wallclock_timerfd_create()
        guard timerFD >= 0 else { throw GPIOFailure("cannot create the wall-clock timer: \(String(cString: strerror(errno)))") }
    }

    deinit { close(timerFD) }

    /// The next wall time the box must act at: the next local midnight, or the next reminder
    /// when it comes sooner.
    static func nextWake(routines: [Routine], settings: GameSettings, now: Date, calendar cal: Calendar) -> (at: Date, reminder: Bool) {
        let midnight = cal.date(byAdding: .day, value: 1, to: cal.startOfDay(for: now)).map(cal.startOfDay(for:)) ?? now.addingTimeInterval(86_400)
        if let reminder = ReminderSchedule.nextTime(routines: routines, settings: settings, now: now, calendar: cal), reminder < midnight {
            return (reminder, true)
        }
        return (midnight, false)
    }

    /// Arms the timer from the world the box holds: at start, each time it fires and after
    /// the store is re-read (reminder times may have changed), not on every wake-up.
    func arm(for world: QuestWorld) {
        let wake = Self.nextWake(routines: world.routines, settings: world.settings, now: clock.wallNow(), calendar: world.calendar)
        armed = wake
        _ = qb_wallclock_timerfd_arm(timerFD, wake.at.timeIntervalSince1970)
    }

    /// The timer woke the loop: why ("wall clock set", "reminder" or "midnight").
    func fired() -> String {
        let cancelled = qb_wallclock_timerfd_read(timerFD) == 2
        return Self.reason(cancelled: cancelled, armed: armed, now: clock.wallNow())
    }

    /// A timer read long after its time means the clock was set between computing the time
    /// and arming it (the kernel then reports an expiry, not a cancel), as NTP does while a
    /// busy box handles the previous midnight.
    static func reason(cancelled: Bool, armed: (at: Date, reminder: Bool)?, now: Date) -> String {
        let late = armed.map { now.timeIntervalSince($0.at) > 60 } ?? false
        if cancelled || late { return "wall clock set" }
        return armed?.reminder == true ? "reminder" : "midnight"
    }

    /// The clock is looked at again: true when it became trusted and stored times moved (what
    /// the box holds — play days, the streak — must then be read again).
    func clockChecked() -> Bool {
        let trusted = clock.isWallClockTrusted()
        defer { wallClockTrusted = trusted }
        return trusted && !wallClockTrusted && correctUntrustedTimes()
    }

    /// Whether any stored wall time was corrected.
    func correctUntrustedTimes() -> Bool {
        defer { afterWrite() }
        do {
            let n = try db.plays.correctUntrustedWallTimes(bootID: clock.bootID, wallNow: clock.wallNow(), monotonicNow: clock.monotonicNanos())
            if n > 0 { logger.info("corrected wall times after clock sync", metadata: ["records": "\(n)"]) }
            return n > 0
        } catch {
            logger.error("correcting wall times failed", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// The daily backup, when none was made today.
    func backupIfDue(calendar: Calendar) {
        defer { afterWrite() }
        Self.makeDailyBackup(database: db, clock: clock, calendar: calendar, logger: logger)
    }

    /// The start's daily backup, its file written off the loop once the box is ready (#49:
    /// start to ready). With no eventfd for it, the loop makes it as before.
    func backupOnceReady(calendar: Calendar) {
        guard background.doneFD >= 0 else {
            backupIfDue(calendar: calendar)
            offCard?.check()
            return
        }
        background.start(database: db, clock: clock, calendar: calendar, logger: logger)
    }

    /// Woken when the file is written (nil: no descriptor for it).
    var backupDoneFD: Int32? { background.doneFD >= 0 ? background.doneFD : nil }

    /// The file written off the loop goes into the store's log, on the loop; the sticks are
    /// looked at (at every start, as before the backup moved off the loop).
    func backupFileWritten() {
        qb_eventfd_drain(background.doneFD)
        logWrittenBackup()
        offCard?.check()
    }

    /// Whether the start's backup is being written or waits to be logged (any thread).
    var isBackingUp: Bool { background.isBusy }

    /// A backup being written finishes, and is logged, before the store is closed (shutdown).
    func waitForBackground() {
        background.waitUntilDone()
        logWrittenBackup()
    }

    private func logWrittenBackup() {
        background.recordMade { made in
            defer { afterWrite() }
            do {
                try db.backups.log(made)
                logger.info("daily backup", metadata: ["file": "\(made.fileName)", "bytes": "\(made.sizeBytes)"])
            } catch {
                logger.error("daily backup failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Makes the day's backup when none was made today (a failure is one log line); whether
    /// one was made.
    @discardableResult
    static func makeDailyBackup(database: QuestDatabase, clock: SystemClock, calendar: Calendar, logger: Logger) -> Bool {
        do {
            guard let b = try database.backups.makeIfDue(now: clock.wallNow(), calendar: calendar) else { return false }
            logger.info("daily backup", metadata: ["file": "\(b.fileName)", "bytes": "\(b.sizeBytes)"])
            return true
        } catch {
            logger.error("daily backup failed", metadata: ["error": "\(error)"])
            return false
        }
    }
}
