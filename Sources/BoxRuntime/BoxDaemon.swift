import BoxProtocol
import CEventLoop
import Foundation
import GPIO
import Logging
import QuestCore
import QuestStore
import SystemClock

/// The box's main job: one thread, one `poll` over the button lines, a CLOCK_MONOTONIC
/// timerfd (the machine's timers and the LED/buzzer steps), a CLOCK_REALTIME timerfd
/// (midnight, or the wall clock being set), an eventfd (shutdown from another thread),
/// optionally a signalfd (SIGTERM/SIGINT), an inotify watch on the data directory (another
/// process changed the store) and the local socket with its clients. It feeds
/// `QuestMachine` the kernel's edge timestamps and performs its effects. With nothing
/// pending it never wakes up.
public final class BoxDaemon: @unchecked Sendable {
    /// The local socket (`questbox watch`, the web app) and what the box says about itself.
    public struct ControlOptions: Sendable {
        public var socketPath: String
        public var maximumClients: Int
        /// Whether `press` may push buttons (simulated boards).
        public var allowPress: Bool
        /// The ALSA PCM in use (nil: silent), asked for each `box` status.
        public var soundDevice: @Sendable () -> String?
        /// Output a client may leave unread (beyond the kernel's buffer) before it is dropped.
        public var maximumQueuedBytes = 256 * 1024
        /// Places beyond `maximumClients` for the box's own user and root (the web app).
        public var reservedClients = 4
        /// A client that has not subscribed is closed after this long without a request.
        public var idleSeconds: Double = 10

        public init(socketPath: String, maximumClients: Int = 4, allowPress: Bool, soundDevice: @escaping @Sendable () -> String? = { nil }) {
            self.socketPath = socketPath
            self.maximumClients = maximumClients
            self.allowPress = allowPress
            self.soundDevice = soundDevice
        }
    }

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
    /// The wall time the wall-clock timer is armed for (midnight or a reminder).
    private var armedWallTime: Date?
    /// Whether the wall-clock timer is armed for a reminder (before midnight) rather than midnight.
    private var armedForReminder = false
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
    /// The calendar before the stored first weekday is applied (each reload applies it anew).
    private let baseCalendar: Calendar
    private let control: ControlOptions?
    private var server: ControlServer?
    /// Watches the data directory: a write by another process wakes the loop to compare
    /// `PRAGMA data_version` (the box's own writes leave it unchanged).
    private var storeWatchFD: Int32 = -1
    private var storeVersion: Int?
    /// The data directory changed: compare the version when the box is next idle. During a
    /// quest nothing is read (a change would wait for the quest's end anyway), so following
    /// the store costs the quest nothing.
    private var storeCheckDue = false
    /// SQLite appends to the WAL (the inotify event) before it publishes the commit in shared
    /// memory (no event): when the version has not moved yet, look again (`StoreRecheckSchedule`).
    private var storeRecheckAt: MonotonicNanos?
    private var storeRechecksLeft: [Int64] = []
    /// Re-reads of the store, for the `box` status (1: the load at start).
    private var dataVersion = 1
    /// A change arrived during a quest: it applies when the box is idle again.
    private var pendingReload = false
    /// The week whose previous week's reflection the world holds (REFL-1).
    private var reflectionWeek: String?
    /// Buttons held down over the socket (`press` down … up): their level reads as pressed.
    private var socketHeld: Set<ButtonRole> = []
    /// Socket clients holding a button check; it ends when the last lets go or leaves.
    private var buttonCheckHolders: Set<Int32> = []
    /// The client that asked for the PIN claim the box shows (PAR-2); its leaving ends it.
    private var claimHolder: (client: Int32, id: String)?
    /// The machine's last LED pattern, shown again after a wiring check.
    private var machineLED: LEDPattern = .off
    private var ledUnderTest = false
    private let counters = NSLock()
    private var wakeupCount = 0

