/// Timers the machine asks the shell to run. Scheduling an id again replaces it.
public enum QuestTimer: Hashable, Codable, Sendable {
    /// The debounce window of a line closed while its level was unsettled.
    case debounce(ButtonRole)
    /// Hold and accelerating hold-repeat of up/down while estimating.
    case holdRepeat(ButtonRole)
    /// Stop held for 3 s while estimating or active: abandon the quest.
    case abandonHold
    /// GAME-4: the 3 h task limit.
    case taskLimit
    /// GAME-6: the reveal continues by itself after 8 s.
    case revealTimeout
    case summaryTimeout
    /// REFL-1: the weekly reflection steps aside (kept) if nobody presses.
    case reflectionTimeout
    /// A refused stop's "Just started!" goes after a moment.
    case noteTimeout
    /// A button check left open ends by itself (`QuestMachine.buttonCheckLimitNanos`).
    case buttonCheckLimit
    /// PAR-2: STOP and DOWN held together long enough to allow a claim.
    case claimHold
    /// PAR-2: a claim asked for too long (or waited too long for an idle box).
    case claimLimit
    /// GAME-7: a quest waiting for the player with no press pauses.
    case walkAway
    /// #32: STOP held 3 s on the idle screen switches the sounds off or on.
    case muteHold
    /// #35: the player stopped stepping: the voice says the guess.
    case voiceSettle
    /// PRIV-1: a phone's code shown for its 2 minutes.
    case pairingLimit
    /// #48: a notice that told of a moment ("PIN allowed", "Phone paired") leaves the quest list.
    case noticeExpiry
    /// GAME-9: the first quest's intro left alone goes back to the quest list.
    case introTimeout
}

/// Inputs of the loop. Button edges are raw (the machine debounces them) and carry the
/// kernel's CLOCK_MONOTONIC timestamp; timers carry the monotonic time they fired at.
public enum QuestEvent: Codable, Equatable, Sendable {
    case button(ButtonRole, pressed: Bool, atNanos: MonotonicNanos)
    /// #33: a button pressed on a paired touch kiosk. Debounced and guarded as the GPIO
    /// button is and played the same, except for PAR-2: a touch never holds for a claim.
    case touch(ButtonRole, pressed: Bool, atNanos: MonotonicNanos)
    /// The line's level as read when its debounce window closed (the answer to `readButton`).
    case buttonLevel(ButtonRole, pressed: Bool, atNanos: MonotonicNanos)
    case timerFired(QuestTimer, atNanos: MonotonicNanos)
    /// The calendar may have moved on (new day, clock synchronized): refresh what is offered.
    case wallClockTick(atNanos: MonotonicNanos)
    /// Routines, settings or history changed outside the loop.
    case worldUpdated(QuestWorld, atNanos: MonotonicNanos)
    /// GAME-5 at start-up: the persisted in-progress task and the estimations its session
    /// already has.
    case restoreInProgress(InProgressTask, completedEstimations: [TaskEstimation], atNanos: MonotonicNanos)
    /// The parent's wiring check (or the first-run presence press) holds the buttons, or
    /// lets them go: while held, presses are debounced and told but do nothing in the game.
    case buttonCheck(on: Bool, atNanos: MonotonicNanos)
    /// PAR-2: someone (the web app) asks to claim the box, or takes the claim back.
    case claim(ClaimRequest, atNanos: MonotonicNanos)
    /// #34: the house asks (Home Assistant's button and switch, through the socket).
    case house(HouseRequest, atNanos: MonotonicNanos)
    /// PRIV-1: a phone asks for a code to pair with (the web app, over the socket).
    case pairing(PairingRequest, atNanos: MonotonicNanos)

    /// The monotonic time the event carries.
    public var atNanos: MonotonicNanos {
        switch self {
        case .button(_, _, let t), .touch(_, _, let t), .buttonLevel(_, _, let t), .timerFired(_, let t), .wallClockTick(let t), .worldUpdated(_, let t),
             .restoreInProgress(_, _, let t), .buttonCheck(_, let t), .claim(_, let t), .house(_, let t),
             .pairing(_, let t):
            t
        }
    }
}

/// #34: what the house may ask of the box: never a press, never a PIN claim.
public enum HouseRequest: Codable, Equatable, Sendable {
    /// REM-1's chime now, while idle: for the chosen quest when it is not played today, else
    /// for the first of today's that is not (logged as a reminder, so the day's own reminder
    /// of that quest does not sound again).
    case remindNow
    /// The sounds off or on (`sound.mute`); a parent's lock on the switch holds here too.
    case sound(muted: Bool)
}

/// What the shell must do. A `persist` is listed before the sound, light and screen that
/// show its result; the box performs the sound, light and buzzer first and stores right
/// after, before it reads the next event (so a slow SD card never delays a reveal).
public enum QuestEffect: Codable, Equatable, Sendable {
    case playSound(SoundID)
    case led(LEDPattern)
    case buzzer(BuzzerPattern)
    case display(Screen)
    case persist(PersistRequest)
    case scheduleTimer(QuestTimer, atNanos: MonotonicNanos)
    case cancelTimer(QuestTimer)
    /// A button's debounce window closed: read the line's level now and send `buttonLevel`.
    case readButton(ButtonRole)
    /// PAR-2: a claim moved on; the asker is told.
    case claimChanged(ClaimUpdate)
    /// #35: the voice says these words instead of whatever it was saying, after a sound this
    /// step started (`VoiceSchedule`). `until`: words for a moment (lock-in's "Go!") are
    /// handed to the sound by then or not said at all.
    case speak(String, until: MonotonicNanos? = nil)
    /// #35: the voice stops mid-word (an estimate step).
    case cutSpeech
}

public enum PersistRequest: Codable, Equatable, Sendable {
    /// The request's name, for logs and traces.
    public var kind: String {
        switch self {
        case .sessionStarted: "sessionStarted"
        case .taskStarted: "taskStarted"
        case .estimationCompleted: "estimationCompleted"
        case .sessionCompleted: "sessionCompleted"
        case .sessionAbandoned: "sessionAbandoned"
        case .sessionPaused: "sessionPaused"
        case .sessionResumed: "sessionResumed"
        case .inProgressCleared: "inProgressCleared"
        case .reflectionDismissed: "reflectionDismissed"
        case .reminderSounded: "reminderSounded"
        case .soundMuted: "soundMuted"
        }
    }

