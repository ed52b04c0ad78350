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
/// This file is the loop, its one step (`tick`, which `run` and the driven tests share) and
/// where the parts are wired; each part owns its state: `BoxHardware` (the buttons' intake,
/// the LED and buzzer patterns, sound, voice, screen), `StepMemory` (timers, the last screen),
/// `PersistQueue` (saving plays), `StoreFollower` (changes by other programs), `DaySchedule`
/// (midnight, reminders, backups, the USB copy), `SocketSide` (the socket and its holds) and
/// `LoopResources` (the loop's descriptors, the watchdog). The machine's steps and effects are
/// in `BoxDaemon+Machine.swift`, the socket's commands carried out in `BoxDaemon+Control.swift`.
public final class BoxDaemon: @unchecked Sendable {
    var hardware: BoxHardware
    let db: QuestDatabase
    let clock: SystemClock
    let logger: Logger
    /// Any change leaves the presses' reflex unknown until the end of the tick.
    public internal(set) var state: QuestState { didSet { memory.reflex = nil } }
    var memory: StepMemory
    let persist: PersistQueue
    let follower: StoreFollower
    let day: DaySchedule
    var socket: SocketSide
    let loop: LoopResources

    /// What every surface shows while a play waits in memory.
    public static let notSavedNotice = PersistQueue.notSavedNotice

    /// Loads the world from the store and prepares the loop's descriptors.
    public init(
        board: BoardGPIO, database: QuestDatabase, clock: SystemClock, sound: SoundOutput, speech: SpeechOutput? = nil,
        display: DisplayOutput, calendar: Calendar, rules: GameRules? = nil, control: ControlOptions? = nil, logger: Logger
    ) throws {
        db = database
        self.clock = clock
        self.logger = logger
        loop = try LoopResources(startedNanos: clock.monotonicNanos())
        var r = rules ?? GameRules.standard
        if rules == nil {
            r.debounceMs = Int64(board.profile.debounceMs)
            r.holdMs = Int64(board.profile.holdMs)
        }
        // Rows the box cannot read (an edited restore, a bit flip) are skipped by the store's
        // readers; name them once here, one line each, so the journal says what is missing.
        // Looked for while the world loads (#49: the two one after the other made start to
        // ready 425 ms).
        let unreadableRead = StartUpRead(name: "questbox-check") { try database.unreadableRows(limit: 10, onWriter: true) }
        let follower = StoreFollower(database: database, clock: clock, calendar: calendar, logger: logger)
        self.follower = follower
        state = QuestState(world: try follower.firstWorld(), rules: r)
        let unreadable = try unreadableRead.value()
        for line in unreadable.lines { logger.warning("unreadable row skipped", metadata: ["row": "\(line)"]) }
        if unreadable.total > unreadable.lines.count {
            logger.warning("more unreadable rows skipped", metadata: ["count": "\(unreadable.total - unreadable.lines.count)"])
        }
        hardware = BoxHardware(board: board, sound: sound, speech: speech, display: display, logger: logger)
        memory = StepMemory(nextID: Self.randomID())
        persist = PersistQueue(logger: logger) { [database, follower] request, trusted in
            defer { follower.ownWriteDone() }
            try database.plays.apply(request, wallClockTrusted: trusted)
        }
        day = try DaySchedule(database: database, clock: clock, logger: logger) { [follower] in follower.ownWriteDone() }
        socket = SocketSide(control: control, server: try control.map {
            try ControlServer(
                path: $0.socketPath, maximumClients: $0.maximumClients, reservedClients: $0.reservedClients,
                idleSeconds: $0.idleSeconds, maximumQueuedBytes: $0.maximumQueuedBytes, logger: logger)
        })
        applyVoice(try database.settings.current().voice)
        prepareVoice()
    }

    // The parts' members the extensions use most, by their short names.
    var board: BoardGPIO { hardware.board }
    var sound: SoundOutput { hardware.sound }
    var speech: SpeechOutput? { hardware.speech }
    var display: DisplayOutput { hardware.display }
    var server: ControlServer? { socket.server }

    /// BACK-1: copies of the backups to USB sticks (set before `run`; nil: none).
    public var offCard: OffCardCopier? {
        get { day.offCard }
        set { day.offCard = newValue }
    }

    /// How long after a quest its pages go back (tests shorten it; set before `run`).
    public var pagesBackAfterQuestNanos: MonotonicNanos {
        get { memory.pagesBackAfterQuestNanos }
        set { memory.pagesBackAfterQuestNanos = newValue }
    }

