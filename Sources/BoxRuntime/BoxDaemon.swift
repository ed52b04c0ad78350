import CEventLoop
import Foundation
import GPIO
import Logging
import QuestCore
import QuestStore
import SystemClock

/// The box's main job: one thread, one `poll` over the button lines, a CLOCK_MONOTONIC
/// timerfd (the machine's timers and the LED/buzzer steps), a CLOCK_REALTIME timerfd
/// (midnight, or the wall clock being set), an eventfd (shutdown from another thread) and
/// optionally a signalfd (SIGTERM/SIGINT). It feeds `QuestMachine` the kernel's edge
/// timestamps and performs its effects. With nothing pending it never wakes up.
public final class BoxDaemon: @unchecked Sendable {
    let board: BoardGPIO
    let db: QuestDatabase
    let clock: SystemClock
    let sound: SoundOutput
    let display: DisplayOutput
    let logger: Logger
    /// Plays the store could not take yet (kept in memory, retried with backoff).
    private var writes = WriteQueue()
    /// The last screen the machine showed, to show again when the save status changes.
    private var lastScreen: Screen?
    /// The midnight the wall-clock timer is armed for.
    private var armedMidnight: Date?
    /// The "not saved" cue waits for the buzzer and LED patterns playing now to end.
    private var cue: (buzzer: Bool, led: Bool) = (false, false)

    /// What every surface shows while a play waits in memory.
    public static let notSavedNotice = "Not saved yet: the box keeps this play and tries again"
    public private(set) var state: QuestState
    private var timers = TimerQueue()
    private var led = PatternPlayer<LEDColor>()
    private var buzzer = PatternPlayer<Bool>()
    private let timerFD: Int32
    private let wallFD: Int32
    private let wakeFD: Int32
    private var signalFD: Int32 = -1
    private var watchdogInterval: MonotonicNanos?
    private var nextWatchdogPing: MonotonicNanos?
    private var wallClockTrusted: Bool
    private let counters = NSLock()
    private var wakeupCount = 0

    /// Loads the world from the store and prepares the loop's descriptors.
    public init(
        board: BoardGPIO, database: QuestDatabase, clock: SystemClock, sound: SoundOutput, display: DisplayOutput,
        calendar: Calendar, rules: GameRules? = nil, logger: Logger
    ) throws {
        self.board = board
        self.db = database
        self.clock = clock
        self.sound = sound
        self.display = display
        self.logger = logger
        var r = rules ?? GameRules.standard
        if rules == nil {
            r.debounceMs = Int64(board.profile.debounceMs)
            r.holdMs = Int64(board.profile.holdMs)
        }
        state = QuestState(world: try database.loadWorld(calendar: calendar, bootID: clock.bootID), rules: r)
        // Rows the box cannot read (an edited restore, a bit flip) are skipped by the store's
        // readers; name them once here, one line each, so the journal says what is missing.
        let unreadable = try database.unreadableRows(limit: 10)
        for line in unreadable.lines { logger.warning("unreadable row skipped", metadata: ["row": "\(line)"]) }
        if unreadable.total > unreadable.lines.count {
            logger.warning("more unreadable rows skipped", metadata: ["count": "\(unreadable.total - unreadable.lines.count)"])
        }
        timerFD = qb_timerfd_create()
        wallFD = qb_wallclock_timerfd_create()
        wakeFD = qb_eventfd_create()
        wallClockTrusted = clock.isWallClockTrusted()
        guard timerFD >= 0, wallFD >= 0, wakeFD >= 0 else {
            throw GPIOFailure("cannot create the event loop's descriptors: \(String(cString: strerror(errno)))")
        }
        if let usec = ProcessInfo.processInfo.environment["WATCHDOG_USEC"].flatMap(Int64.init), usec > 0 {
            watchdogInterval = usec * 1_000 / 2  // ping at half the interval systemd expects
        }
    }

    deinit {
        for fd in [timerFD, wallFD, wakeFD, signalFD] where fd >= 0 { close(fd) }
    }

    /// Times `poll` returned: the measure of wake-ups (0 while idle).
    public var wakeups: Int { counters.withLock { wakeupCount } }

    /// Ends `run` from another thread.
    public func requestShutdown() { qb_eventfd_signal(wakeFD) }