    case sessionStarted(GameSession)
    /// GAME-5: written at lock-in.
    case taskStarted(InProgressTask)
    /// One transaction: the estimation and clearing the in-progress task. Totals (XP, level,
    /// streak, quest count) are never sent: the store derives them from the history.
    case estimationCompleted(TaskEstimation)
    /// The session's completion, with its XP (the estimations' and the completion bonus).
    case sessionCompleted(GameSession)
    /// Also clears the in-progress task.
    case sessionAbandoned(GameSession)
    /// GAME-7: the quest is paused with the XP of its played tasks; also clears the
    /// in-progress task.
    case sessionPaused(GameSession)
    /// GAME-7: a paused quest picked up again (back in progress).
    case sessionResumed(GameSession)
    /// A task that cannot resume is offered again.
    case inProgressCleared
    case reflectionDismissed(weekIdentifier: String)
    /// REM-1: a routine's reminder sounded (`name`: what the player sees).
    case reminderSounded(routineID: UUID, name: String, at: Date)
    /// #32: the player switched the sounds at the box (`sound.mute`).
    case soundMuted(Bool)
}

/// Per-event facts from outside: the wall clock (calendar facts only, never durations), a
/// fresh identifier for anything the event creates, and whether the wall clock is trusted.
public struct QuestEnvironment: Sendable, Equatable {
    public var now: Date
    public var newID: UUID
    public var wallClockTrusted: Bool

    public init(now: Date, newID: UUID, wallClockTrusted: Bool = true) {
        self.now = now
        self.newID = newID
        self.wallClockTrusted = wallClockTrusted
    }
}

/// A quest being played: its own copy of the routine, so edits cannot disturb it.
public struct QuestRun: Codable, Equatable, Sendable {
    public var session: GameSession
    public var routine: Routine
    public var questName: String
    public var estimations: [TaskEstimation]
    public var personalBests: [String]
    public var levelAtStart: Int
}

public enum QuestPhase: Codable, Equatable, Sendable {
    case idle(selectedRoutineID: UUID?, notice: String?)
    case estimating(QuestRun, taskIndex: Int, estimateSeconds: Int)
    case active(QuestRun, taskIndex: Int, estimateSeconds: Int, lockNanos: MonotonicNanos, pendingStopNanos: MonotonicNanos?)
    case revealing(QuestRun, taskIndex: Int)
    case summary
    /// REFL-1: last week's reflection, offered before the first quest of a new week; any
    /// press skips it (lock goes straight on to the selected quest).
    case reflection(WeeklyReflection, selectedRoutineID: UUID?)
    /// GAME-9: the first quest's intro, page `page` (1-based), before `selectedRoutineID` starts.
    case intro(page: Int, selectedRoutineID: UUID?)

    public var name: String {
        switch self {
        case .idle: "idle"
        case .estimating: "estimating"
        case .active: "active"
        case .revealing: "revealing"
        case .summary: "summary"
        case .reflection: "reflection"
        case .intro: "intro"
        }
    }
}

public struct QuestState: Codable, Equatable, Sendable {
    public var rules: GameRules
    public var world: QuestWorld
    public var phase: QuestPhase
    public var debouncer: ButtonDebouncer
    /// Hold-repeat count of each held up/down button.
    public var repeats: [ButtonRole: Int]
    /// A button check holds the buttons: they are debounced and told, never played.
    public var buttonCheck: Bool
    /// PAR-2: the claim the box shows (or will, once idle).
    public var claim: PendingClaim?
    /// #33: the buttons whose current press came from a touch screen, not the box.
    public var touched: Set<ButtonRole>
    /// #35: what the voice said and waits to say; `voice.speaks` is the shell's to set.
    public var voice: VoiceSchedule
    /// GAME-8: when the box last changed screen by itself (the reveal's 8 s, a summary or
    /// reflection timing out, a walk-away pause or a task past its limit, a house reminder that
    /// chose another quest, a resume). A reminder's chime on the same screen changes no press.
    public var changedByItselfAt: MonotonicNanos?
    /// PRIV-1: the phone's code the idle box shows.
    public var pairing: PendingPairing?
    /// #48: the idle notice `noticeExpiry` takes away (one that tells of a moment); a notice
    /// shown since, one that stays true ("Quest paused"), is left alone.
    public var expiringNotice: String?

    public init(world: QuestWorld, rules: GameRules = .standard) {
        self.rules = rules
        self.world = world
        self.phase = .idle(selectedRoutineID: nil, notice: nil)
        self.debouncer = ButtonDebouncer(windowNanos: rules.debounceMs * 1_000_000)
        self.repeats = [:]
        self.buttonCheck = false
        self.claim = nil
        self.touched = []
        self.voice = VoiceSchedule()
    }
}

/// The whole quest loop of SPEC §2–§3 as a pure function: `(state, event) → (state, effects)`.
/// Debounce lives here too (leading edge on the kernel timestamps, §5), so raw GPIO edges
/// and scripted events take exactly the same path.
public enum QuestMachine: Sendable {
    public static let abandonedNotice = "Quest paused. Pick it up any time."
    /// How long a refused stop's "Just started!" shows.
    public static let noteMs: Int64 = 2_000
    public static let tooLongNotice = "That task ran past 3 hours, so it was set aside unscored."
    public static let buttonCheckNotice = "Button check: presses show on the parent's page and start no quest."
    /// #48: how long a notice that told of a moment stays on the quest list.
    public static let noticeShownNanos: MonotonicNanos = 60 * 1_000_000_000
    /// A button check nobody ended (a page left open) gives the box back after 10 minutes.
    public static let buttonCheckLimitNanos: MonotonicNanos = 10 * 60 * 1_000_000_000
    /// GAME-8: presses this soon after the box changed screen by itself were meant for the
    /// screen before (a trial's "go on" came 2 s after the reveal moved on).
    public static let changedByItselfGraceNanos: MonotonicNanos = 3_000_000_000

