/// PRIV-1 (#48): her phone is paired to show her pages by her own act at the box, with no
/// parent. Her phone asks (the web app, over the box's socket); the idle box's own screen
/// and voice give a six-digit code; she types it on the phone. Only someone who sees or
/// hears the box learns the code, so a stranger on the Wi-Fi who asks gets a code he cannot
/// read. The box gives one phone's code at a time, only while idle and asking nothing else
/// (a parent's claim comes first, and waits while a code shows), for 2 minutes; any button
/// takes the code away (LOCK then plays, as always).

/// A phone's code the box shows (`id`: the asker's name for it, never its secret).
/// Its 2 minutes are the `pairingLimit` timer's.
public struct PendingPairing: Codable, Equatable, Sendable {
    public var id: String
    public var code: String

    public init(id: String, code: String) {
        self.id = id
        self.code = code
    }
}

/// What the web app asks of the box for a phone.
public enum PairingRequest: Codable, Equatable, Sendable {
    /// Show `code` for the phone that asked.
    case show(id: String, code: String)
    /// The phone typed the code: the box says it is paired and goes back to its idle screen.
    case paired(id: String)
    /// Taken back (five wrong codes on the phone).
    case cancel(id: String)
}

/// The box gives a phone's code (on its OLED, terminal and kiosk).
public struct PairingScreen: Codable, Equatable, Sendable {
    public var code: String

    public init(code: String) { self.code = code }

    /// The code in two halves, as a phone number is read ("538 102").
    public var spacedCode: String {
        code.count == QuestMachine.pairingCodeDigits ? "\(code.prefix(3)) \(code.suffix(3))" : code
    }

    /// The screen with its code left out: what every surface off the box shows (the web
    /// app's pages, API and events), so only someone at the box reads it.
    public var withoutCode: PairingScreen { PairingScreen(code: "") }
}

extension Screen {
    /// PRIV-1: the screen as a surface off the box may show it (a phone's code left out).
    public var withoutSecrets: Screen {
        if case .pairing(let pairing) = self { return .pairing(pairing.withoutCode) }
        return self
    }
}

extension QuestMachine {
    public static let pairingCodeDigits = 6
    /// How long the box shows a phone's code.
    public static let pairingShownNanos: MonotonicNanos = 120 * 1_000_000_000

    /// A phone's code: exactly `pairingCodeDigits` ASCII digits.
    public static func isPairingCode(_ text: String) -> Bool {
        text.utf8.count == pairingCodeDigits && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}

extension Reducer {
    /// Whether a phone's code may show: the idle box, no button check. (A new code also
    /// waits for no claim; a claim that comes while a code shows waits for it.)
    var pairingCanShow: Bool {
        guard case .idle = state.phase else { return false }
        return !state.buttonCheck
    }

    /// The asker learns the outcome from the state (`pairing?.id`): shown, or refused.
    mutating func handlePairing(_ request: PairingRequest, at t: MonotonicNanos) {
        switch request {
        case .show(let id, let code):
            guard state.pairing == nil, state.claim == nil, pairingCanShow, QuestMachine.isPairingCode(code) else { return }
            state.pairing = PendingPairing(id: id, code: code)
            emit(.scheduleTimer(.pairingLimit, atNanos: t + QuestMachine.pairingShownNanos))
            emit(.buzzer(.tap))
            enterIdle(notice: nil)
        case .paired(let id):
            guard state.pairing?.id == id else { return }
            state.pairing = nil
            emit(.cancelTimer(.pairingLimit))
            emit(.buzzer(.celebration))
            enterIdle(notice: ScreenPhrases.phonePaired, expiringAt: t)
        case .cancel(let id):
            guard state.pairing?.id == id else { return }
            endPairing()
        }
    }

    /// Called by `enterIdle`: the code instead of the idle screen while one stands.
    mutating func showPairingIfAny() -> Bool {
        guard let pairing = state.pairing else { return false }
        guard pairingCanShow else {
            // A quest or a button check took the box: the code is gone.
            state.pairing = nil
            emit(.cancelTimer(.pairingLimit))
            return false
        }
        emit(.display(.pairing(PairingScreen(code: pairing.code))))
        return true
    }

    /// A press while a code shows takes it away; LOCK then plays. True when the press was
    /// the code's.
    mutating func pairingPress(_ role: ButtonRole) -> Bool {
        guard state.pairing != nil, pairingCanShow else { return false }
        endPairing()
        return role != .lock
    }

    mutating func pairingTimerFired(at t: MonotonicNanos) {
        guard state.pairing != nil else { return }
        // GAME-8: the box changed screen by itself; a press meant for the code is not a LOCK.
        state.changedByItselfAt = t
        endPairing()
    }

    /// The code is gone; the idle screen comes back.
    mutating func endPairing() {
        state.pairing = nil
        emit(.cancelTimer(.pairingLimit))
        if case .idle = state.phase { enterIdle(notice: nil) }
    }
}