    /// Ends `run` from another thread.
    public func requestShutdown() { qb_eventfd_signal(loop.wakeFD) }

    /// Runs until shutdown (SIGTERM/SIGINT when `handleSignals`, or `requestShutdown`); then
    /// the LED and buzzer are switched off. The caller releases the lines and the database.
    ///
    /// `loopPriority` above 0 puts this thread on SCHED_FIFO once start-up is done (before the
    /// first lights ask for a press), below the audio thread (10): a busy Pi (a kiosk browser,
    /// the web app) then cannot hold a press off its LED. Where that is not permitted the loop
    /// runs at normal priority and says so.
    public func run(handleSignals: Bool, loopPriority: Int32 = 0, onReady: (() -> Void)? = nil) throws {
        if handleSignals { try loop.watchSignals() }
        StartUpMemory.readCodeAhead(logger: logger)
        let resuming = startUp()
        day.arm(for: state.world)
        // Ready means a press finds its code mapped: start-up's pages go back first. The
        // lights come on after, with the loop already real-time: lit before, they asked for
        // presses while start-up ran at normal priority, and the HIL's real-time recorder of
        // those lights held it off half a second (2026-11-30).
        StartUpMemory.release(world: state.world, rules: state.rules, wallClock: clock.wallNow(), logger: logger)
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
        day.backupOnceReady(calendar: state.world.calendar)   // off the loop (#49)
        defer { day.waitForBackground() }   // the caller closes the store after `run`
        showFirstScreen(resuming: resuming)
        if qb_sd_notify("READY=1") == 1 { logger.info("notified systemd: ready") }
        onReady?()
        loop.startWatchdog(at: clock.monotonicNanos())
        while true {
            arm()
            var (fds, wantWrite) = pollSet()
            var ready = [Int32](repeating: 0, count: fds.count)
            // The button edges are read, and a press lit, by the poll's call as it returns.
            let ahead = hardware.intake.readAheadOnPoll(lighting: memory.reflex != nil)
            let n = qb_poll_then(&fds, &wantWrite, Int32(fds.count), -1, &ready, ahead?.after, ahead?.context)
            loop.countWakeup()
            guard n >= 0 else { throw GPIOFailure("poll failed: \(String(cString: strerror(errno)))") }
            let wakes = fds.indices.filter { ready[$0] != 0 }.map { wake(for: fds[$0], ready: ready[$0]) }
            guard tick(wakes) else { break }
        }
        _ = qb_sd_notify("STOPPING=1")
        let lit = pressesLitAhead
        logger.info("presses lit ahead", metadata: [
            "lit": "\(lit.lit)", "as-read": "\(lit.asRead)", "by-poll": "\(lit.byPoll)", "missed": "\(lit.missed)",
        ])
        if !persist.isEmpty { retryWrites(at: clock.monotonicNanos()) }
        if !persist.isEmpty {
            logger.error("plays not saved at shutdown", metadata: ["requests": "\(persist.waiting)"])
        }
        do { try board.allOff() } catch { logger.error("switching outputs off failed", metadata: ["error": "\(error)"]) }
        socket.server = nil  // closes the clients and removes the socket file
    }