    /// Runs until shutdown (SIGTERM/SIGINT when `handleSignals`, or `requestShutdown`); then
    /// the LED and buzzer are switched off. The caller releases the lines and the database.
    public func run(handleSignals: Bool, onReady: (() -> Void)? = nil) throws {
        if handleSignals {
            signalFD = qb_signalfd_term()
            guard signalFD >= 0 else { throw GPIOFailure("cannot watch SIGTERM/SIGINT: \(String(cString: strerror(errno)))") }
        }
        let prefetched = qb_prefetch_mapped_code()
        logger.debug("code read ahead", metadata: ["files": "\(prefetched)"])
        let rehearsed = QuestRehearsal.run(world: state.world, rules: state.rules, wallClock: clock.wallNow())
        logger.debug("quest rehearsed", metadata: ["effects": "\(rehearsed.count)"])
        startUp()
        armMidnight()
        if qb_sd_notify("READY=1") == 1 { logger.info("notified systemd: ready") }
        onReady?()
        // Loading the world allocated and freed more than the box keeps using: give it back.
        qb_release_free_memory()
        nextWatchdogPing = watchdogInterval.map { clock.monotonicNanos() + $0 }
        loop: while true {
            arm()
            var fds = board.pollDescriptors + [timerFD, wallFD, wakeFD] + (signalFD >= 0 ? [signalFD] : [])
            var ready = [Int32](repeating: 0, count: fds.count)
            let n = qb_poll_readable(&fds, Int32(fds.count), -1, &ready)
            counters.withLock { wakeupCount += 1 }
            guard n >= 0 else { throw GPIOFailure("poll failed: \(String(cString: strerror(errno)))") }
            for (i, fd) in fds.enumerated() where ready[i] != 0 {
                switch fd {
                case wakeFD:
                    qb_eventfd_drain(wakeFD)
                    logger.info("shutdown requested")
                    break loop
                case signalFD:
                    logger.info("shutdown", metadata: ["signal": "\(qb_signalfd_read(signalFD))"])
                    break loop
                case timerFD:
                    qb_timerfd_drain(timerFD)
                case wallFD:
                    let cancelled = qb_wallclock_timerfd_read(wallFD) == 2
                    calendarChanged(reason: cancelled || isLateForMidnight() ? "wall clock set" : "midnight")
                default:
                    readButtonEdges(from: fd)
                }
            }
            runDueWork()
        }
        _ = qb_sd_notify("STOPPING=1")
        if !writes.isEmpty { retryWrites(at: clock.monotonicNanos()) }
        if !writes.isEmpty {
            logger.error("plays not saved at shutdown", metadata: ["requests": "\(writes.pending.count)"])
        }
        do { try board.allOff() } catch { logger.error("switching outputs off failed", metadata: ["error": "\(error)"]) }
    }

    // MARK: work

    private func readButtonEdges(from fd: Int32) {
        do {
            for edge in try board.readButtonEdges(from: fd) {
                logger.debug("edge", metadata: ["button": "\(edge.role)", "pressed": "\(edge.pressed)", "ns": "\(edge.atNanos)"])
                step(.button(edge.role, pressed: edge.pressed, atNanos: edge.atNanos))
            }
        } catch {
            logger.error("reading buttons failed", metadata: ["error": "\(error)"])
        }
    }

    /// Feeds every edge already waiting on the button lines, without blocking.
    private func drainButtonEdges() {
        var fds = board.pollDescriptors
        var ready = [Int32](repeating: 0, count: fds.count)
        guard qb_poll_readable(&fds, Int32(fds.count), 0, &ready) > 0 else { return }
        for (i, fd) in fds.enumerated() where ready[i] != 0 { readButtonEdges(from: fd) }
    }

    private func startUp() {
        let now = clock.wallNow()
        if wallClockTrusted { correctUntrustedTimes() }
        do {
            // Quests a stopped box left open (no task being timed) cannot go on: close them,
            // so no session stays `in_progress` for ever.
            let closed = try db.abandonUnfinishedSessions()
            if closed > 0 { logger.info("closed quests left unfinished", metadata: ["sessions": "\(closed)"]) }
        } catch {
            logger.error("closing unfinished quests failed", metadata: ["error": "\(error)"])
        }
        backupIfDue(now: now)
        let (next, effects) = QuestMachine.start(state, env: environment())
        state = next
        perform(effects)
        do {
            if let (task, done) = try db.inProgress() {
                logger.info("resuming the task in progress", metadata: ["session": "\(task.session.id)", "task": "\(task.taskIndex)"])
                step(.restoreInProgress(task, completedEstimations: done, atNanos: clock.monotonicNanos()))
            }
        } catch {
            logger.error("reading the task in progress failed", metadata: ["error": "\(error)"])
        }
    }