    /// The first screen and lights, before any event.
    public static func start(_ state: QuestState, env: QuestEnvironment) -> (state: QuestState, effects: [QuestEffect]) {
        var r = Reducer(state: state, env: env)
        r.enterIdle(notice: nil)
        r.state.changedByItselfAt = nil   // GAME-8: the first screen has no screen before it
        r.followVoice()
        return (r.state, r.effects)
    }

    public static func step(_ state: QuestState, _ event: QuestEvent, env: QuestEnvironment) -> (state: QuestState, effects: [QuestEffect]) {
        var r = Reducer(state: state, env: env)
        r.handle(event)
        r.followVoice()
        return (r.state, r.effects)
    }
}

extension QuestState {
    /// Applies an event in place and returns the effects.
    public mutating func apply(_ event: QuestEvent, env: QuestEnvironment) -> [QuestEffect] {
        let (next, effects) = QuestMachine.step(self, event, env: env)
        self = next
        return effects
    }
}

struct Reducer {
    var state: QuestState
    let env: QuestEnvironment
    var effects: [QuestEffect] = []
    /// The monotonic time of the event being handled (0 before the first).
    var now: MonotonicNanos = 0

    var rules: GameRules { state.rules }
    func ms(_ value: Int64) -> MonotonicNanos { value * 1_000_000 }

    mutating func emit(_ effect: QuestEffect) { effects.append(effect) }

    // MARK: events

    mutating func handle(_ event: QuestEvent) {
        now = event.atNanos
        switch event {
        case .button(let role, let pressed, let t), .touch(let role, let pressed, let t):
            // A press is a touch's only while no edge of the box's own button comes in.
            if case .touch = event { if pressed { state.touched.insert(role) } } else { state.touched.remove(role) }
            switch state.debouncer.feed(role, pressed: pressed, atNanos: t) {
            case .ignored: break
            case .settleAt(let at): emit(.scheduleTimer(.debounce(role), atNanos: at))
            case .accepted(let p, let at):
                emit(.scheduleTimer(.debounce(role), atNanos: at + state.debouncer.windowNanos))
                p ? press(role, at: at) : release(role, at: at)
            }
        case .buttonLevel(let role, let level, let t):
            if let edge = state.debouncer.settle(role, level: level, at: t) {
                edge.pressed ? press(role, at: edge.atNanos) : release(role, at: edge.atNanos)
            }
        case .timerFired(let timer, let t):
            fire(timer, at: t)
        case .wallClockTick:
            if case .idle(_, let notice) = state.phase { enterIdle(notice: notice) }
        case .worldUpdated(let world, _):
            state.world = world
            if case .idle(_, let notice) = state.phase { enterIdle(notice: notice) }
        case .restoreInProgress(let task, let completed, let t):
            restore(task, completed: completed, at: t)
        case .buttonCheck(let on, let t):
            checkButtons(on, at: t)
        case .claim(let request, let t):
            handleClaim(request, at: t)
        case .house(let request, _):
            handleHouse(request)
        case .pairing(let request, let t):
            handlePairing(request, at: t)
        }
    }

    /// #34: a reminder now or the sounds switched, from the house. The reminder only while
    /// idle (a quest in play is never interrupted); nothing but the switch and its words change.
    mutating func handleHouse(_ request: HouseRequest) {
        switch request {
        case .remindNow:
            guard case .idle(let selected, _) = state.phase, !state.buttonCheck else { return }
            let today = todaysRoutines()
            let unplayed = today.filter { !playedToday($0.id) }
            guard let routine = unplayed.first(where: { $0.id == selected }) ?? unplayed.first,
                  let position = today.firstIndex(where: { $0.id == routine.id })
            else { return }
            state.world.reminders[routine.id] = env.now
            emit(.persist(.reminderSounded(routineID: routine.id, name: routine.playerFacingName(position: position + 1), at: env.now)))
            emit(.playSound(.questAvailable))
            // GAME-8: choosing another quest is a change by itself (LOCK now would start a
            // quest the player did not pick); the same quest chosen, LOCK means the same.
            if routine.id != selected { state.changedByItselfAt = now }
            enterIdle(notice: nil, selected: routine.id)
        case .sound(let muted):
            guard !state.world.settings.lockedSwitches.contains(.mute), state.world.settings.soundMuted != muted else { return }
            state.world.settings.soundMuted = muted
            emit(.persist(.soundMuted(muted)))
            if case .idle(let selected, _) = state.phase, !state.buttonCheck {
                enterIdle(notice: muted ? ScreenPhrases.soundOff : ScreenPhrases.soundOn, expiringAt: now, selected: selected)
            }
        }
    }

    /// Starts a button check only while idle (a quest in play keeps its buttons); ends one
    /// in any phase.
    mutating func checkButtons(_ on: Bool, at t: MonotonicNanos) {
        guard case .idle = state.phase else {
            state.buttonCheck = false
            return
        }
        guard on != state.buttonCheck else { return }
        state.buttonCheck = on
        if on {
            emit(.scheduleTimer(.buttonCheckLimit, atNanos: t + QuestMachine.buttonCheckLimitNanos))
        } else {
            emit(.cancelTimer(.buttonCheckLimit))
        }
        enterIdle(notice: on ? QuestMachine.buttonCheckNotice : nil)
    }