    /// One step of the loop, for `run` and the driven tests alike: the button edges first
    /// (a press's lines are set before anything else the step does), then the other wakes in
    /// their order, then the socket's idle and departed clients, the store's changes while
    /// idle, and everything due on the monotonic clock. False: shut down.
    func tick(_ wakes: [Wake]) -> Bool {
        // The tick's first edge may have its LED set by the read itself (the board armed from
        // the reflex); the first step voids the reflex.
        var lightAhead = memory.reflex != nil
        for case .edges(let fd) in wakes {
            let read = fd.map { hardware.intake.edges(from: $0, lightingAhead: lightAhead) } ?? (edges: hardware.intake.waitingEdges(), litAhead: nil)
            if !read.edges.isEmpty { lightAhead = false }
            for (k, edge) in read.edges.enumerated() {
                let setAsRead = k == 0 ? read.litAhead : nil
                // The press's LED from the reflex, before the step.
                var litAhead: (pattern: LEDPattern, before: LEDPattern)?
                if edge.pressed, let pattern = memory.reflex?.pattern(forPressOf: edge.role, at: edge.atNanos) {
                    litAhead = (pattern, before: hardware.outputs.machineLED)
                    let lineSet = setAsRead != nil && setAsRead == pattern.steps.first?.color
                    hardware.outputs.showMachine(pattern, at: clock.monotonicNanos(), lineSet: lineSet)
                    memory.litAhead += 1
                    if lineSet { memory.litAsRead += 1 }
                } else if let setAsRead {
                    pressLitWithoutReflex(setAsRead)
                }
                step(.button(edge.role, pressed: edge.pressed, atNanos: edge.atNanos), litAhead: litAhead)
            }
        }
        for wake in wakes {
            switch wake {
            case .edges: break
            case .shutdownRequested:
                qb_eventfd_drain(loop.wakeFD)
                logger.info("shutdown requested")
                return false
            case .signal:
                logger.info("shutdown", metadata: ["signal": "\(qb_signalfd_read(loop.signalFD))"])
                return false
            case .monotonicTimer: qb_timerfd_drain(loop.timerFD)
            case .dayTimer(let reason): calendarChanged(reason: reason ?? day.fired())
            case .storeWatch: follower.watchFired()
            case .backupFileWritten:
                day.backupFileWritten()   // what it mapped (2 MB to list the backups) goes back:
                StartUpMemory.releaseInBackground(world: state.world, rules: state.rules, wallClock: clock.wallNow(), logger: logger, after: "backup") {}
            case .sticks: offCard?.check()
            case .client(let fd, let ready): server?.service(fd, ready: ready, hello: { .hello(status()) }, handle: handle)
            }
        }
        if let server, let due = server.idleDeadline, due <= ControlServer.monotonicNow() { server.closeIdle() }
        if let departed = server?.takeDeparted(), !departed.isEmpty { clientsLeft(departed) }
        if case .idle = state.phase {
            if follower.checkDue, follower.hasChanged() { reload(reason: "store changed") }
            if memory.pendingReload { reload(reason: "after the quest") }
        }
        runDueWork()
        workOutReflex()
        return true
    }

    // MARK: the loop's work

    /// Start-up's own reads and writes, before anything shows: quests a stopped box left
    /// open closed, the task in progress read (picked up by `showFirstScreen`).
    func startUp() -> (task: InProgressTask, completed: [TaskEstimation])? {
        // The world was loaded before the times moved: take it again before the first screen.
        if day.wallClockTrusted && day.correctUntrustedTimes(), let world = follower.readWorld() { state.world = world }
        do {
            // Quests a stopped box left open (no task being timed) cannot go on: close them,
            // so no session stays `in_progress` for ever.
            defer { follower.ownWriteDone() }
            let closed = try db.plays.abandonUnfinishedSessions()
            if closed > 0 { logger.info("closed quests left unfinished", metadata: ["sessions": "\(closed)"]) }
        } catch {
            logger.error("closing unfinished quests failed", metadata: ["error": "\(error)"])
        }
        do {
            return try db.plays.inProgress()
        } catch {
            logger.error("reading the task in progress failed", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The first screen and lights, and the task in progress picked up: the box asks for
    /// presses only once its loop is about to answer them.
    func showFirstScreen(resuming: (task: InProgressTask, completed: [TaskEstimation])?) {
        let (next, effects) = QuestMachine.start(state, env: environment())
        state = next
        perform(effects)
        if let (task, done) = resuming {
            logger.info("resuming the task in progress", metadata: ["session": "\(task.session.id)", "task": "\(task.taskIndex)"])
            step(.restoreInProgress(task, completedEstimations: done, atNanos: clock.monotonicNanos()))
        }
        workOutReflex()
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
        while let due = memory.timers.popDue(now: now) { step(.timerFired(due.timer, atNanos: due.atNanos)) }
        hardware.outputs.advance(to: now)
        if let at = persist.retryAt, at <= now { retryWrites(at: now) }
        if let at = follower.recheckAt, at <= now, follower.hasChanged() { reload(reason: "store changed") }
        if memory.pagesBackDue(at: now) {
            StartUpMemory.releaseInBackground(world: state.world, rules: state.rules, wallClock: clock.wallNow(), logger: logger, after: "quest") { [loop] in
                loop.countRelease()
            }
        }
        loop.pingWatchdogIfDue(at: now)
    }

    /// The monotonic timerfd at the earliest pending deadline (disarmed when there is none).
    private func arm() {
        let idleClient = server?.idleDeadline.map { MonotonicNanos(clamping: $0) }
        let deadlines = [
            memory.timers.next?.atNanos, hardware.outputs.nextChangeAt, loop.nextWatchdogPing, persist.retryAt, follower.recheckAt,
            idleClient, memory.pagesBackAt,
        ].compactMap { $0 }
        _ = qb_timerfd_arm(loop.timerFD, deadlines.min() ?? -1)
    }
}