    /// Loads the world from the store and prepares the loop's descriptors.
    public init(
        board: BoardGPIO, database: QuestDatabase, clock: SystemClock, sound: SoundOutput, display: DisplayOutput,
        calendar: Calendar, rules: GameRules? = nil, control: ControlOptions? = nil, logger: Logger
    ) throws {
        self.board = board
        self.baseCalendar = calendar
        self.control = control
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
        let (world, week) = try Self.readWorld(database, calendar: calendar, clock: clock, logger: logger)
        reflectionWeek = week
        state = QuestState(world: world, rules: r)
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
        if let control {
            server = try ControlServer(
                path: control.socketPath, maximumClients: control.maximumClients, reservedClients: control.reservedClients,
                idleSeconds: control.idleSeconds, maximumQueuedBytes: control.maximumQueuedBytes, logger: logger)
        }
        let directory = (database.path as NSString).deletingLastPathComponent
        storeWatchFD = qb_inotify_directory(directory.isEmpty ? "." : directory)
        if storeWatchFD < 0 {
            logger.warning("cannot watch the data directory; changes by other programs apply on `reload`", metadata: [
                "directory": "\(directory)", "error": "\(String(cString: strerror(-storeWatchFD)))",
            ])
        }
        storeVersion = try? database.dataVersion()
    }

    deinit {
        for fd in [timerFD, wallFD, wakeFD, signalFD, storeWatchFD] where fd >= 0 { close(fd) }
    }

    /// Times `poll` returned: the measure of wake-ups (0 while idle).
    public var wakeups: Int { counters.withLock { wakeupCount } }

    /// Ends `run` from another thread.
    public func requestShutdown() { qb_eventfd_signal(wakeFD) }

