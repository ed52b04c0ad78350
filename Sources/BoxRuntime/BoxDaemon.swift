import BoxProtocol
import CEventLoop
import Foundation
import GPIO
import Logging
import QuestCore
import QuestStore
import SystemClock

/// The box's main job: one thread, one `poll` over the button lines, a CLOCK_MONOTONIC
/// timerfd (the machine's timers and the LED/buzzer steps), the day's CLOCK_REALTIME timerfd
/// (midnight, a reminder, or the wall clock being set), an eventfd (shutdown from another
/// thread), optionally a signalfd (SIGTERM/SIGINT), the store follower's inotify watch and
/// the local socket with its clients. It feeds `QuestMachine` the kernel's edge timestamps
/// and performs its effects. With nothing pending it never wakes up.
///
/// This file is the loop and its timers, and where the rooms are wired: `EdgeIntake` (the
/// buttons), `OutputPatterns` (LED and buzzer), `PersistQueue` (saving plays),
/// `StoreFollower` (changes by other programs), `DaySchedule` (midnight, reminders,
/// backups) and `ControlCommand` (the socket). The machine's steps and effects are in
/// `BoxDaemon+Machine.swift`, the socket's commands carried out in `BoxDaemon+Control.swift`.
public final class BoxDaemon: @unchecked Sendable {
    let board: BoardGPIO
    let db: QuestDatabase
    let clock: SystemClock
    let sound: SoundOutput
    /// #35: the voice, when one started (nil: the box has sounds only).
    let speech: SpeechOutput?
    let display: DisplayOutput
    let logger: Logger
    let control: ControlOptions?
    /// When the box started (CLOCK_MONOTONIC), for its uptime in `state`.
    let startedNanos: MonotonicNanos

    /// What every surface shows while a play waits in memory.
    public static let notSavedNotice = PersistQueue.notSavedNotice
    public internal(set) var state: QuestState
    var timers = TimerQueue()
    var intake: EdgeIntake
    var outputs: OutputPatterns
    let persist: PersistQueue
    let follower: StoreFollower
    let day: DaySchedule
    var holds = SocketHolds()
    var server: ControlServer?
    /// The last screen the machine showed, to show again when the save status changes.
    var lastScreen: Screen?
    /// A change arrived during a quest: it applies when the box is idle again.
    var pendingReload = false
    /// The id the next step may give a play, drawn at the end of `perform`, after the lines
    /// were set: getrandom(2) is a system call, not to be made between an edge and its LED.
    var nextID = BoxDaemon.randomID()

    private let timerFD: Int32
    private let wakeFD: Int32
    private var signalFD: Int32 = -1
    private var watchdogInterval: MonotonicNanos?
    private var nextWatchdogPing: MonotonicNanos?
    private let counters = NSLock()
    private var wakeupCount = 0
    private var releaseCount = 0
    /// When the pages a quest mapped go back (#36): a while after the box turned idle.
    var pagesBackAt: MonotonicNanos?
    /// How long after a quest they go back (tests shorten it; set before `run`).
    public var pagesBackAfterQuestNanos = StartUpMemory.afterQuestDelayNanos
    /// BACK-1: copies of the backups to USB sticks (set before `run`; nil: none).
    public var offCard: OffCardCopier?