    mutating func press(_ role: ButtonRole, at t: MonotonicNanos) {
        guard !state.buttonCheck else { return }
        // GAME-8: the screen changed by itself a moment ago (or after the press's edge): the
        // press was meant for the screen before, whose "go on" has already happened. It never
        // locks in a guess, starts a quest or ends a task the player has not seen.
        if let changed = state.changedByItselfAt, t < changed + QuestMachine.changedByItselfGraceNanos { return }
        if claimPress(role, at: t) { return }
        if pairingPress(role) { return }
        switch state.phase {
        case .idle(let selected, _):
            switch role {
            case .up, .down: moveSelection(from: selected, by: role == .down ? 1 : -1)
            case .lock:
                if let reflection = currentReflection() {
                    offer(reflection, selected: selected, at: t)
                } else {
                    startQuest(selected: selected, at: t)
                }
            case .stop:
                // #32: STOP on the idle screen says its gesture; held 3 s it switches the sounds.
                enterIdle(notice: ScreenPhrases.muteHelp(muted: state.world.settings.soundMuted), expiringAt: t, selected: selected)
                emit(.scheduleTimer(.muteHold, atNanos: t + ms(rules.abandonHoldMs)))
            }
        case .reflection(let reflection, let selected):
            emit(.cancelTimer(.reflectionTimeout))
            dismiss(reflection)
            if role == .lock { startQuest(selected: selected, at: t) } else { enterIdle(notice: nil, selected: selected) }
        case .intro(let page, let selected):
            // GAME-9: LOCK or DOWN goes on (the last page starts the quest), UP goes back,
            // STOP skips to the quest.
            switch role {
            case .lock, .down:
                if page >= IntroScreen.pageCount { startQuest(selected: selected, at: t, introSeen: true) } else { showIntro(page + 1, selected: selected, at: t) }
            case .up: showIntro(max(1, page - 1), selected: selected, at: t)
            case .stop: startQuest(selected: selected, at: t, introSeen: true)
            }
        case .estimating(let run, let index, let estimate):
            // GAME-7: every press while the box waits for a guess puts off the pause.
            if role != .lock { emit(.scheduleTimer(.walkAway, atNanos: t + ms(rules.walkAwayPauseMs))) }
            switch role {
            case .up, .down:
                changeEstimate(run, index, estimate, up: role == .up)
                state.repeats[role] = 0
                emit(.scheduleTimer(.holdRepeat(role), atNanos: t + ms(rules.holdMs)))
            case .lock: lockIn(run, index, estimate, at: t)
            case .stop: emit(.scheduleTimer(.abandonHold, atNanos: t + ms(rules.abandonHoldMs)))
            }
        case .active(let run, let index, let estimate, let lock, _):
            guard role == .stop else { return }  // no other button does anything while timing
            emit(.scheduleTimer(.abandonHold, atNanos: t + ms(rules.abandonHoldMs)))
            // GAME-4: a stop within the guard after lock-in is an accident and is ignored.
            // The press is seen, though: the screen says so for a moment.
            guard t - lock >= ms(state.world.settings.stopGuardMs(rules: rules)) else {
                showActive(run, index, estimate, note: ScreenPhrases.justStarted)
                emit(.scheduleTimer(.noteTimeout, atNanos: t + ms(QuestMachine.noteMs)))
                return
            }
            // The stop edge ends the task (GAME-3); the reveal follows on release, unless the
            // press turns into a 3 s hold to abandon the quest.
            state.phase = .active(run, taskIndex: index, estimateSeconds: estimate, lockNanos: lock, pendingStopNanos: t)
            emit(.playSound(.stop))
            emit(.buzzer(.tap))
        case .revealing(let run, let index):
            advance(from: run, index, at: t)
        case .summary:
            emit(.cancelTimer(.summaryTimeout))
            enterIdle(notice: nil)
        }
    }

    mutating func release(_ role: ButtonRole, at t: MonotonicNanos) {
        state.touched.remove(role)
        guard !state.buttonCheck else { return }
        claimRelease(role)
        switch role {
        case .up, .down:
            state.repeats[role] = nil
            emit(.cancelTimer(.holdRepeat(role)))
        case .stop:
            emit(.cancelTimer(.abandonHold))
            emit(.cancelTimer(.muteHold))
            if case .active(let run, let index, let estimate, let lock, let stop?) = state.phase {
                finishTask(run, index, estimate, lock: lock, stop: stop, at: t)
            }
        case .lock:
            break
        }
    }

    mutating func fire(_ timer: QuestTimer, at t: MonotonicNanos) {
        switch timer {
        case .debounce(let role):
            emit(.readButton(role))
        case .holdRepeat(let role):
            guard case .estimating(let run, let index, let estimate) = state.phase,
                  state.debouncer.isPressed(role), let count = state.repeats[role]
            else { return }
            // At the limit the hold stops repeating: the screen says why, and no timer
            // wakes the box for a press that can change nothing.
            guard changeEstimate(run, index, estimate, up: role == .up) else {
                state.repeats[role] = nil
                return
            }
            state.repeats[role] = count + 1
            emit(.scheduleTimer(.holdRepeat(role), atNanos: t + EstimateStepper.repeatInterval(afterRepeats: count, rules: rules)))
        case .abandonHold:
            guard state.debouncer.isPressed(.stop) else { return }
            switch state.phase {
            case .estimating(let run, _, _), .active(let run, _, _, _, _):
                pause(run, notice: QuestMachine.abandonedNotice)
            default: break
            }
        case .walkAway:
            if case .estimating(let run, _, _) = state.phase {
                state.changedByItselfAt = t
                pause(run, notice: QuestMachine.abandonedNotice)
            }
        case .voiceSettle:
            voiceSettled()
        case .muteHold:
            guard case .idle(let selected, _) = state.phase, state.debouncer.isPressed(.stop), !state.debouncer.isPressed(.down) else { return }
            switchSound(selected: selected, at: t)
        case .taskLimit:
            if case .active(let run, _, _, let lock, _) = state.phase, t - lock >= ms(rules.taskLimitMs) {
                state.changedByItselfAt = t
                abandon(run, notice: QuestMachine.tooLongNotice)
            }
        case .revealTimeout:
            if case .revealing(let run, let index) = state.phase {
                state.changedByItselfAt = t
                advance(from: run, index, at: t)
            }
        case .summaryTimeout:
            if case .summary = state.phase {
                state.changedByItselfAt = t
                enterIdle(notice: nil)
            }
        case .buttonCheckLimit:
            checkButtons(false, at: t)
        case .claimHold, .claimLimit:
            claimTimerFired(timer, at: t)
        case .pairingLimit:
            pairingTimerFired(at: t)
        case .noticeExpiry:
            if case .idle(let selected, let notice?) = state.phase, notice == state.expiringNotice, !state.buttonCheck {
                state.expiringNotice = nil
                enterIdle(notice: nil, selected: selected)
            }
        case .noteTimeout:
            if case .active(let run, let index, let estimate, _, nil) = state.phase { showActive(run, index, estimate, note: nil) }
        case .introTimeout:
            // GAME-9: left alone, the intro steps aside; her next LOCK shows it again.
            if case .intro(_, let selected) = state.phase {
                state.changedByItselfAt = t
                enterIdle(notice: nil, selected: selected)
            }
        case .reflectionTimeout:
            // #48 (seed 000): the card stays until she dismisses it: left alone it steps
            // aside to the quest list and comes first again at her next LOCK.
            if case .reflection(_, let selected) = state.phase {
                state.changedByItselfAt = t
                enterIdle(notice: nil, selected: selected)
            }
        }
    }