    private func calendarChanged(reason: String) {
        logger.info("calendar check", metadata: ["reason": "\(reason)"])
        let trusted = clock.isWallClockTrusted()
        if trusted && !wallClockTrusted { correctUntrustedTimes() }
        wallClockTrusted = trusted
        backupIfDue(now: clock.wallNow())
        step(.wallClockTick(atNanos: clock.monotonicNanos()))
        armMidnight()
    }

    private func correctUntrustedTimes() {
        do {
            let n = try db.correctUntrustedWallTimes(bootID: clock.bootID, wallNow: clock.wallNow(), monotonicNow: clock.monotonicNanos())
            if n > 0 { logger.info("corrected wall times after clock sync", metadata: ["records": "\(n)"]) }
        } catch {
            logger.error("correcting wall times failed", metadata: ["error": "\(error)"])
        }
    }

    private func backupIfDue(now: Date) {
        do {
            if let b = try db.backupIfDue(now: now, calendar: state.world.calendar) { logger.info("daily backup", metadata: ["file": "\(b.fileName)", "bytes": "\(b.sizeBytes)"]) }
        } catch {
            logger.error("daily backup failed", metadata: ["error": "\(error)"])
        }
    }

    /// Due machine timers, pattern steps and the watchdog, at the current monotonic time.
    private func runDueWork() {
        let now = clock.monotonicNanos()
        while let due = timers.popDue(now: now) { step(.timerFired(due.timer, atNanos: due.atNanos)) }
        if let color = led.advance(to: now) { setLED(color) }
        if let on = buzzer.advance(to: now) { setBuzzer(on) }
        if let at = writes.retryAt, at <= now { retryWrites(at: now) }
        playCueWhenFree()
        if let ping = nextWatchdogPing, ping <= now, let interval = watchdogInterval {
            _ = qb_sd_notify("WATCHDOG=1")
            nextWatchdogPing = now + interval
        }
    }

    /// The monotonic timerfd at the earliest pending deadline (disarmed when there is none).
    private func arm() {
        let deadlines = [timers.next?.atNanos, led.nextChangeAt, buzzer.nextChangeAt, nextWatchdogPing, writes.retryAt].compactMap { $0 }
        _ = qb_timerfd_arm(timerFD, deadlines.min() ?? -1)
    }

    /// The wall-clock timerfd at the next local midnight (it also fires early if the wall
    /// clock is set). Armed at start and each time it fires, not on every wake-up.
    private func armMidnight() {
        let cal = state.world.calendar
        let now = clock.wallNow()
        let midnight = cal.date(byAdding: .day, value: 1, to: cal.startOfDay(for: now)).map(cal.startOfDay(for:)) ?? now.addingTimeInterval(86_400)
        armedMidnight = midnight
        _ = qb_wallclock_timerfd_arm(wallFD, midnight.timeIntervalSince1970)
    }

    /// A midnight timer read long after its midnight: the clock was set between computing the
    /// midnight and arming it (the kernel then reports an expiry, not a cancel), as NTP does
    /// while a busy box handles the previous midnight.
    private func isLateForMidnight() -> Bool {
        guard let armedMidnight else { return false }
        return clock.wallNow().timeIntervalSince(armedMidnight) > 60
    }

    private func environment() -> QuestEnvironment {
        QuestEnvironment(now: clock.wallNow(), newID: UUID(), wallClockTrusted: clock.isWallClockTrusted())
    }

    func step(_ event: QuestEvent) {
        let (next, effects) = QuestMachine.step(state, event, env: environment())
        state = next
        perform(effects)
        // A debounce window closed: the line's real level settles what its edges left open.
        for case .readButton(let role) in effects {
            // Edges that arrived since the last poll come first: the read is newer than them.
            drainButtonEdges()
            do {
                let level = try board.isPressed(role)
                let readAt = clock.monotonicNanos()
                logger.debug("level", metadata: ["button": "\(role)", "pressed": "\(level)", "ns": "\(readAt)"])
                step(.buttonLevel(role, pressed: level, atNanos: readAt))
            } catch {
                logger.error("reading a button failed", metadata: ["button": "\(role)", "error": "\(error)"])
            }
        }
    }

