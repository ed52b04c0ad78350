import BoxProtocol
import Foundation
import Logging
import QuestCore
import QuestStore
import Synchronization
import SystemClock

/// PRIV-1 (#48): her phone is paired to show her pages by her own act at the box, no parent
/// needed. The phone asks (a button on the page her pages give an unpaired browser); the
/// idle box's own screen and voice give a six-digit code for 2 minutes; she types it on the
/// phone, which is then paired to show her pages and press nothing. Only someone at the box
/// learns the code: a stranger on the Wi-Fi who asks gets a code he cannot read, and while
/// it shows nobody else may ask (the box's buttons take it away).
///
/// Bounds, as the parent's claim has them: asks at most one per 2 seconds, 5 per 15 minutes
/// from one client address and 20 in all; a code gets 5 tries; 10 wrong codes in all shut
/// code entry for 15 minutes (a six-digit code must not fall to a patient script).
final class PhonePairing: Sendable {
    enum Ask: Equatable, Sendable {
        /// The box shows a code for this browser now.
        case shown
        /// The box cannot give one now (its words say why and what to do).
        case refused(String)
        /// Too many asks: the seconds until the next may start.
        case tooMany(retryAfter: Int)
    }

    enum Entry: Equatable, Sendable {
        /// The code was the box's, and the box took it: pair the browser now.
        case paired
        case wrong(triesLeft: Int)
        /// No code waits for this browser any more (its words say why).
        case over(String)
    }

    struct Waiting {
        /// The browser's kiosk token (its cookie): the one that asked.
        var token: String
        /// The code's name at the box (told in its journal, so never the token).
        var boxName: String
        var code: String
        var askedAt: Int64
        var wrongTries = 0
    }

    static let triesPerCode = 5
    static let wrongCodesBeforePause = 10
    static let pauseNanos: Int64 = 15 * 60 * 1_000_000_000
    static let spacingNanos: Int64 = 2 * 1_000_000_000
    static let asksPerClient = 5
    static let asksInAll = 20
    static let periodNanos: Int64 = 15 * 60 * 1_000_000_000

    private struct State {
        var waiting: Waiting?
        var asks = StartLimits(
            spacingNanos: PhonePairing.spacingNanos, perClient: PhonePairing.asksPerClient,
            inAll: PhonePairing.asksInAll, periodNanos: PhonePairing.periodNanos)
        var wrongCodes: [Int64] = []
    }
    private let state = Mutex(State())
    let clock: any SystemClock
    let box: BoxLink
    let logger: Logger

    init(clock: any SystemClock, box: BoxLink, logger: Logger = Logger(label: "questbox-web")) {
        self.clock = clock
        self.box = box
        self.logger = logger
    }

    /// The box shows a code for the browser keeping `token` now.
    func isWaiting(_ token: String?) -> Bool {
        let now = clock.monotonicNanos()
        return state.withLock { s in
            guard let token, let w = s.waiting else { return false }
            return w.token == token && now - w.askedAt < QuestMachine.pairingShownNanos
        }
    }

    /// Asks the box to give a code for the browser keeping `token` (`client`: its address,
    /// which bounds its own asks).
    func ask(token: String, client: String) async -> Ask {
        let now = clock.monotonicNanos()
        let name = "phone-" + RandomText.hex(bytes: 8)
        let code = RandomText.digits(6)
        let decided = state.withLock { s -> Ask? in
            if let w = s.waiting, now - w.askedAt < QuestMachine.pairingShownNanos {
                return w.token == token ? .shown : .refused(Self.anotherPhone)
            }
            s.waiting = nil
            switch s.asks.take(client: client, at: now) {
            case .tooSoon: return .tooMany(retryAfter: Int(Self.spacingNanos / 1_000_000_000))
            case .tooMany(let retryAfter): return .tooMany(retryAfter: retryAfter)
            case nil: break
            }
            // Held while the box is asked, so a second asker meanwhile is refused.
            s.waiting = Waiting(token: token, boxName: name, code: code, askedAt: now)
            return nil
        }
        if let decided { return decided }
        switch await box.exchange(BoxRequest(command: "pair", action: "show", pair: name, code: code)) {
        case .success:
            logger.notice("phone pairing: the box gives a code", metadata: ["pair": "\(name)"])
            return .shown
        case .failure(let refusal):
            state.withLock { s in if s.waiting?.boxName == name { s.waiting = nil } }
            switch refusal {
            case .offline: return .refused("The box is not running, so it cannot give a code. A parent can pair this phone in the parent area (Paired screens).")
            case .refused(let why):
                logger.notice("phone pairing: the box gives no code", metadata: ["reason": "\(why)"])
                return .refused(Self.words(why))
            }
        }
    }

    /// The code typed on the browser keeping `token`.
    func enter(code typed: String, token: String?) async -> Entry {
        let now = clock.monotonicNanos()
        let code = typed.filter { !$0.isWhitespace }
        enum Next { case answer(Entry), confirm(String), takeBack(String, Entry) }
        let next = state.withLock { s -> Next in
            s.wrongCodes = s.wrongCodes.filter { now - $0 < Self.pauseNanos }
            guard s.wrongCodes.count < Self.wrongCodesBeforePause else {
                return .answer(.over("Too many wrong codes. Try again in 15 minutes, or ask a parent to pair this phone."))
            }
            guard let token, var w = s.waiting, w.token == token else { return .answer(.over("No code waits for this phone. Ask again.")) }
            guard now - w.askedAt < QuestMachine.pairingShownNanos else {
                s.waiting = nil
                return .answer(.over("The 2 minutes ran out. Ask again."))
            }
            if CSRFTokens.equalInConstantTime(w.code, code) {
                s.waiting = nil
                return .confirm(w.boxName)
            }
            w.wrongTries += 1
            s.wrongCodes.append(now)
            guard w.wrongTries < Self.triesPerCode else {
                s.waiting = nil
                return .takeBack(w.boxName, .over("Five wrong codes. Ask again for a new one."))
            }
            s.waiting = w
            return .answer(.wrong(triesLeft: Self.triesPerCode - w.wrongTries))
        }
        switch next {
        case .answer(let entry):
            return entry
        case .takeBack(let name, let entry):
            _ = await box.exchange(BoxRequest(command: "pair", action: "stop", pair: name))
            logger.warning("phone pairing: five wrong codes", metadata: ["pair": "\(name)"])
            return entry
        case .confirm(let name):
            // The box has the last word: a code it took away (a button, its 2 minutes) pairs nothing.
            switch await box.exchange(BoxRequest(command: "pair", action: "done", pair: name)) {
            case .success:
                logger.notice("phone pairing: the code was typed", metadata: ["pair": "\(name)"])
                return .paired
            case .failure(.refused):
                return .over("The box no longer shows that code (a button was pressed there, or 2 minutes passed). Ask again.")
            case .failure(.offline):
                return .over("The box stopped running. Ask again once it is back.")
            }
        }
    }

    static let anotherPhone = "The box shows another phone's code right now. If nobody at the box asked, press UP there; then ask again."

    /// The box's refusal in the page's words.
    static func words(_ refusal: String) -> String {
        if refusal.contains("quest is running") { return "The box is in a quest. Ask again when it shows the quest list." }
        if refusal.contains("claim") { return "The box is asking about a parent's set-up right now. Ask again in a few minutes." }
        if refusal.contains("checking its buttons") { return "A parent is checking the box's buttons. Ask again when that is done." }
        if refusal.contains("another phone") { return anotherPhone }
        return "The box gives no code now: \(DisplayText.escaped(refusal))"
    }
}