    // MARK: idle

    /// #32: the sounds off or on from the box, unless a parent locked the switch; the buzzer
    /// says it was taken, and the sound plays when they come back on.
    mutating func switchSound(selected: UUID?, at t: MonotonicNanos) {
        guard !state.world.settings.lockedSwitches.contains(.mute) else {
            enterIdle(notice: ScreenPhrases.muteLocked, expiringAt: t, selected: selected)
            return
        }
        let muted = !state.world.settings.soundMuted
        state.world.settings.soundMuted = muted
        emit(.persist(.soundMuted(muted)))
        emit(.buzzer(.tap))
        if !muted { emit(.playSound(.estimateTick)) }
        enterIdle(notice: muted ? ScreenPhrases.soundOff : ScreenPhrases.soundOn, expiringAt: t, selected: selected)
    }

    func todaysRoutines() -> [Routine] {
        Routine.availableToday(state.world.routines, now: env.now, calendar: state.world.calendar)
    }

    func playedToday(_ routineID: UUID) -> Bool {
        let cal = state.world.calendar
        return state.world.plays.contains { $0.routineID == routineID && cal.isDate($0.completedAt, inSameDayAs: env.now) }
    }

    /// #48: the quest list with a notice that tells of a moment (a switch, an allowed claim, a
    /// paired phone): a minute later it goes, unless another notice took its place.
    mutating func enterIdle(notice: String, expiringAt t: MonotonicNanos, selected: UUID? = nil) {
        state.expiringNotice = notice
        emit(.scheduleTimer(.noticeExpiry, atNanos: t + QuestMachine.noticeShownNanos))
        enterIdle(notice: notice, selected: selected)
    }

    mutating func enterIdle(notice: String?, selected: UUID? = nil) {
        let today = todaysRoutines()
        var chosen = selected
        if case .idle(let previous, _) = state.phase, chosen == nil { chosen = previous }
        if chosen == nil || !today.contains(where: { $0.id == chosen }) {
            chosen = (today.first { !playedToday($0.id) } ?? today.first)?.id
        }
        state.phase = .idle(selectedRoutineID: chosen, notice: notice)
        state.repeats = [:]
        soundDueReminders(today)
        // PAR-2: while a claim waits, the idle box asks about it instead.
        if showClaimIfWaiting() { return }
        if showPairingIfAny() { return }
        let cal = state.world.calendar
        func reminding(_ r: Routine) -> Bool {
            !playedToday(r.id) && state.world.reminders[r.id].map { cal.isDate($0, inSameDayAs: env.now) } == true
        }
        let options = today.enumerated().map { i, r in
            QuestOption(
                routineID: r.id, name: r.playerFacingName(position: i + 1), badge: r.playerBadge, playedToday: playedToday(r.id),
                reminded: reminding(r) ? true : nil)
        }
        let standing = PlayerStanding.of(state.world, rules: rules, today: env.now)
        emit(.display(.idle(IdleScreen(
            quests: options, selectedIndex: today.firstIndex { $0.id == chosen },
            level: standing.level, levelProgress: standing.levelProgress, streakText: standing.streakText,
            calibrationSessionsLeft: standing.calibrationSessionsLeft,
            reflection: state.world.pendingReflection, notice: notice))))
        let toPlay = options.contains { !$0.playedToday }
        if today.count >= 2, let i = today.firstIndex(where: { $0.id == chosen }) {
            // No screen (§2): the light counts which quest is selected.
            let color: LEDColor = reminding(today[i]) ? .yellow : options[i].playedToday ? .green : .blue
            emit(.led(.questNumber(i + 1, color: color, looping: toPlay)))
        } else {
            emit(.led(today.contains(where: reminding) ? .reminder : toPlay ? .questAvailable : .off))
        }
    }

    /// REM-1: one chime for the reminders that fall due now (only ever while idle: a quest in
    /// progress puts them off until it ends, and a quest played meanwhile settles them).
    mutating func soundDueReminders(_ today: [Routine]) {
        let world = state.world
        let due = ReminderSchedule.due(
            routines: today, plays: world.plays, reminded: world.reminders, settings: world.settings, now: env.now, calendar: world.calendar)
        guard !due.isEmpty else { return }
        for r in due {
            state.world.reminders[r.id] = env.now
            let position = (today.firstIndex { $0.id == r.id } ?? 0) + 1
            emit(.persist(.reminderSounded(routineID: r.id, name: r.playerFacingName(position: position), at: env.now)))
        }
        emit(.playSound(.questAvailable))
    }

    mutating func moveSelection(from selected: UUID?, by delta: Int) {
        let today = todaysRoutines()
        guard !today.isEmpty else { return }
        let current = today.firstIndex { $0.id == selected } ?? 0
        let next = (current + delta + today.count) % today.count
        enterIdle(notice: nil, selected: today[next].id)
        // No screen (§2): the number is felt as well as seen; only when there is a choice.
        if today.count >= 2 { emit(.buzzer(.questNumber(next + 1))) }
    }

    /// REFL-1: the reflection of the week before this one, unless it was dismissed (a stale
    /// one, computed before a week boundary, is dropped).
    mutating func currentReflection() -> WeeklyReflection? {
        guard let reflection = state.world.pendingReflection else { return nil }
        let cal = state.world.calendar
        guard let previous = WeeklyReflectionEngine.previousWeekBounds(from: env.now, calendar: cal),
              WeeklyReflectionEngine.weekIdentifier(ofWeekStarting: previous.start, calendar: cal) == reflection.weekIdentifier
        else {
            state.world.pendingReflection = nil
            return nil
        }
        return reflection
    }

