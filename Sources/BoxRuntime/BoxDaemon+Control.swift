import BoxProtocol
import BuildVersion
import Logging
import QuestCore

/// The socket's commands carried out (`ControlCommand` decides what a request asks for).
extension BoxDaemon {
    func status() -> BoxStatus {
        BoxStatus(
            board: board.profile.name, soundDevice: socket.control?.soundDevice(), clockTrusted: day.wallClockTrusted, dataVersion: follower.reads,
            unsavedPlays: persist.waiting, phase: state.phase.name, buttonCheck: state.buttonCheck,
            version: BuildVersion.text, upMinutes: Int(max(0, clock.monotonicNanos() - loop.startedNanos) / 60_000_000_000))
    }

    func handle(_ request: BoxRequest, from client: Int32) -> BoxMessage {
        switch ControlCommand.decide(
            request, phase: state.phase, allowPress: socket.control?.allowPress == true, locked: state.world.settings.lockedSwitches) {
        case .failure(let refusal):
            return .reply(to: request, error: refusal.message)
        case .success(let command):
            return carryOut(command, request, from: client)
        }
    }

    private func carryOut(_ command: ControlCommand, _ request: BoxRequest, from client: Int32) -> BoxMessage {
        var reply = BoxMessage.reply(to: request)
        let now = clock.monotonicNanos()
        switch command {
        case .state:
            reply.screen = memory.lastScreen.map(ScreenPayload.init)
            reply.notice = persist.notice
        case .reload:
            reply.applied = reload(reason: "requested")
        case .testOutput(let led, let buzzer, let sound):
            testOutput(led: led, buzzer: buzzer, sound: sound, at: now)
            logger.info("wiring check", metadata: ["led": "\(request.led ?? "-")", "buzzer": "\(request.buzzer ?? "-")", "sound": "\(request.sound ?? "-")"])
            return reply
        case .press(let role, let action):
            // Stamped now on CLOCK_MONOTONIC, as a line's edge would be.
            step(.button(role, pressed: hardware.intake.push(role, action), atNanos: now))
            return reply
        case .touch(let role, let action):
            step(.touch(role, pressed: hardware.intake.push(role, action), atNanos: now))
            return reply
        case .buttonCheck(start: true):
            // The parent's wiring check and the first-run presence press hold the buttons for
            // as long as the asking client stays (at most the machine's limit): presses are
            // told to subscribers and start no quest.
            socket.holds.holdButtonCheck(client)
            if !state.buttonCheck { step(.buttonCheck(on: true, atNanos: now)) }
        case .buttonCheck(start: false):
            releaseButtonCheck(of: [client])
        case .claim(let id, start: true, let reset, let match):
            // PAR-2, #47: one claim at a time, and the first keeps the box (a second is refused,
            // so the act confirms only the claim whose code the box shows). The client that
            // asked holds it; its leaving ends it.
            if let held = socket.holds.claim, held.id != id {
                return .reply(to: request, error: "claim: the box shows another claim; one at a time")
            }
            socket.holds.holdClaim(id, by: client)
            step(.claim(.start(id: id, reset: reset, match: match), atNanos: now))
        case .claim(let id, start: false, _, _):
            guard socket.holds.claim?.id == id else { return .reply(to: request, error: "claim: \"\(id)\" is not the claim the box shows") }
            step(.claim(.cancel(id: id), atNanos: now))
        case .pairing(let pairing):
            // PRIV-1: the reply says whether the box shows the code (or took it as typed);
            // the web app pairs the phone only on a yes.
            switch pairing {
            case .show(let id, _):
                step(.pairing(pairing, atNanos: now))
                guard state.pairing?.id == id else {
                    let why = state.claim != nil ? "the box asks about a parent's claim now"
                        : state.buttonCheck ? "the box is checking its buttons" : "the box shows another phone's code; one at a time"
                    return .reply(to: request, error: "pair: \(why)")
                }
                logger.notice("phone pairing code shown", metadata: ["pair": "\(id)"])
            case .paired(let id):
                guard state.pairing?.id == id else {
                    return .reply(to: request, error: "pair: the box no longer shows that code (a button was pressed, or 2 minutes passed)")
                }
                step(.pairing(pairing, atNanos: now))
                logger.notice("phone paired at the box", metadata: ["pair": "\(id)"])
            case .cancel(let id):
                step(.pairing(pairing, atNanos: now))
                logger.notice("phone pairing code taken back", metadata: ["pair": "\(id)"])
            }
        case .house(let houseRequest):
            // The reply says whether anything changed: a reminder with every quest of today
            // played, or a switch a parent locked, is refused in words.
            let remindersBefore = state.world.reminders
            step(.house(houseRequest, atNanos: now))
            switch houseRequest {
            case .remindNow where state.world.reminders == remindersBefore:
                return .reply(to: request, error: "remind: every quest of today is played (or the box is checking its buttons)")
            case .sound(let muted) where state.world.settings.soundMuted != muted:
                return .reply(to: request, error: "mute: a parent locked the sound switch")
            default:
                logger.notice("house request", metadata: ["command": "\(request.command)", "action": "\(request.action ?? "-")"])
            }
        }
        reply.box = status()
        return reply
    }

    /// A wiring check: an LED colour for 2 s, a buzzer pattern, a sound (only when idle).
    private func testOutput(led color: LEDColor?, buzzer pattern: BuzzerPattern?, sound id: SoundID?, at now: MonotonicNanos) {
        if let color {
            hardware.outputs.testLED(color, at: now)
            server?.broadcast(.event("led") { $0.pattern = "test-\(color.rawValue)" })
        }
        if let pattern {
            hardware.outputs.buzz(pattern, at: now)
            for event in BoxMessage.events(for: .buzzer(pattern)) { server?.broadcast(event) }
        }
        if let id {
            sound.play(id)
            for event in BoxMessage.events(for: .playSound(id)) { server?.broadcast(event) }
        }
    }

    /// Socket clients left: what they held ends with them.
    func clientsLeft(_ departed: [Int32]) {
        releaseButtonCheck(of: departed)
        if let id = socket.holds.claimHeld(byAnyOf: departed) { step(.claim(.cancel(id: id), atNanos: clock.monotonicNanos())) }
    }

    /// These clients let go of the button check (or left); the last one ends it. (A check
    /// on always has a holder: they are cleared when it ends by itself.)
    func releaseButtonCheck(of clients: [Int32]) {
        if socket.holds.releaseButtonCheck(clients), state.buttonCheck {
            step(.buttonCheck(on: false, atNanos: clock.monotonicNanos()))
        }
    }

    /// A claim moved on: one journal line; its holder lets go once it is over.
    func claimMoved(_ update: ClaimUpdate) {
        var metadata: Logger.Metadata = ["claim": "\(update.id)", "progress": "\(update.progress.rawValue)"]
        if let reason = update.reason { metadata["reason"] = "\(reason.rawValue)" }
        logger.notice("parent PIN claim", metadata: metadata)
        if update.progress == .confirmed || update.progress == .ended { socket.holds.claimEnded(update.id) }
    }
}
