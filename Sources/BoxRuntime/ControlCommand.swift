import BoxProtocol
import QuestCore

/// One socket request, checked: what the box is asked to do, or the one-line error the
/// client gets (naming the field and the value). Deciding is pure; the daemon carries it out.
enum ControlCommand: Equatable, Sendable {
    case state
    case reload
    /// A wiring check: any of an LED colour (2 s), a buzzer pattern and a sound.
    case testOutput(led: LEDColor?, buzzer: BuzzerPattern?, sound: SoundID?)
    case press(ButtonRole, SocketPress)
    /// #33: a button on a paired touch kiosk (the web app checks the pairing).
    case touch(ButtonRole, SocketPress)
    case buttonCheck(start: Bool)
    /// PAR-2: show a PIN claim (start) or take it back (stop).
    case claim(id: String, start: Bool, reset: Bool, match: String)
    /// #34: the house's reminder now, and its sound switch (Home Assistant's button and switch).
    case house(HouseRequest)
    /// PRIV-1: a phone's code shown, typed ("done") or taken back.
    case pairing(PairingRequest)

    /// The command `request` asks for, as far as the box's phase (and a parent's locks on the
    /// player's switches, `locked`) allows it.
    static func decide(
        _ request: BoxRequest, phase: QuestPhase, allowPress: Bool, locked: Set<PlayerSwitch> = []
    ) -> Result<ControlCommand, ControlRefusal> {
        let idle: Bool
        if case .idle = phase { idle = true } else { idle = false }
        switch request.command {
        case "subscribe", "state":
            return .success(.state)
        case "reload":
            return .success(.reload)
        case "test-output":
            guard idle else { return .refused("test-output: a quest is running (\(phase.name)); wiring checks wait until it ends") }
            return testOutput(request)
        case "press":
            guard allowPress else {
                return .refused("press: this board's buttons are pressed by hand (a board profile allows it with control.socket_press)")
            }
            return button(request).map { .press($0.role, $0.action) }
        case "touch":
            // Any board: a touch screen may be a box's only buttons. Never a claim's act (the
            // machine knows a touch from the box's own press).
            return button(request).map { .touch($0.role, $0.action) }
        case "button-check":
            switch request.action ?? "start" {
            case "start":
                guard idle else { return .refused("button-check: a quest is running (\(phase.name)); the check waits until it ends") }
                return .success(.buttonCheck(start: true))
            case "stop":
                return .success(.buttonCheck(start: false))
            default:
                return notOneOf(request.action, ["start", "stop"])
            }
        case "claim":
            guard let id = request.claim, isClaimName(id) else {
                return .refused("claim: give the claim a name of 1 to 64 letters, digits or dashes")
            }
            switch request.action ?? "start" {
            case "start":
                guard let match = request.match, QuestMachine.isClaimMatch(match) else {
                    return .refused("claim: give the code the asking page shows (match), \(QuestMachine.claimMatchDigits) digits")
                }
                return .success(.claim(id: id, start: true, reset: request.reset ?? false, match: match))
            case "stop": return .success(.claim(id: id, start: false, reset: false, match: ""))
            default: return notOneOf(request.action, ["start", "stop"])
            }
        case "pair":
            guard let id = request.pair, isClaimName(id) else {
                return .refused("pair: give the phone a name of 1 to 64 letters, digits or dashes")
            }
            switch request.action ?? "show" {
            case "show":
                guard idle else { return .refused("pair: a quest is running (\(phase.name)); the box gives a phone's code only between quests") }
                guard let code = request.code, QuestMachine.isPairingCode(code) else {
                    return .refused("pair: give the code the box shows (code), \(QuestMachine.pairingCodeDigits) digits")
                }
                return .success(.pairing(.show(id: id, code: code)))
            case "done": return .success(.pairing(.paired(id: id)))
            case "stop": return .success(.pairing(.cancel(id: id)))
            default: return notOneOf(request.action, ["show", "done", "stop"])
            }
        case "remind":
            guard idle else { return .refused("remind: a quest is running (\(phase.name)); the box reminds only between quests") }
            return .success(.house(.remindNow))
        case "mute":
            // #48: said to the asker (Home Assistant's switch), not dropped unseen.
            guard !locked.contains(.mute) else { return .refused("mute: a parent locked the sound switch") }
            switch request.action {
            case "on": return .success(.house(.sound(muted: true)))
            case "off": return .success(.house(.sound(muted: false)))
            default: return notOneOf(request.action, ["on", "off"])
            }
        default:
            return .refused("command: unknown")
        }
    }

    private static func button(_ request: BoxRequest) -> Result<(role: ButtonRole, action: SocketPress), ControlRefusal> {
        guard let role = request.button.flatMap(ButtonRole.init(rawValue:)) else {
            return .failure(ControlRefusal(message: "button: \"\(DisplayText.escaped(request.button ?? ""))\" is not one of \(ButtonRole.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        guard let action = SocketPress(rawValue: request.action ?? "tap") else {
            return .failure(ControlRefusal(message: "action: \"\(DisplayText.escaped(request.action ?? ""))\" is not one of \(SocketPress.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        return .success((role, action))
    }

    private static func testOutput(_ request: BoxRequest) -> Result<ControlCommand, ControlRefusal> {
        var led: LEDColor?, buzzer: BuzzerPattern?, sound: SoundID?
        if let name = request.led {
            guard let color = LEDColor(rawValue: name) else {
                return .refused("led: \"\(DisplayText.escaped(name))\" is not a colour (\(LEDColor.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            led = color
        }
        if let name = request.buzzer {
            guard let pattern = BuzzerPattern.testable.first(where: { $0.name == name }) else {
                return .refused("buzzer: \"\(DisplayText.escaped(name))\" is not a pattern (\(BuzzerPattern.testable.map(\.name).joined(separator: ", ")))")
            }
            buzzer = pattern
        }
        if let name = request.sound {
            guard let id = SoundID(rawValue: name) else {
                return .refused("sound: \"\(DisplayText.escaped(name))\" is not a sound (\(SoundID.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            sound = id
        }
        guard led != nil || buzzer != nil || sound != nil else { return .refused("test-output: name an led, a buzzer pattern or a sound") }
        return .success(.testOutput(led: led, buzzer: buzzer, sound: sound))
    }

    private static func notOneOf(_ action: String?, _ allowed: [String]) -> Result<ControlCommand, ControlRefusal> {
        .refused("action: \"\(DisplayText.escaped(action ?? ""))\" is not one of \(allowed.joined(separator: ", "))")
    }

    /// A claim's name: 1 to 64 ASCII letters, digits or dashes.
    static func isClaimName(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D }
    }
}

/// Why a request is refused: the error line its reply carries.
struct ControlRefusal: Error, Equatable {
    let message: String
}

extension Result where Success == ControlCommand, Failure == ControlRefusal {
    static func refused(_ message: String) -> Self { .failure(ControlRefusal(message: message)) }
}