    mutating func offer(_ reflection: WeeklyReflection, selected: UUID?, at t: MonotonicNanos) {
        // #48: the card says her streak as it stands now (seed 000's streak context).
        var reflection = reflection
        let streak = PlayerStanding.of(state.world, rules: rules, today: env.now).streak
        reflection.streak = streak > 0 ? streak : nil
        state.phase = .reflection(reflection, selectedRoutineID: selected)
        emit(.led(.reflection))
        emit(.display(.reflection(reflection)))
        emit(.scheduleTimer(.reflectionTimeout, atNanos: t + ms(rules.reflectionTimeoutMs)))
    }

    /// Dismissed by her press (#48: never by the clock), it is not offered again.
    mutating func dismiss(_ reflection: WeeklyReflection) {
        state.world.pendingReflection = nil
        emit(.persist(.reflectionDismissed(weekIdentifier: reflection.weekIdentifier)))
    }

    func streakText() -> String {
        PlayerStanding.of(state.world, rules: rules, today: env.now).streakText
    }

    // MARK: the quest

    mutating func startQuest(selected: UUID?, at t: MonotonicNanos, introSeen: Bool = false) {
        let today = todaysRoutines()
        guard let position = today.firstIndex(where: { $0.id == selected }) ?? (today.isEmpty ? nil : 0) else { return }
        let routine = today[position]
        if case .intro = state.phase { emit(.cancelTimer(.introTimeout)) }
        // GAME-9: a fresh box explains itself before her first quest (a quest of hers
        // waiting paused means she has played: it is picked up as always).
        if !introSeen, introDue() {
            showIntro(1, selected: routine.id, at: t)
            return
        }
        // PAR-2: playing ends any claim (one from the reflection's screen never showed).
        endClaim(.questStarted, at: t)
        if resumePaused(routine) { return }
        let profile = state.world.profile
        let session = GameSession(
            id: env.newID, routineID: routine.id, routineDisplayName: routine.playerFacingName(position: position + 1),
            startedAt: env.now, startedMonotonicNanos: t, bootID: state.world.bootID,
            isCalibration: CalibrationTracker.isCalibrationSession(completedSessionsBefore: profile.sessionsCompleted, rules: rules))
        let run = QuestRun(
            session: session, routine: routine, questName: session.routineDisplayName, estimations: [], personalBests: [],
            levelAtStart: LevelCalculator.level(fromTotalXP: profile.totalXP, rules: rules))
        emit(.persist(.sessionStarted(session)))
        beginEstimating(run, 0)
    }

    /// GAME-9: her first quest: none completed yet and none waiting paused.
    func introDue() -> Bool {
        state.world.settings.firstQuestIntro && state.world.profile.sessionsCompleted == 0 && state.world.pausedQuests.isEmpty
    }

    mutating func showIntro(_ page: Int, selected: UUID?, at t: MonotonicNanos) {
        state.phase = .intro(page: page, selectedRoutineID: selected)
        emit(.led(.estimating))
        emit(.display(.intro(IntroScreen(page: page, learningQuests: rules.calibrationSessions))))
        emit(.scheduleTimer(.introTimeout, atNanos: t + ms(rules.introTimeoutMs)))
    }

    /// GAME-7: the selected quest's pause from today, picked up at the task where it stopped
    /// (when the routine still begins with the tasks it played). A pause from another day, or
    /// of a routine changed since, stays incomplete and the quest starts afresh.
    mutating func resumePaused(_ routine: Routine) -> Bool {
        guard let i = state.world.pausedQuests.firstIndex(where: { $0.session.routineID == routine.id }) else { return false }
        let paused = state.world.pausedQuests.remove(at: i)
        let played = paused.estimations
        guard paused.resumeIndex(for: routine, now: env.now, calendar: state.world.calendar) != nil else { return false }
        var session = paused.session
        session.status = .inProgress
        session.xpEarned = 0
        let run = QuestRun(
            session: session, routine: routine, questName: session.routineDisplayName, estimations: played, personalBests: [],
            levelAtStart: LevelCalculator.level(fromTotalXP: state.world.profile.totalXP, rules: rules))
        emit(.persist(.sessionResumed(session)))
        // Nothing played yet: the quest simply starts (its first guess screen as always).
        let welcome = played.isEmpty ? nil : ScreenPhrases.welcomeBack(taskNumber: played.count + 1, of: routine.tasks.count)
        beginEstimating(run, played.count, note: welcome)
        return true
    }

    /// `note`: said once instead of the hint (a picked-up quest's welcome).
    mutating func beginEstimating(_ run: QuestRun, _ index: Int, estimate: Int? = nil, note: String? = nil) {
        let task = run.routine.tasks[index]
        let memory = state.world.taskMemory[task.id]
        let first = EstimateStepper.clamp(estimate ?? memory?.lastEstimateSeconds ?? rules.defaultEstimateSeconds, rules: rules)
        state.phase = .estimating(run, taskIndex: index, estimateSeconds: first)
        emit(.led(.estimating))
        showEstimate(run, index, first, note: note)
        // GAME-7: a guess screen nobody answers pauses the quest.
        emit(.scheduleTimer(.walkAway, atNanos: now + ms(rules.walkAwayPauseMs)))
    }

    /// `note`: a refused press's cue, said instead of the hint.
    mutating func showEstimate(_ run: QuestRun, _ index: Int, _ estimate: Int, note: String? = nil) {
        let task = run.routine.tasks[index]
        let hint = note ?? ContextualHint.text(
            recentActuals: state.world.taskMemory[task.id]?.recentActuals ?? [], enabled: state.world.settings.hintsEnabled)
        emit(.display(.estimating(EstimatingScreen(
            questName: run.questName, taskName: task.playerFacingName(position: index + 1), taskNumber: index + 1,
            taskCount: run.routine.tasks.count, estimateSeconds: estimate, hint: hint))))
    }

