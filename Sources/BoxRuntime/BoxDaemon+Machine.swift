import BoxProtocol
import Foundation
import QuestCore

/// The machine's steps and their effects: what the player hears and sees first, then the
/// write, then the screen and the socket's subscribers.
extension BoxDaemon {
    /// `litAhead`: the LED pattern the press's reflex set already (`PressReflex`), and the one
    /// it replaced.
    func step(_ event: QuestEvent, litAhead: (pattern: LEDPattern, before: LEDPattern)? = nil) {
        let watched = server?.hasSubscribers == true
        let pressedBefore = watched ? ButtonRole.allCases.map { state.debouncer.isPressed($0) } : []
        let checkingBefore = state.buttonCheck
        let wasIdle = if case .idle = state.phase { true } else { false }
        let (next, effects) = QuestMachine.step(state, event, env: environment())
        state = next
        // #36: a while after a quest the pages it mapped go back (a quest in play keeps them).
        // Only when idle changed: no clock read on a press's way to its LED otherwise.
        let isIdle = if case .idle = state.phase { true } else { false }
        if isIdle != wasIdle { memory.idleChanged(toIdle: isIdle, at: clock.monotonicNanos()) }
        if state.buttonCheck != checkingBefore {
            // Ended by its time limit or a quest: nobody holds it any more.
            if !state.buttonCheck { socket.holds.buttonCheckEnded() }
            logger.info("button check", metadata: ["on": "\(state.buttonCheck)"])
            server?.broadcast(.event("box") { $0.box = status() })
        }
        // Told to the subscribers after the lines are set (#34: told before them, each press
        // on a box followed by `questbox link` waited for its JSON and its write: the loop's
        // own work before the LED went from 0.7 to 1.7 ms in the HIL figures).
        var presses: [BoxMessage] = []
        if watched {
            for (i, role) in ButtonRole.allCases.enumerated() where state.debouncer.isPressed(role) != pressedBefore[i] {
                let pressed = state.debouncer.isPressed(role)
                presses.append(.event("press") { $0.button = role.rawValue; $0.pressed = pressed })
            }
        }
        perform(effects, announcing: presses, litAhead: litAhead)
        // After the LED, buzzer and sound: a dark screen lights at any press.
        if case .button(_, pressed: true, _) = event { display.wake() }
        if case .touch(_, pressed: true, _) = event { display.wake() }
        // A debounce window closed: the line's real level settles what its edges left open.
        for case .readButton(let role) in effects {
            // Edges that arrived since the last poll come first: the read is newer than them.
            for edge in hardware.intake.waitingEdges() { step(.button(edge.role, pressed: edge.pressed, atNanos: edge.atNanos)) }
            do {
                let level = try hardware.intake.level(of: role)
                let readAt = clock.monotonicNanos()
                logger.debug("level", metadata: ["button": "\(role)", "pressed": "\(level)", "ns": "\(readAt)"])
                step(.buttonLevel(role, pressed: level, atNanos: readAt))
            } catch {
                logger.error("reading a button failed", metadata: ["button": "\(role)", "error": "\(error)"])
            }
        }
    }