    private func perform(_ effects: [QuestEffect]) {
        timers.apply(effects)
        // What the player hears and sees goes first: a database write (an SD card's fsync
        // can take tens of milliseconds) must not delay the reveal. Each pattern is timed
        // from the moment its first value is set. The write follows at once, before the
        // next event is read.
        for effect in effects {
            switch effect {
            case .playSound(let s):
                sound.play(s)
            case .led(let pattern):
                if let color = led.start(pattern.sequence, repeats: pattern.repeats, at: clock.monotonicNanos()) { setLED(color) }
            case .buzzer(let pattern):
                if let on = buzzer.start(pattern.sequence, repeats: false, at: clock.monotonicNanos()) { setBuzzer(on) }
            case .persist, .display, .scheduleTimer, .cancelTimer, .readButton:
                break
            }
        }
        for effect in effects {
            switch effect {
            case .persist(let request):
                save(request)
            case .display(let screen):
                lastScreen = screen
                display.show(screen, notice: writes.isEmpty ? nil : Self.notSavedNotice)
            case .playSound, .led, .buzzer, .scheduleTimer, .cancelTimer, .readButton:
                break
            }
        }
        playCueWhenFree()
    }

    // MARK: saving

    /// Writes a play, or keeps it in memory when the store fails (a full or read-only card):
    /// the player sees the result with a "not saved" cue, and the write is retried.
    private func save(_ request: PersistRequest) {
        let trusted = clock.isWallClockTrusted()
        guard writes.isEmpty else { return writes.enqueue(request, wallClockTrusted: trusted) }  // keep the order
        if let error = write(request, wallClockTrusted: trusted) {
            writes.failed(request, wallClockTrusted: trusted, at: clock.monotonicNanos())
            logger.error("saving failed; the play is kept in memory and retried", metadata: [
                "request": "\(request.kind)", "retry_s": "\(WriteQueue.backoffSeconds[0])", "error": "\(error)",
            ])
            cue = (true, true)
            if let screen = lastScreen { display.show(screen, notice: Self.notSavedNotice) }
        }
    }

    /// Writes what waits, in order, until the store fails again or all is saved.
    private func retryWrites(at now: MonotonicNanos) {
        var written = 0
        for entry in writes.pending {
            if let error = write(entry.request, wallClockTrusted: entry.wallClockTrusted) {
                writes.written(written)
                writes.failed(at: now)
                logger.warning("saving still fails; the plays stay in memory", metadata: [
                    "requests": "\(writes.pending.count)", "retry_s": "\(((writes.retryAt ?? now) - now) / 1_000_000_000)", "error": "\(error)",
                ])
                return
            }
            written += 1
        }
        writes.written(written)
        logger.notice("saved the plays kept in memory", metadata: ["requests": "\(written)"])
        if let screen = lastScreen { display.show(screen, notice: nil) }
    }

    /// One write; the error when it should be tried again (the disk: full, read-only, busy).
    /// A request the store refuses for good would block every later play, so it is logged
    /// and dropped (nil).
    private func write(_ request: PersistRequest, wallClockTrusted: Bool) -> Error? {
        do {
            try db.apply(request, wallClockTrusted: wallClockTrusted)
        } catch where QuestDatabase.isRefusal(error) {
            logger.error("the store refused a request; it is dropped", metadata: ["request": "\(request.kind)", "error": "\(error)"])
        } catch {
            return error
        }
        return nil
    }

    /// The "not saved" cue: a long buzz and three red blinks, each after the pattern playing
    /// now (the reveal keeps its colours). A repeating LED pattern (the calm heartbeat of a
    /// running task) is left alone; the buzz and the screen tell it.
    private func playCueWhenFree() {
        let now = clock.monotonicNanos()
        if cue.buzzer && buzzer.nextChangeAt == nil {
            cue.buzzer = false
            if let on = buzzer.start([(false, 80), (true, 500), (false, 0)], repeats: false, at: now) { setBuzzer(on) }
        }
        if cue.led {
            if led.repeats {
                cue.led = false
            } else if led.nextChangeAt == nil {
                cue.led = false
                let rest = led.current ?? .off
                let blinks: [(value: LEDColor, durationMs: Int)] = [(.red, 150), (.off, 150), (.red, 150), (.off, 150), (.red, 150), (.off, 150), (rest, 0)]
                if let color = led.start(blinks, repeats: false, at: now) { setLED(color) }
            }
        }
    }

    private func setLED(_ color: LEDColor) {
        do { try board.setLED(color) } catch { logger.error("LED failed", metadata: ["error": "\(error)"]) }
    }

    private func setBuzzer(_ on: Bool) {
        do { try board.setBuzzer(on) } catch { logger.error("buzzer failed", metadata: ["error": "\(error)"]) }
    }
}