    /// One step up or down; false at the limit, where there is no tick and the screen says
    /// which limit it is (a refused press gets a cue, not silence).
    @discardableResult
    mutating func changeEstimate(_ run: QuestRun, _ index: Int, _ estimate: Int, up: Bool) -> Bool {
        let next = up ? EstimateStepper.up(estimate, rules: rules) : EstimateStepper.down(estimate, rules: rules)
        guard next != estimate else {
            showEstimate(run, index, estimate, note: up ? ScreenPhrases.longestGuess(estimate) : ScreenPhrases.shortestGuess(estimate))
            return false
        }
        state.phase = .estimating(run, taskIndex: index, estimateSeconds: next)
        emit(.playSound(.estimateTick))
        showEstimate(run, index, next)
        return true
    }

    mutating func cancelButtonTimers() {
        emit(.cancelTimer(.holdRepeat(.up)))
        emit(.cancelTimer(.holdRepeat(.down)))
        emit(.cancelTimer(.abandonHold))
        emit(.cancelTimer(.walkAway))
        state.repeats = [:]
    }

    mutating func lockIn(_ run: QuestRun, _ index: Int, _ estimate: Int, at t: MonotonicNanos) {
        let task = run.routine.tasks[index]
        let record = InProgressTask(
            session: run.session, taskIndex: index, taskID: task.id, estimatedSeconds: estimate, lockMonotonicNanos: t,
            bootID: state.world.bootID, lockedAt: env.now, lockedAtTrusted: env.wallClockTrusted)
        cancelButtonTimers()
        emit(.persist(.taskStarted(record)))
        beginActive(run, index, estimate, lock: t, announce: true)
    }

    mutating func beginActive(_ run: QuestRun, _ index: Int, _ estimate: Int, lock: MonotonicNanos, announce: Bool) {
        state.phase = .active(run, taskIndex: index, estimateSeconds: estimate, lockNanos: lock, pendingStopNanos: nil)
        if announce {
            emit(.playSound(.lockIn))
            emit(.buzzer(state.world.settings.estimateReadBack ? .readBack(seconds: estimate) : .tap))
        }
        emit(.led(.active))
        showActive(run, index, estimate, note: nil)
        emit(.scheduleTimer(.taskLimit, atNanos: lock + ms(rules.taskLimitMs)))
    }

    /// GAME-2: the active screen has the guess and no time; `note` a refused press's cue.
    mutating func showActive(_ run: QuestRun, _ index: Int, _ estimate: Int, note: String?) {
        let task = run.routine.tasks[index]
        emit(.display(.active(ActiveScreen(
            questName: run.questName, taskName: task.playerFacingName(position: index + 1), taskNumber: index + 1,
            taskCount: run.routine.tasks.count, estimateSeconds: estimate, note: note))))
    }

    mutating func finishTask(
        _ run: QuestRun, _ index: Int, _ estimate: Int, lock: MonotonicNanos, stop: MonotonicNanos, at t: MonotonicNanos
    ) {
        var run = run
        let task = run.routine.tasks[index]
        let name = task.playerFacingName(position: index + 1)
        // GAME-3: the duration is the difference of the two press edges' kernel timestamps.
        let result = TimeEstimationScorer.score(estimated: Double(estimate), actual: Double(stop - lock) / 1e9)
        let isCalibration = run.session.isCalibration
        let xp = XPEngine.xpForEstimation(rating: result.rating, rules: rules)
        let previousBest = state.world.taskMemory[task.id]?.bestAbsDifferenceSeconds
        let isBest = PersonalBestTracker.isNewPersonalBest(absDifference: result.absDifferenceSeconds, previousBest: previousBest)
        // The wall time of the stop press, not of its release (calendar use only).
        let recordedAt = env.now.addingTimeInterval(-Double(max(0, t - stop)) / 1e9)
        let estimation = TaskEstimation(
            id: env.newID, sessionID: run.session.id, taskID: task.id, taskDisplayName: name,
            routineDisplayName: run.questName, orderIndex: index, result: result, xpEarned: xp,
            isCalibration: isCalibration, recordedAt: recordedAt, lockMonotonicNanos: lock, stopMonotonicNanos: stop,
            bootID: state.world.bootID)
        state.world.taskMemory[task.id, default: TaskMemory()].record(
            estimatedSeconds: result.estimatedSeconds, actualSeconds: result.actualSeconds,
            absDifference: result.absDifferenceSeconds, isCalibration: isCalibration)
        let pattern = isCalibration ? nil : state.world.taskMemory[task.id]?.bias.insight
        state.world.profile.totalXP += xp
        run.estimations.append(estimation)
        if isBest { run.personalBests.append(name) }
        let isLast = index + 1 >= run.routine.tasks.count
        state.phase = .revealing(run, taskIndex: index)

        emit(.cancelTimer(.taskLimit))
        emit(.persist(.estimationCompleted(estimation)))
        emit(.playSound(.reveal(result.rating)))
        if isBest { emit(.playSound(.personalBest)) }
        emit(.led(.reveal(result.rating)))
        emit(.buzzer(isBest ? .celebration : .reveal(result.rating)))
        emit(.display(.reveal(RevealScreen(
            taskName: name, estimatedSeconds: result.estimatedSeconds, actualSeconds: result.actualSeconds,
            differenceSeconds: result.differenceSeconds, accuracyPercent: result.accuracyPercent, rating: result.rating,
            feedback: FeedbackGenerator.feedback(for: result, isCalibration: isCalibration), xpGained: xp,
            isPersonalBest: isBest, isCalibration: isCalibration, isLastTask: isLast, pattern: pattern))))
        emit(.scheduleTimer(.revealTimeout, atNanos: t + ms(rules.revealTimeoutMs)))
    }

    mutating func advance(from run: QuestRun, _ index: Int, at t: MonotonicNanos) {
        emit(.cancelTimer(.revealTimeout))
        if index + 1 < run.routine.tasks.count {
            beginEstimating(run, index + 1)
        } else {
            completeSession(run, at: t)
        }
    }