    /// Loads the world from the store and prepares the loop's descriptors.
    public init(
        board: BoardGPIO, database: QuestDatabase, clock: SystemClock, sound: SoundOutput, speech: SpeechOutput? = nil,
        display: DisplayOutput, calendar: Calendar, rules: GameRules? = nil, control: ControlOptions? = nil, logger: Logger
    ) throws {
        self.board = board
        self.control = control
        self.db = database
        self.clock = clock
        self.sound = sound
        self.speech = speech
        self.display = display
        self.logger = logger
        startedNanos = clock.monotonicNanos()
        var r = rules ?? GameRules.standard
        if rules == nil {
            r.debounceMs = Int64(board.profile.debounceMs)
            r.holdMs = Int64(board.profile.holdMs)
        }
        let follower = StoreFollower(database: database, clock: clock, calendar: calendar, logger: logger)
        self.follower = follower
        state = QuestState(world: try follower.firstWorld(), rules: r)
        // Rows the box cannot read (an edited restore, a bit flip) are skipped by the store's
        // readers; name them once here, one line each, so the journal says what is missing.
        let unreadable = try database.unreadableRows(limit: 10)
        for line in unreadable.lines { logger.warning("unreadable row skipped", metadata: ["row": "\(line)"]) }
        if unreadable.total > unreadable.lines.count {
            logger.warning("more unreadable rows skipped", metadata: ["count": "\(unreadable.total - unreadable.lines.count)"])
        }
        intake = EdgeIntake(board: board, logger: logger)
        outputs = OutputPatterns(
            setLED: { [board, logger] color in
                do { try board.setLED(color) } catch { logger.error("LED failed", metadata: ["error": "\(error)"]) }
            },
            setBuzzer: { [board, logger] on in
                do { try board.setBuzzer(on) } catch { logger.error("buzzer failed", metadata: ["error": "\(error)"]) }
            })
        persist = PersistQueue(logger: logger) { [database, follower] request, trusted in
            defer { follower.ownWriteDone() }
            try database.apply(request, wallClockTrusted: trusted)
        }
        day = try DaySchedule(database: database, clock: clock, logger: logger) { [follower] in follower.ownWriteDone() }
        timerFD = qb_timerfd_create()
        wakeFD = qb_eventfd_create()
        guard timerFD >= 0, wakeFD >= 0 else {
            for fd in [timerFD, wakeFD] where fd >= 0 { close(fd) }
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
        applyVoice(try database.settings().voice)
        prepareVoice()
    }

    deinit {
        for fd in [timerFD, wakeFD, signalFD] where fd >= 0 { close(fd) }
    }

    /// Times `poll` returned: the measure of wake-ups (0 while idle).
    public var wakeups: Int { counters.withLock { wakeupCount } }
    /// How many times a quest's pages went back since start (#36).
    public var memoryReleasesAfterQuests: Int { counters.withLock { releaseCount } }

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
        StartUpMemory.readCodeAhead(logger: logger)
        startUp()
        day.arm(for: state.world)
        // Ready means a press finds its code mapped: start-up's pages go back first.
        StartUpMemory.release(world: state.world, rules: state.rules, wallClock: clock.wallNow(), logger: logger)
        if qb_sd_notify("READY=1") == 1 { logger.info("notified systemd: ready") }
        onReady?()
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
        let watchFD = follower.watchFD
        loop: while true {
            arm()
            var fds = intake.descriptors + [timerFD, day.timerFD, wakeFD] + (signalFD >= 0 ? [signalFD] : []) + (watchFD >= 0 ? [watchFD] : [])
            var wantWrite = [Int32](repeating: 0, count: fds.count)
            if let offCard, offCard.watchFD >= 0 {
                fds.append(offCard.watchFD)
                wantWrite.append(4)
            }
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
                case day.timerFD:
                    calendarChanged(reason: day.fired())
                case watchFD:
                    follower.watchFired()
                case offCard?.watchFD:
                    offCard?.check()
                case let fd where server?.owns(fd) == true:
                    server?.service(fd, ready: ready[i], hello: { .hello(status()) }, handle: handle)
                default:
                    for edge in intake.edges(from: fd) { step(.button(edge.role, pressed: edge.pressed, atNanos: edge.atNanos)) }
                }
            }
            if let server, let due = server.idleDeadline, due <= ControlServer.monotonicNow() { server.closeIdle() }
            if let departed = server?.takeDeparted(), !departed.isEmpty { clientsLeft(departed) }
            if case .idle = state.phase {
                if follower.checkDue, follower.hasChanged() { reload(reason: "store changed") }
                if pendingReload { reload(reason: "after the quest") }
            }
            runDueWork()
        }
        _ = qb_sd_notify("STOPPING=1")
        if !persist.isEmpty { retryWrites(at: clock.monotonicNanos()) }
        if !persist.isEmpty {
            logger.error("plays not saved at shutdown", metadata: ["requests": "\(persist.waiting)"])
        }
        do { try board.allOff() } catch { logger.error("switching outputs off failed", metadata: ["error": "\(error)"]) }
        server = nil  // closes the clients and removes the socket file
    }

    // MARK: the loop's work

    func startUp() {
        // The world was loaded before the times moved: take it again before the first screen.
        if day.wallClockTrusted && day.correctUntrustedTimes(), let world = follower.readWorld() { state.world = world }
        do {
            // Quests a stopped box left open (no task being timed) cannot go on: close them,
            // so no session stays `in_progress` for ever.
            defer { follower.ownWriteDone() }
            let closed = try db.abandonUnfinishedSessions()
            if closed > 0 { logger.info("closed quests left unfinished", metadata: ["sessions": "\(closed)"]) }
        } catch {
            logger.error("closing unfinished quests failed", metadata: ["error": "\(error)"])
        }
        day.backupIfDue(calendar: state.world.calendar)
        offCard?.check()
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

    /// The day's timer fired (midnight, a reminder, the wall clock set).
    func calendarChanged(reason: String) {
        logger.info("calendar check", metadata: ["reason": "\(reason)"])
        // What the box holds (play days, the streak) must follow the corrected times.
        if day.clockChecked() { reload(reason: "wall times corrected") }
        day.backupIfDue(calendar: state.world.calendar)
        offCard?.check()
        // REFL-1: a new week brings last week's reflection (read now, while idle, not at the
        // player's first press). During a quest the re-read waits for its end, as any reload.
        if follower.isNewWeek(clock.wallNow(), calendar: state.world.calendar) { reload(reason: "new week") }
        step(.wallClockTick(atNanos: clock.monotonicNanos()))
        day.arm(for: state.world)
    }

    /// Due machine timers, pattern steps, retries, store re-checks and the watchdog, at the
    /// current monotonic time.
    func runDueWork() {
        let now = clock.monotonicNanos()
        while let due = timers.popDue(now: now) { step(.timerFired(due.timer, atNanos: due.atNanos)) }
        outputs.advance(to: now)
        if let at = persist.retryAt, at <= now { retryWrites(at: now) }
        if let at = follower.recheckAt, at <= now, follower.hasChanged() { reload(reason: "store changed") }
        if let at = pagesBackAt, at <= now {
            pagesBackAt = nil
            StartUpMemory.releaseAfterQuest(world: state.world, rules: state.rules, wallClock: clock.wallNow(), logger: logger) { [counters] in
                counters.withLock { self.releaseCount += 1 }
            }
        }
        if let ping = nextWatchdogPing, ping <= now, let interval = watchdogInterval {
            _ = qb_sd_notify("WATCHDOG=1")
            nextWatchdogPing = now + interval
        }
    }

    /// The monotonic timerfd at the earliest pending deadline (disarmed when there is none).
    private func arm() {
        let idleClient = server?.idleDeadline.map { MonotonicNanos(clamping: $0) }
        let deadlines = [timers.next?.atNanos, outputs.nextChangeAt, nextWatchdogPing, persist.retryAt, follower.recheckAt, idleClient, pagesBackAt].compactMap { $0 }
        _ = qb_timerfd_arm(timerFD, deadlines.min() ?? -1)
    }
}