    /// `presses`: the press events that led here, told to the subscribers before the effects'
    /// own events and after everything the player notices. `litAhead`: the pattern a press's
    /// reflex set before the step, and the one it replaced.
    func perform(_ effects: [QuestEffect], announcing presses: [BoxMessage] = [], litAhead: (pattern: LEDPattern, before: LEDPattern)? = nil) {
        // What the player hears and sees goes first: a database write (an SD card's fsync
        // can take tens of milliseconds) must not delay the reveal. Each pattern is timed
        // from the moment its first value is set. The write follows at once, before the
        // next event is read. The lines are set before anything else: the timers' system
        // calls and the sound come after them (waking the real-time audio thread can take
        // this thread's CPU for its mixing), and a line set is one ioctl.
        var ahead = litAhead
        for effect in effects {
            switch effect {
            case .led(let pattern):
                // The step's first pattern is the reflex's: already on, timed from its press.
                if let lit = ahead?.pattern, lit == pattern {
                    ahead = nil
                    continue
                }
                if let lit = ahead?.pattern { reflexMissed(lit: lit, step: pattern) }
                ahead = nil
                hardware.outputs.showMachine(pattern, at: clock.monotonicNanos())
            case .buzzer(let pattern):
                hardware.outputs.buzz(pattern, at: clock.monotonicNanos())
            case .playSound, .persist, .display, .scheduleTimer, .cancelTimer, .readButton, .claimChanged, .speak, .cutSpeech:
                break
            }
        }
        if let ahead {
            // The step lit nothing: the pattern before the press comes back.
            reflexMissed(lit: ahead.pattern, step: nil)
            hardware.outputs.showMachine(ahead.before, at: clock.monotonicNanos())
        }
        memory.timers.apply(effects)
        // The idle gesture's switch (#32) applies before its own confirming sound.
        for case .persist(.soundMuted(let muted)) in effects { applySoundSwitch(muted: muted) }
        for case .playSound(let s) in effects { sound.play(s) }
        // The words after the sound they follow (the mixer holds them until it ends).
        for effect in effects {
            switch effect {
            case .speak(let words, let until):
                speech?.say(words, notAfter: until)
                logger.debug("speak", metadata: ["words": "\(words)"])
            case .cutSpeech: speech?.cut()
            default: break
            }
        }
        if let server { for press in presses { server.broadcast(press) } }
        for effect in effects {
            switch effect {
            case .persist(let request):
                if case .reminderSounded(_, let name, _) = request { logger.info("reminder sounded", metadata: ["routine": "\(name)"]) }
                save(request)
            case .display(let screen):
                memory.lastScreen = screen
                display.show(screen, notice: persist.notice)
            case .claimChanged(let update):
                claimMoved(update)
            case .playSound, .led, .buzzer, .scheduleTimer, .cancelTimer, .readButton, .speak, .cutSpeech:
                break
            }
            // Subscribers hear of it after the player did.
            if let server, server.hasSubscribers {
                for event in BoxMessage.events(for: effect, notice: persist.notice) { server.broadcast(event) }
            }
        }
        hardware.outputs.playCueWhenFree(at: clock.monotonicNanos())
        memory.nextID = Self.randomID()
    }

    /// What the next press of each button lights, once the state has settled in a tick
    /// (after its sound, store write and socket: none of that waits for this).
    /// The board is armed with it: a press's edge sets its first colour as it is read.
    func workOutReflex() {
        guard memory.reflex == nil else { return }
        let reflex = QuestMachine.pressReflex(state, env: environment(), at: clock.monotonicNanos())
        memory.reflex = reflex
        hardware.board.armPressLights(reflex.presses.compactMap { press in
            press.pattern.steps.first.map { (press.role, $0.color, press.fromNanos) }
        })
    }

    /// The board lit a press the reflex does not hold (a defect: the two are armed together):
    /// the machine's pattern comes back, and the step sets its own.
    func pressLitWithoutReflex(_ color: LEDColor) {
        memory.reflexMisses += 1
        logger.warning("press reflex missed", metadata: ["lit": "\(color)", "step": "not asked"])
        hardware.outputs.showMachine(hardware.outputs.machineLED, at: clock.monotonicNanos())
    }

    /// The reflex and the step disagreed (the step's pattern is what shows): a defect of
    /// `PressReflex`, one line for the tests and the journal to find.
    func reflexMissed(lit: LEDPattern, step: LEDPattern?) {
        memory.reflexMisses += 1
        logger.warning("press reflex missed", metadata: ["lit": "\(lit)", "step": "\(step.map { "\($0)" } ?? "none")"])
    }

    func environment() -> QuestEnvironment {
        QuestEnvironment(now: clock.wallNow(), newID: memory.nextID, wallClockTrusted: clock.isWallClockTrusted())
    }

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

    /// The sounds off or on from the box; the volume is the stored one (read once, on a
    /// gesture a person makes now and then, never on a quest's path).
    func applySoundSwitch(muted: Bool) {
        let volume = (try? db.settings.current().volumePercent) ?? 80
        sound.apply(soundEnabled: !muted, volumePercent: volume)
        logger.info("sound switched at the box", metadata: ["muted": "\(muted)"])
    }

    // MARK: saving

    /// Writes a play, or keeps it in memory when the store fails (a full or read-only card):
    /// the player sees the result with a "not saved" cue, and the write is retried.
    func save(_ request: PersistRequest) {
        if !persist.save(request, wallClockTrusted: clock.isWallClockTrusted(), at: clock.monotonicNanos()) {
            hardware.outputs.cueNotSaved()
            showAgain()
        }
    }

    /// Writes what waits; once all is saved, the notice goes from every surface.
    func retryWrites(at now: MonotonicNanos) {
        if persist.retry(at: now) { showAgain() }
    }

    /// The last screen again, with or without the "not saved" notice, on every surface.
    func showAgain() {
        guard let screen = memory.lastScreen else { return }
        let notice = persist.notice
        display.show(screen, notice: notice)
        server?.broadcast(.event("screen") { $0.screen = ScreenPayload(screen); $0.notice = notice })
        server?.broadcast(.event("box") { $0.box = status() })
    }
}