    mutating func completeSession(_ run: QuestRun, at t: MonotonicNanos) {
        let world = state.world
        let calendar = world.calendar
        let bonus = rules.xpSessionCompletionBonus
        let sessionXP = run.estimations.reduce(bonus) { $0 + $1.xpEarned }
        var profile = world.profile
        profile.totalXP += bonus
        profile.sessionsCompleted += 1
        let pause = StreakTracker.updatedStreak(
            currentStreak: profile.currentStreak, lastPlayedDate: profile.lastPlayedDate, today: env.now, calendar: calendar)
        profile.currentStreak = pause.currentStreak
        profile.lastPlayedDate = pause.lastPlayedDate

        let play = QuestPlay(routineID: run.routine.id, completedAt: env.now, measuredTaskSeconds: run.estimations.reduce(0) { $0 + $1.actualSeconds })
        // The streak as every surface shows it, before and after this quest (whatever the
        // policy and its switches): a milestone is celebrated when this quest reached it.
        let before = PlayerStanding.of(world, rules: rules, today: env.now).streak
        state.world.profile = profile
        state.world.plays.append(play)
        let after = PlayerStanding.of(state.world, rules: rules, today: env.now).streak
        let milestone: Int? = after > before && StreakTracker.isMilestone(after) ? after : nil

        var session = run.session
        session.completedAt = env.now
        session.status = .completed
        session.xpEarned = sessionXP
        let level = LevelCalculator.level(fromTotalXP: profile.totalXP, rules: rules)
        let leveledUp = level > run.levelAtStart
        state.phase = .summary

        emit(.persist(.sessionCompleted(session)))
        emit(.playSound(leveledUp ? .levelUp : (milestone != nil ? .streakMilestone : .questComplete)))
        emit(.led(.celebration))
        if leveledUp || milestone != nil || !run.personalBests.isEmpty { emit(.buzzer(.celebration)) }
        emit(.display(.summary(SummaryScreen(
            questName: run.questName, sessionXP: sessionXP, totalXP: profile.totalXP, level: level,
            levelProgress: LevelCalculator.progressToNextLevel(totalXP: profile.totalXP, rules: rules), leveledUp: leveledUp,
            personalBests: run.personalBests, streakText: streakText(), streakMilestone: milestone,
            calibrationSessionsLeft: CalibrationTracker.remainingCalibrationSessions(completedSessions: profile.sessionsCompleted, rules: rules)))))
        emit(.scheduleTimer(.summaryTimeout, atNanos: t + ms(rules.summaryTimeoutMs)))
    }

    /// GAME-4: the quest ends unfinished (a task past 3 hours, or one that cannot resume).
    mutating func abandon(_ run: QuestRun, notice: String) { endEarly(run, .abandoned, notice: notice) }

    /// GAME-7 (a walk-away, or STOP held 3 s): back to idle as for a quest not played today;
    /// the played tasks keep their results and XP, and the next lock today picks it up.
    mutating func pause(_ run: QuestRun, notice: String) { endEarly(run, .paused, notice: notice) }

    /// The quest leaves play before its summary, keeping its played tasks' XP.
    mutating func endEarly(_ run: QuestRun, _ status: SessionStatus, notice: String) {
        var session = run.session
        session.status = status
        session.xpEarned = run.estimations.reduce(0) { $0 + $1.xpEarned }
        cancelButtonTimers()
        emit(.cancelTimer(.taskLimit))
        emit(.cancelTimer(.revealTimeout))
        if status == .paused {
            emit(.persist(.sessionPaused(session)))
            state.world.pausedQuests.removeAll { $0.session.routineID == session.routineID }
            state.world.pausedQuests.append(PausedQuest(session: session, estimations: run.estimations))
        } else {
            emit(.persist(.sessionAbandoned(session)))
        }
        state.phase = .idle(selectedRoutineID: run.routine.id, notice: notice)
        enterIdle(notice: notice)
    }

    // MARK: GAME-5

    mutating func restore(_ task: InProgressTask, completed: [TaskEstimation], at t: MonotonicNanos) {
        guard case .idle = state.phase else { return }
        state.changedByItselfAt = t   // GAME-8: a press just after is not the resumed task's STOP
        guard let routine = state.world.routines.first(where: { $0.id == task.session.routineID }),
              let index = routine.tasks.firstIndex(where: { $0.id == task.taskID })
        else {
            // The routine or task is gone: the quest cannot go on.
            var session = task.session
            session.status = .abandoned
            emit(.persist(.sessionAbandoned(session)))
            enterIdle(notice: nil)
            return
        }
        let run = QuestRun(
            session: task.session, routine: routine, questName: task.session.routineDisplayName,
            estimations: completed.filter { $0.sessionID == task.session.id }, personalBests: [],
            levelAtStart: LevelCalculator.level(fromTotalXP: state.world.profile.totalXP - completed.reduce(0) { $0 + $1.xpEarned }, rules: rules))

        if task.bootID == state.world.bootID {
            // Same boot: the monotonic clock kept running, so the duration stays exact.
            guard t - task.lockMonotonicNanos < ms(rules.taskLimitMs) else {
                return abandon(run, notice: QuestMachine.tooLongNotice)
            }
            return beginActive(run, index, task.estimatedSeconds, lock: task.lockMonotonicNanos, announce: false)
        }
        let elapsed = env.now.timeIntervalSince(task.lockedAt)
        if env.wallClockTrusted && task.lockedAtTrusted && elapsed >= 0 {
            // After a reboot only a trusted wall clock can bridge the boots.
            let elapsedNanos = MonotonicNanos((elapsed * 1e9).rounded())
            guard elapsedNanos < ms(rules.taskLimitMs) else { return abandon(run, notice: QuestMachine.tooLongNotice) }
            var moved = task
            moved.lockMonotonicNanos = t - elapsedNanos
            moved.bootID = state.world.bootID
            emit(.persist(.taskStarted(moved)))
            return beginActive(run, index, task.estimatedSeconds, lock: moved.lockMonotonicNanos, announce: false)
        }
        // The time in between is unknown: offer the task again with the same estimate.
        emit(.persist(.inProgressCleared))
        beginEstimating(run, index, estimate: task.estimatedSeconds)
    }
}