    /// Runs until shutdown (SIGTERM/SIGINT when `handleSignals`, or `requestShutdown`); then
    /// the LED and buzzer are switched off. The caller releases the lines and the database.
    ///
    /// `loopPriority` above 0 puts this thread on SCHED_FIFO once start-up is done, below the
    /// audio thread (10): a busy Pi (a kiosk browser, the web app) then cannot hold a press
    /// off its LED. Where that is not permitted the loop runs at normal priority and says so.
    public func run(handleSignals: Bool, loopPriority: Int32 = 0, onReady: (() -> Void)? = nil) throws {
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
        if loopPriority > 0 {
            let error = qb_loop_realtime(loopPriority)
            if error == 0 {
                logger.info("event loop runs SCHED_FIFO", metadata: ["priority": "\(loopPriority)"])
            } else {
                logger.warning("event loop runs at normal priority", metadata: [
                    "asked": "SCHED_FIFO \(loopPriority)", "error": "\(String(cString: strerror(error)))",
                ])
            }
        }
        nextWatchdogPing = watchdogInterval.map { clock.monotonicNanos() + $0 }
        loop: while true {
            arm()
            var fds = board.pollDescriptors + [timerFD, wallFD, wakeFD] + (signalFD >= 0 ? [signalFD] : []) + (storeWatchFD >= 0 ? [storeWatchFD] : [])
            var wantWrite = [Int32](repeating: 0, count: fds.count)
            for entry in server?.pollEntries ?? [] {
                fds.append(entry.fd)
                wantWrite.append(entry.wantWrite ? 1 : 0)
            }
            var ready = [Int32](repeating: 0, count: fds.count)
            let n = qb_poll(&fds, &wantWrite, Int32(fds.count), -1, &ready)
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
                    calendarChanged(reason: cancelled || isLateForArmedTime() ? "wall clock set" : armedForReminder ? "reminder" : "midnight")
                case storeWatchFD:
                    _ = qb_inotify_drain(storeWatchFD)
                    storeRechecksLeft = StoreRecheckSchedule.gapsMs
                    storeCheckDue = true
                case let fd where server?.owns(fd) == true:
                    server?.service(fd, ready: ready[i], hello: { .hello(status()) }, handle: handle)
                default:
                    readButtonEdges(from: fd)
                }
            }
            if let server, let due = server.idleDeadline, due <= ControlServer.monotonicNow() { server.closeIdle() }
            if let departed = server?.takeDeparted(), !departed.isEmpty {
                releaseButtonCheck(of: departed)
                if let holder = claimHolder, departed.contains(holder.client) {
                    step(.claim(.cancel(id: holder.id), atNanos: clock.monotonicNanos()))
                }
            }
            if case .idle = state.phase {
                if storeCheckDue {
                    storeCheckDue = false
                    followStore()
                }
                if pendingReload { reload(reason: "after the quest") }
            }
            runDueWork()
        }
        _ = qb_sd_notify("STOPPING=1")
        if !writes.isEmpty { retryWrites(at: clock.monotonicNanos()) }
        if !writes.isEmpty {
            logger.error("plays not saved at shutdown", metadata: ["requests": "\(writes.pending.count)"])
        }
        do { try board.allOff() } catch { logger.error("switching outputs off failed", metadata: ["error": "\(error)"]) }
        server = nil  // closes the clients and removes the socket file
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
        // The world was loaded before the times moved: take it again before the first screen.
        if wallClockTrusted && correctUntrustedTimes(), let world = loadWorld() { state.world = world }
        do {
            // Quests a stopped box left open (no task being timed) cannot go on: close them,
            // so no session stays `in_progress` for ever.
            defer { ownWriteDone() }
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
        // What the box holds (play days, the streak) must follow the corrected times.
        if trusted && !wallClockTrusted && correctUntrustedTimes() { reload(reason: "wall times corrected") }
        wallClockTrusted = trusted
        backupIfDue(now: clock.wallNow())
        // REFL-1: a new week brings last week's reflection (read now, while idle, not at the
        // player's first press). During a quest the re-read waits for its end, as any reload.
        if Self.weekIdentifier(clock.wallNow(), calendar: state.world.calendar) != reflectionWeek {
            reload(reason: "new week")
        }
        step(.wallClockTick(atNanos: clock.monotonicNanos()))
        armMidnight()
    }

    /// Whether any stored wall time was corrected.
    private func correctUntrustedTimes() -> Bool {
        defer { ownWriteDone() }
        do {
            let n = try db.correctUntrustedWallTimes(bootID: clock.bootID, wallNow: clock.wallNow(), monotonicNow: clock.monotonicNanos())
            if n > 0 { logger.info("corrected wall times after clock sync", metadata: ["records": "\(n)"]) }
            return n > 0
        } catch {
            logger.error("correcting wall times failed", metadata: ["error": "\(error)"])
            return false
        }
    }

    private func backupIfDue(now: Date) {
        defer { ownWriteDone() }
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
        if ledUnderTest && led.nextChangeAt == nil {
            // The wiring check is over: the machine's pattern again.
            ledUnderTest = false
            if let color = led.start(machineLED.sequence, repeats: machineLED.repeats, at: now) { setLED(color) }
        }
        if let on = buzzer.advance(to: now) { setBuzzer(on) }
        if let at = writes.retryAt, at <= now { retryWrites(at: now) }
        if let at = storeRecheckAt, at <= now { followStore() }
        playCueWhenFree()
        if let ping = nextWatchdogPing, ping <= now, let interval = watchdogInterval {
            _ = qb_sd_notify("WATCHDOG=1")
            nextWatchdogPing = now + interval
        }
    }

    /// The monotonic timerfd at the earliest pending deadline (disarmed when there is none).
    private func arm() {
        let idleClient = server?.idleDeadline.map { MonotonicNanos(clamping: $0) }
        let deadlines = [timers.next?.atNanos, led.nextChangeAt, buzzer.nextChangeAt, nextWatchdogPing, writes.retryAt, storeRecheckAt, idleClient].compactMap { $0 }
        _ = qb_timerfd_arm(timerFD, deadlines.min() ?? -1)
    }

    /// The wall-clock timerfd at the next local midnight or, when sooner, the next reminder
    /// time (REM-1); it also fires early if the wall clock is set, so a jump or a DST change
    /// is met by computing the times again. Armed at start, each time it fires and after the
    /// store is re-read, not on every wake-up.
    private func armMidnight() {
        let world = state.world
        let cal = world.calendar
        let now = clock.wallNow()
        let midnight = cal.date(byAdding: .day, value: 1, to: cal.startOfDay(for: now)).map(cal.startOfDay(for:)) ?? now.addingTimeInterval(86_400)
        let reminder = ReminderSchedule.nextTime(routines: world.routines, settings: world.settings, now: now, calendar: cal)
        armedForReminder = reminder.map { $0 < midnight } ?? false
        let at = armedForReminder ? reminder ?? midnight : midnight
        armedWallTime = at
        _ = qb_wallclock_timerfd_arm(wallFD, at.timeIntervalSince1970)
    }

    /// The wall-clock timer read long after its time: the clock was set between computing the
    /// time and arming it (the kernel then reports an expiry, not a cancel), as NTP does
    /// while a busy box handles the previous midnight.
    private func isLateForArmedTime() -> Bool {
        guard let armedWallTime else { return false }
        return clock.wallNow().timeIntervalSince(armedWallTime) > 60
    }

    private func environment() -> QuestEnvironment {
        QuestEnvironment(now: clock.wallNow(), newID: nextID, wallClockTrusted: clock.isWallClockTrusted())
    }

    /// The id the next step may give a play, drawn at the end of `perform`, after the lines
    /// were set: getrandom(2) is a system call, not to be made between an edge and its LED.
    private var nextID = BoxDaemon.randomID()

    /// A version 4 UUID from getrandom(2). Foundation's `UUID()` opens, reads and closes
    /// /dev/urandom: three system calls on every button edge, before its LED is set.
    static func randomID() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var bytes = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            raw[6] = raw[6] & 0x0F | 0x40                      // version 4
            raw[8] = raw[8] & 0x3F | 0x80                      // RFC 4122 variant
            return UUID(uuid: (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
                               raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]))
        }
    }

    func step(_ event: QuestEvent) {
        let watched = server?.hasSubscribers == true
        let pressedBefore = watched ? ButtonRole.allCases.map { state.debouncer.isPressed($0) } : []
        let checkingBefore = state.buttonCheck
        let (next, effects) = QuestMachine.step(state, event, env: environment())
        state = next
        if state.buttonCheck != checkingBefore {
            // Ended by its time limit or a quest: nobody holds it any more.
            if !state.buttonCheck { buttonCheckHolders.removeAll() }
            logger.info("button check", metadata: ["on": "\(state.buttonCheck)"])
            server?.broadcast(.event("box") { $0.box = status() })
        }
        if watched, let server {
            for (i, role) in ButtonRole.allCases.enumerated() where state.debouncer.isPressed(role) != pressedBefore[i] {
                let pressed = state.debouncer.isPressed(role)
                server.broadcast(.event("press") { $0.button = role.rawValue; $0.pressed = pressed })
            }
        }
        perform(effects)
        // After the LED, buzzer and sound: a dark screen lights at any press.
        if case .button(_, pressed: true, _) = event { display.wake() }
        // A debounce window closed: the line's real level settles what its edges left open.
        for case .readButton(let role) in effects {
            // Edges that arrived since the last poll come first: the read is newer than them.
            drainButtonEdges()
            do {
                let level = try board.isPressed(role) || socketHeld.contains(role)
                let readAt = clock.monotonicNanos()
                logger.debug("level", metadata: ["button": "\(role)", "pressed": "\(level)", "ns": "\(readAt)"])
                step(.buttonLevel(role, pressed: level, atNanos: readAt))
            } catch {
                logger.error("reading a button failed", metadata: ["button": "\(role)", "error": "\(error)"])
            }
        }
    }

    private func perform(_ effects: [QuestEffect]) {
        // What the player hears and sees goes first: a database write (an SD card's fsync
        // can take tens of milliseconds) must not delay the reveal. Each pattern is timed
        // from the moment its first value is set. The write follows at once, before the
        // next event is read. The lines are set before anything else: the timers' system
        // calls and the sound come after them (waking the real-time audio thread can take
        // this thread's CPU for its mixing), and a line set is one ioctl.
        for effect in effects {
            switch effect {
            case .led(let pattern):
                machineLED = pattern
                ledUnderTest = false
                if let color = led.start(pattern.sequence, repeats: pattern.repeats, at: clock.monotonicNanos()) { setLED(color) }
            case .buzzer(let pattern):
                if let on = buzzer.start(pattern.sequence, repeats: false, at: clock.monotonicNanos()) { setBuzzer(on) }
            case .playSound, .persist, .display, .scheduleTimer, .cancelTimer, .readButton, .claimChanged:
                break
            }
        }
        timers.apply(effects)
        for case .playSound(let s) in effects { sound.play(s) }
        for effect in effects {
            switch effect {
            case .persist(let request):
                if case .reminderSounded(_, let name, _) = request { logger.info("reminder sounded", metadata: ["routine": "\(name)"]) }
                save(request)
            case .display(let screen):
                lastScreen = screen
                display.show(screen, notice: notice)
            case .claimChanged(let update):
                claimMoved(update)
            case .playSound, .led, .buzzer, .scheduleTimer, .cancelTimer, .readButton:
                break
            }
            // Subscribers hear of it after the player did.
            if let server, server.hasSubscribers {
                for event in BoxMessage.events(for: effect, notice: notice) { server.broadcast(event) }
            }
        }
        playCueWhenFree()
        nextID = Self.randomID()
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
            showAgain()
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
        showAgain()
    }

    /// One write; the error when it should be tried again (the disk: full, read-only, busy).
    /// A request the store refuses for good would block every later play, so it is logged
    /// and dropped (nil).
    private func write(_ request: PersistRequest, wallClockTrusted: Bool) -> Error? {
        defer { ownWriteDone() }
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

    /// The line under every screen while plays wait in memory.
    private var notice: String? { writes.isEmpty ? nil : Self.notSavedNotice }

    /// The last screen again, with or without the "not saved" notice, on every surface.
    private func showAgain() {
        guard let screen = lastScreen else { return }
        display.show(screen, notice: notice)
        server?.broadcast(.event("screen") { $0.screen = ScreenPayload(screen); $0.notice = notice })
        server?.broadcast(.event("box") { $0.box = status() })
    }

    private func setLED(_ color: LEDColor) {
        do { try board.setLED(color) } catch { logger.error("LED failed", metadata: ["error": "\(error)"]) }
    }

    private func setBuzzer(_ on: Bool) {
        do { try board.setBuzzer(on) } catch { logger.error("buzzer failed", metadata: ["error": "\(error)"]) }
    }

    // MARK: following the store

    /// The box wrote to its store: the watch's events for that write are already queued (the
    /// kernel queues them inside the write); take them now so they never wake the loop. A
    /// change by another process in the same moment is still seen: the version is compared
    /// when the box is next idle.
    private func ownWriteDone() {
        guard storeWatchFD >= 0 else { return }
        if qb_inotify_drain(storeWatchFD) > 0 { storeCheckDue = true }
    }

    /// Something wrote to the data directory: re-read the store if another connection
    /// committed (the box's own writes leave the version as it is).
    private func followStore() {
        storeRecheckAt = nil
        let version: Int
        do {
            version = try db.dataVersion()
        } catch {
            return logger.error("reading the store's version failed", metadata: ["error": "\(error)"])
        }
        guard version != storeVersion else {
            if !storeRechecksLeft.isEmpty { storeRecheckAt = clock.monotonicNanos() + storeRechecksLeft.removeFirst() * 1_000_000 }
            return
        }
        storeRechecksLeft = []
        reload(reason: "store changed")
    }

    /// Re-reads routines, settings and the profile. Sound settings apply at once; the game's
    /// world only while idle, so a change never disturbs a quest (it waits for the next).
    /// Returns when the world applies: "now" or "after-quest".
    @discardableResult
    private func reload(reason: String) -> String {
        let settings: StoredSettings
        do {
            settings = try db.settings()
        } catch {
            logger.error("re-reading settings failed", metadata: ["error": "\(error)"])
            return "now"
        }
        sound.apply(soundEnabled: settings.soundEnabled, volumePercent: settings.volumePercent)
        switch state.phase {
        case .idle, .summary, .reflection:
            break
        case .estimating, .active, .revealing:
            if !pendingReload { logger.info("store changed during a quest; applies after it", metadata: ["reason": "\(reason)"]) }
            pendingReload = true
            return "after-quest"
        }
        pendingReload = false
        // The version before the read: a commit made while reading is seen at the next check.
        let version = try? db.dataVersion()
        guard let world = loadWorld() else { return "now" }
        storeVersion = version
        dataVersion += 1
        step(.worldUpdated(world, atNanos: clock.monotonicNanos()))
        armMidnight()  // reminder times may have changed
        logger.info("store re-read", metadata: [
            "reason": "\(reason)", "routines": "\(world.routines.count)", "xp": "\(world.profile.totalXP)", "version": "\(dataVersion)",
        ])
        server?.broadcast(.event("box") { $0.box = status() })
        return "now"
    }

    /// The world as the store has it now, with last week's reflection unless it was dismissed,
    /// or nil when it cannot be read (logged; the box goes on with what it has).
    private func loadWorld() -> QuestWorld? {
        do {
            let (world, week) = try Self.readWorld(db, calendar: baseCalendar, clock: clock, logger: logger)
            reflectionWeek = week
            return world
        } catch {
            logger.error("re-reading the store failed; the box goes on with what it has", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The store's world with last week's reflection, and the week it was read in. A
    /// reflection that cannot be computed is one log line; the box goes on without it.
    private static func readWorld(
        _ db: QuestDatabase, calendar: Calendar, clock: SystemClock, logger: Logger
    ) throws -> (world: QuestWorld, week: String?) {
        var world = try db.loadWorld(calendar: calendar, bootID: clock.bootID)
        let now = clock.wallNow()
        do {
            world.pendingReflection = try db.pendingReflection(now: now, calendar: world.calendar)
        } catch {
            logger.error("computing last week's reflection failed", metadata: ["error": "\(error)"])
        }
        return (world, weekIdentifier(now, calendar: world.calendar))
    }

    private static func weekIdentifier(_ now: Date, calendar: Calendar) -> String? {
        WeeklyReflectionEngine.weekBounds(containing: now, calendar: calendar).map {
            WeeklyReflectionEngine.weekIdentifier(ofWeekStarting: $0.start, calendar: calendar)
        }
    }

    // MARK: the socket

    private func status() -> BoxStatus {
        BoxStatus(
            board: board.profile.name, soundDevice: control?.soundDevice(), clockTrusted: wallClockTrusted, dataVersion: dataVersion,
            unsavedPlays: writes.pending.count, phase: state.phase.name, buttonCheck: state.buttonCheck)
    }

    private func handle(_ request: BoxRequest, from client: Int32) -> BoxMessage {
        switch request.command {
        case "subscribe", "state":
            var reply = BoxMessage.reply(to: request)
            reply.screen = lastScreen.map(ScreenPayload.init)
            reply.notice = notice
            reply.box = status()
            return reply
        case "reload":
            var reply = BoxMessage.reply(to: request)
            reply.applied = reload(reason: "requested")
            reply.box = status()
            return reply
        case "test-output":
            return testOutput(request)
        case "press":
            return press(request)
        case "button-check":
            return buttonCheck(request, from: client)
        case "claim":
            return claim(request, from: client)
        default:
            return .reply(to: request, error: "command: unknown")
        }
    }

    /// A wiring check: an LED colour for 2 s, a buzzer pattern, a sound. Never during a quest.
    private func testOutput(_ request: BoxRequest) -> BoxMessage {
        guard case .idle = state.phase else {
            return .reply(to: request, error: "test-output: a quest is running (\(state.phase.name)); wiring checks wait until it ends")
        }
        let color = request.led.map { LEDColor(rawValue: $0) }
        let pattern = request.buzzer.map { name in BuzzerPattern.testable.first { $0.name == name } }
        let soundID = request.sound.map { SoundID(rawValue: $0) }
        if case .some(nil) = color {
            return .reply(to: request, error: "led: \"\(DisplayText.escaped(request.led ?? ""))\" is not a colour (\(LEDColor.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        if case .some(nil) = pattern {
            return .reply(to: request, error: "buzzer: \"\(DisplayText.escaped(request.buzzer ?? ""))\" is not a pattern (\(BuzzerPattern.testable.map(\.name).joined(separator: ", ")))")
        }
        if case .some(nil) = soundID {
            return .reply(to: request, error: "sound: \"\(DisplayText.escaped(request.sound ?? ""))\" is not a sound (\(SoundID.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        guard color != nil || pattern != nil || soundID != nil else {
            return .reply(to: request, error: "test-output: name an led, a buzzer pattern or a sound")
        }
        let now = clock.monotonicNanos()
        if let c = color ?? nil {
            ledUnderTest = true
            if let first = led.start([(c, 2_000), (.off, 0)], repeats: false, at: now) { setLED(first) }
            server?.broadcast(.event("led") { $0.pattern = "test-\(c.rawValue)" })
        }
        if let p = pattern ?? nil {
            if let on = buzzer.start(p.sequence, repeats: false, at: now) { setBuzzer(on) }
            for event in BoxMessage.events(for: .buzzer(p)) { server?.broadcast(event) }
        }
        if let id = soundID ?? nil {
            sound.play(id)
            for event in BoxMessage.events(for: .playSound(id)) { server?.broadcast(event) }
        }
        logger.info("wiring check", metadata: ["led": "\(request.led ?? "-")", "buzzer": "\(request.buzzer ?? "-")", "sound": "\(request.sound ?? "-")"])
        return .reply(to: request)
    }

    /// The parent's wiring check and the first-run presence press hold the buttons for as
    /// long as the asking client stays (at most the machine's limit): presses are told to
    /// subscribers and start no quest. Only from idle, like `test-output`.
    private func buttonCheck(_ request: BoxRequest, from client: Int32) -> BoxMessage {
        switch request.action ?? "start" {
        case "start":
            guard case .idle = state.phase else {
                return .reply(to: request, error: "button-check: a quest is running (\(state.phase.name)); the check waits until it ends")
            }
            buttonCheckHolders.insert(client)
            if !state.buttonCheck { step(.buttonCheck(on: true, atNanos: clock.monotonicNanos())) }
        case "stop":
            releaseButtonCheck(of: [client])
        default:
            return .reply(to: request, error: "action: \"\(DisplayText.escaped(request.action ?? ""))\" is not one of start, stop")
        }
        var reply = BoxMessage.reply(to: request)
        reply.box = status()
        return reply
    }

    /// PAR-2: a client (the web app) asks the box to show a PIN claim, or takes it back. The
    /// box shows it when idle and tells the client (`claim` events) how it goes; only the
    /// act at the box (STOP and DOWN held 3 s while it asks) confirms it. One at a time: a
    /// new one ends the one before. The client that asked holds it; its leaving ends it.
    private func claim(_ request: BoxRequest, from client: Int32) -> BoxMessage {
        guard let id = request.claim, Self.isClaimName(id) else {
            return .reply(to: request, error: "claim: give the claim a name of 1 to 64 letters, digits or dashes")
        }
        let now = clock.monotonicNanos()
        switch request.action ?? "start" {
        case "start":
            claimHolder = (client, id)
            step(.claim(.start(id: id, reset: request.reset ?? false), atNanos: now))
        case "stop":
            guard claimHolder?.id == id else { return .reply(to: request, error: "claim: \"\(id)\" is not the claim the box shows") }
            step(.claim(.cancel(id: id), atNanos: now))
        default:
            return .reply(to: request, error: "action: \"\(DisplayText.escaped(request.action ?? ""))\" is not one of start, stop")
        }
        var reply = BoxMessage.reply(to: request)
        reply.box = status()
        return reply
    }

    static func isClaimName(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D }
    }

    /// A claim moved on: one journal line; its holder lets go once it is over.
    private func claimMoved(_ update: ClaimUpdate) {
        var metadata: Logger.Metadata = ["claim": "\(update.id)", "progress": "\(update.progress.rawValue)"]
        if let reason = update.reason { metadata["reason"] = "\(reason.rawValue)" }
        logger.notice("parent PIN claim", metadata: metadata)
        if update.progress == .confirmed || update.progress == .ended, claimHolder?.id == update.id { claimHolder = nil }
    }

    /// These clients let go of the button check (or left); the last one ends it. (A check
    /// on always has a holder: they are cleared when it ends by itself.)
    private func releaseButtonCheck(of clients: [Int32]) {
        buttonCheckHolders.subtract(clients)
        if buttonCheckHolders.isEmpty, state.buttonCheck {
            step(.buttonCheck(on: false, atNanos: clock.monotonicNanos()))
        }
    }

    /// A button pushed over the socket, stamped now on CLOCK_MONOTONIC: "down" holds it until
    /// "up"; "tap" is a press whose release the debounce read finds.
    private func press(_ request: BoxRequest) -> BoxMessage {
        guard control?.allowPress == true else {
            return .reply(to: request, error: "press: this board's buttons are pressed by hand (a board profile allows it with control.socket_press)")
        }
        guard let role = request.button.flatMap(ButtonRole.init(rawValue:)) else {
            return .reply(to: request, error: "button: \"\(DisplayText.escaped(request.button ?? ""))\" is not one of \(ButtonRole.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let now = clock.monotonicNanos()
        switch request.action ?? "tap" {
        case "down":
            socketHeld.insert(role)
            step(.button(role, pressed: true, atNanos: now))
        case "up":
            socketHeld.remove(role)
            step(.button(role, pressed: false, atNanos: now))
        case "tap":
            socketHeld.remove(role)
            step(.button(role, pressed: true, atNanos: now))
        default:
            return .reply(to: request, error: "action: \"\(DisplayText.escaped(request.action ?? ""))\" is not one of down, up, tap")
        }
        return .reply(to: request)
    }
}
