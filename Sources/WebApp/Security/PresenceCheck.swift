import BoxProtocol
import Foundation
import Hummingbird
import Logging
import QuestCore
import QuestStore
import Synchronization
import SystemClock

/// PAR-2: nobody on the network claims the box. Setting the parent PIN (the first, or a new
/// one when it is forgotten) needs a deliberate act at the box that play never uses: the
/// web app asks the box to show the claim (`claim` over its socket), the idle box's own
/// screen, light and buzzer ask, and STOP and DOWN held together for 3 s allow it. A quest's
/// presses never count: a claim made during a quest waits until the box is idle, and LOCK
/// always plays (which ends the claim). For a box with no buttons wired yet, the six-digit
/// code shown only on the box's own screen (the kiosk page opened on the box itself, while
/// the box asks or when no box runs) does the same.
///
/// #47: the act confirms only the claim of the one who asked. Each claim has a code of three
/// digits (`match`) that its page shows and the box's screen (and voice) shows beside the
/// question, so the parent allows her own; and one claim at a time: while one is open a
/// second is refused and the first goes on, so a claim never changes owner. The six-digit
/// code is for a paired touch kiosk (the box's own glass) only, never given by address.
/// Claims start at most one per 2 seconds and 5 per 15 minutes; the box asks for 2 minutes and a claim waits at most
/// 15 minutes for a busy box; a code gets 5 tries, and 10 wrong codes in all shut code entry
/// for 15 minutes (a six-digit code would otherwise fall to a patient script).
final class PresenceCheck: Sendable {
    enum Phase: Equatable, Sendable {
        /// The box is busy with a quest (or a button check); it asks once it is idle.
        case queued
        /// The box asks now (or no box runs: the code on the box's own screen only).
        case waiting
        case confirmed
        case failed(String)
    }

    struct Claim {
        /// The browser's secret (its cookie); the box never sees it.
        var id: String
        /// The claim's name at the box (told in the box's events, so not the secret).
        var boxName: String
        var code: String
        /// The three digits the page and the box both show.
        var match: String
        var reset: Bool
        var started: Int64
        /// When the box began to ask (or, with no box to ask, when the claim started).
        var shownAt: Int64?
        var phase: Phase
        var wrongCodes = 0
        /// PIN tries made on its page once confirmed (`takePINTry`).
        var pinTries = 0

        /// Still open at `now`: queued within 15 minutes, or asked within 2.
        func isOpen(at now: Int64, limits: Limits) -> Bool {
            switch phase {
            case .queued: now - started < limits.waitNanos
            case .waiting: now - (shownAt ?? started) < limits.windowNanos
            case .confirmed, .failed: false
            }
        }
    }

    /// The claim's times (tests shorten them).
    struct Limits: Sendable {
        var windowNanos: Int64 = QuestMachine.claimShownNanos
        var waitNanos: Int64 = QuestMachine.claimWaitNanos
    }

    enum Start: Equatable {
        case started(String)
        /// Another claim is open (its page and the box show its code): this one may not start.
        case busy
        /// Within 2 s of the last start.
        case tooSoon
        /// 5 claims in the last 15 minutes: the seconds until the next may start.
        case tooMany(retryAfter: Int)
        /// #48: no box runs to ask, and no glass of the box (a paired touch kiosk) could show
        /// the code: nothing could allow the claim.
        case noBox
    }

    static let codeTriesPerClaim = 5
    static let wrongCodesBeforePause = 10
    static let codePauseNanos: Int64 = 15 * 60 * 1_000_000_000
    static let claimSpacingNanos: Int64 = 2 * 1_000_000_000
    /// #47: claims one client address may start in a period (a stranger using them all
    /// kept the parent's claim waiting 15 minutes), and all clients together.
    static let claimsPerPeriod = 5
    static let claimsPerPeriodInAll = 20
    static let claimPeriodNanos: Int64 = 15 * 60 * 1_000_000_000
    static let cookieName = "questbox_claim"
    /// #47: the act at the box lets its page past a PIN lockout: 3 tries per act, and 10 a
    /// day in all (each act is 3 s held at the box, and claims are 5 a quarter hour: without
    /// the day's bound the player, always at the box, would get a PIN guess every minute).
    static let pinTriesPerAct = 3
    static let pinTriesAtTheBoxPerDay = 10
    static let dayNanos: Int64 = 24 * 3600 * 1_000_000_000

    enum PINTry: Equatable {
        /// This try may go past a lockout; `left` after it.
        case allowed(left: Int)
        /// The claim is not confirmed (or not this page's).
        case notConfirmed
        /// This act's tries are used.
        case used
        /// The day's tries at the box are used: the seconds until the next.
        case tooMany(retryAfter: Int)
    }

    /// The claim cookie (only the set-up pages see it); an empty value with age 0 removes it.
    static func cookie(_ id: String, maxAge: Int) -> Cookie {
        Cookie(name: cookieName, value: id, maxAge: maxAge, path: "/parent", httpOnly: true, sameSite: .strict)
    }

    /// The claim this browser started, if any.
    static func claim(of request: Request) -> String? { request.cookies[cookieName]?.value }

    private struct State {
        var claim: Claim?
        var starts = StartLimits(
            spacingNanos: PresenceCheck.claimSpacingNanos, perClient: PresenceCheck.claimsPerPeriod,
            inAll: PresenceCheck.claimsPerPeriodInAll, periodNanos: PresenceCheck.claimPeriodNanos)
        var wrongCodes: [Int64] = []
        var pinTriesAtTheBox: [Int64] = []
        var listener: BoxClaimListener?
    }
    private let state = Mutex(State())
    let clock: any SystemClock
    let socketPath: String
    let limits: Limits
    let logger: Logger
    /// Told when a code starts or stops waiting (the kiosk pages show it).
    let onCodeChange: @Sendable (Bool) -> Void
    /// Whether the box has a glass to show the code when no box runs (a kiosk paired to
    /// press its buttons).
    let hasGlass: @Sendable () -> Bool

    init(
        clock: any SystemClock, socketPath: String, limits: Limits = Limits(), logger: Logger = Logger(label: "questbox-web"),
        hasGlass: @escaping @Sendable () -> Bool = { false }, onCodeChange: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        self.clock = clock
        self.socketPath = socketPath
        self.limits = limits
        self.logger = logger
        self.hasGlass = hasGlass
        self.onCodeChange = onCodeChange
    }

    /// Starts a claim (`reset`: a PIN is set already). Returns once the box has it (or is
    /// found offline), so the page says what the box does.
    func start(reset: Bool, client: String = "-") async -> Start {
        let now = clock.monotonicNanos()
        let claim = Claim(
            id: RandomText.hex(bytes: 24), boxName: "claim-" + RandomText.hex(bytes: 8),
            code: RandomText.digits(6),
            match: RandomText.digits(QuestMachine.claimMatchDigits), reset: reset, started: now, phase: .queued)
        let outcome = state.withLock { s -> Start in
            // #47: the open claim keeps the box; asking again neither ends nor replaces it.
            if let other = s.claim, other.isOpen(at: now, limits: limits) { return .busy }
            switch s.starts.take(client: client, at: now) {
            case .tooSoon: return .tooSoon
            case .tooMany(let retryAfter): return .tooMany(retryAfter: retryAfter)
            case nil: break
            }
            s.claim = claim
            return .started(claim.id)
        }
        switch outcome {
        case .started:
            logger.notice("parent PIN claim started", metadata: ["claim": "\(claim.boxName)", "reset": "\(reset)"])
        case .busy:
            logger.warning("parent PIN claim refused: another claim is open", metadata: ["reset": "\(reset)"])
            return outcome
        case .tooSoon, .tooMany, .noBox:
            logger.warning("parent PIN claim refused: too many", metadata: ["reset": "\(reset)"])
            return outcome
        }
        let listener = BoxClaimListener(
            socketPath: socketPath, name: claim.boxName, reset: reset, match: claim.match,
            lifetimeMs: Int32((limits.waitNanos + limits.windowNanos) / 1_000_000)
        ) { [weak self] update in self?.boxMoved(claim.id, update) }
        state.withLock { $0.listener = listener }
        switch await listener.start() {
        case .asked:
            break
        case .noBox where !hasGlass():
            // #48: no box to ask and no glass to show the code: the page says so at once
            // (it asked the parent to hold buttons on a box that was not running).
            state.withLock { s in
                if s.claim?.id == claim.id { s.claim = nil }
                s.listener = nil
            }
            listener.stop()
            logger.warning("parent PIN claim refused: no box runs", metadata: ["claim": "\(claim.boxName)"])
            return .noBox
        case .noBox:
            // No box to ask: the code on the box's own glass (a paired touch kiosk) is the way,
            // for 2 minutes.
            shown(claim.id)
            expire(claim.id, after: limits.windowNanos)
        case .refused:
            // Someone else on the box's socket holds a claim there: this one cannot be shown.
            boxMoved(claim.id, ClaimUpdate(id: claim.boxName, progress: .ended, reason: .anotherClaim))
        }
        return outcome
    }

    /// The three digits the claim's page shows (the box shows them too).
    func match(of id: String?) -> String? {
        state.withLock { s in
            guard let id, let claim = s.claim, claim.id == id else { return nil }
            return claim.match
        }
    }

    /// Where the claim stands (a claim past its time has failed).
    func phase(of id: String?) -> Phase? {
        let now = clock.monotonicNanos()
        let (phase, expired) = state.withLock { s -> (Phase?, Bool) in
            guard let id, let claim = s.claim, claim.id == id else { return (nil, false) }
            if !claim.isOpen(at: now, limits: limits), claim.phase == .queued || claim.phase == .waiting {
                s.claim?.phase = .failed(claim.phase == .queued
                    ? "The box stayed busy with a quest for 15 minutes. Start again when it is free."
                    : "The 2 minutes ran out. Start again.")
                return (s.claim?.phase, true)
            }
            return (claim.phase, false)
        }
        if expired { finishListening() }
        return phase
    }

    /// The code typed on the page (from the box's own screen): what the page shows. While
    /// codes are paused that is a failure, yet the claim itself still waits for the act.
    func enter(code: String, claim id: String?) -> Phase? {
        let current = phase(of: id)
        guard current == .waiting else { return current }
        let now = clock.monotonicNanos()
        let (shown, ended) = state.withLock { s -> (Phase?, Bool) in
            s.wrongCodes = s.wrongCodes.filter { now - $0 < Self.codePauseNanos }
            guard var claim = s.claim, claim.id == id else { return (nil, false) }
            if s.wrongCodes.count >= Self.wrongCodesBeforePause {
                return (.failed("Too many wrong codes. Hold STOP and DOWN on the box instead, or try the code again in 15 minutes."), false)
            }
            if CSRFTokens.equalInConstantTime(claim.code, code.filter { !$0.isWhitespace }) {
                claim.phase = .confirmed
            } else {
                claim.wrongCodes += 1
                s.wrongCodes.append(now)
                if claim.wrongCodes >= Self.codeTriesPerClaim { claim.phase = .failed("Five wrong codes. Start again for a new one.") }
            }
            s.claim = claim
            return (claim.phase, claim.phase != .waiting)
        }
        if ended {
            logger.notice("parent PIN claim \(shown == .confirmed ? "confirmed with the box's code" : "ended: five wrong codes")")
            finishListening()
        }
        return shown
    }

    /// #47: a PIN try from the page whose claim the act at the box confirmed, which no
    /// lockout stops; counted against the act's 3 and the day's 10.
    func takePINTry(_ id: String?) -> PINTry {
        let now = clock.monotonicNanos()
        return state.withLock { s in
            guard let id, s.claim?.id == id, s.claim?.phase == .confirmed, let tries = s.claim?.pinTries else { return .notConfirmed }
            guard tries < Self.pinTriesPerAct else { return .used }
            s.pinTriesAtTheBox = s.pinTriesAtTheBox.filter { now - $0 < Self.dayNanos }
            if s.pinTriesAtTheBox.count >= Self.pinTriesAtTheBoxPerDay, let first = s.pinTriesAtTheBox.first {
                return .tooMany(retryAfter: Int((first + Self.dayNanos - now + 999_999_999) / 1_000_000_000))
            }
            s.pinTriesAtTheBox.append(now)
            s.claim?.pinTries = tries + 1
            return .allowed(left: Self.pinTriesPerAct - tries - 1)
        }
    }

    /// Uses up a confirmed claim (the PIN was set); false when it is not confirmed.
    func consume(_ id: String?) -> Bool {
        state.withLock { s in
            guard let id, s.claim?.id == id, s.claim?.phase == .confirmed else { return false }
            s.claim = nil
            return true
        }
    }

    /// The code the box's own screen shows: only while the box asks (or no box runs).
    var waitingCode: String? {
        let now = clock.monotonicNanos()
        return state.withLock { s in
            guard let claim = s.claim, claim.phase == .waiting, claim.isOpen(at: now, limits: limits) else { return nil }
            return claim.code
        }
    }

    /// The box's word on the claim.
    private func boxMoved(_ id: String, _ update: ClaimUpdate) {
        switch update.progress {
        case .waiting:
            // Asked, then a button check took the buttons: it waits again, as when queued.
            let code = state.withLock { s -> Bool in
                guard s.claim?.id == id, s.claim?.phase == .waiting else { return false }
                s.claim?.phase = .queued
                s.claim?.started = clock.monotonicNanos()
                return true
            }
            if code { onCodeChange(false) }
        case .shown, .holding:
            shown(id)
        case .confirmed:
            let done = state.withLock { s -> Bool in
                guard s.claim?.id == id, s.claim?.phase == .queued || s.claim?.phase == .waiting else { return false }
                s.claim?.phase = .confirmed
                return true
            }
            if done {
                logger.notice("parent PIN claim confirmed at the box")
                finishListening()
            }
        case .ended:
            let reason = Self.words(update.reason)
            let done = state.withLock { s -> Bool in
                guard s.claim?.id == id, s.claim?.phase == .queued || s.claim?.phase == .waiting else { return false }
                s.claim?.phase = .failed(reason)
                return true
            }
            if done {
                logger.notice("parent PIN claim ended at the box", metadata: ["reason": "\(update.reason?.rawValue ?? "-")"])
                finishListening()
            }
        }
    }

    /// The box asks now (or there is no box): the code may show on its own screen.
    private func shown(_ id: String) {
        let now = clock.monotonicNanos()
        let first = state.withLock { s -> Bool in
            guard s.claim?.id == id, s.claim?.phase == .queued || (s.claim?.phase == .waiting && s.claim?.shownAt == nil) else { return false }
            s.claim?.phase = .waiting
            s.claim?.shownAt = now
            return true
        }
        if first { onCodeChange(true) }
    }

    /// With no box to end it, the claim's time ends it here (and the kiosk stops saying so).
    private func expire(_ id: String, after nanos: Int64) {
        Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(max(nanos, 0)))
            guard let self else { return }
            let open = state.withLock { $0.claim?.id == id }
            if open { _ = phase(of: id) }
        }
    }

    private func finishListening() {
        let listener = state.withLock { s -> BoxClaimListener? in
            defer { s.listener = nil }
            return s.listener
        }
        listener?.stop()
        onCodeChange(false)
    }

    /// Why a claim ended at the box, in the page's words.
    static func words(_ reason: ClaimUpdate.Reason?) -> String {
        switch reason {
        case .questStarted: "Someone started a quest on the box (LOCK), which ends the set-up. Start again when the box is free."
        case .declined: "Someone at the box said no (UP). Start again if that was a mistake."
        case .timedOut: "The 2 minutes ran out. Start again."
        case .stayedBusy: "The box stayed busy with a quest for 15 minutes. Start again when it is free."
        case .anotherClaim: "Someone else is setting up the box right now. If the box shows a code that is not yours, press UP there, then start again."
        case .cancelled, nil: "The set-up was cancelled. Start again."
        }
    }
}

/// How asking the box went.
enum BoxClaimStart: Sendable {
    /// The box has the claim and asks (or will, once idle).
    case asked
    /// No box answers on the socket.
    case noBox
    /// The box answered no (another claim stands there).
    case refused
}

/// The claim asked of the box over its socket on a thread of its own: `claim` start, then
/// the box's `claim` events for it, each handed to `handler`, for at most `lifetimeMs`.
/// `stop()` ends it at once; the connection closing takes the claim back at the box.
final class BoxClaimListener: Sendable {
    let socketPath: String
    let name: String
    let reset: Bool
    let match: String
    let lifetimeMs: Int32
    let handler: @Sendable (ClaimUpdate) -> Void
    private let descriptor = Mutex<(fd: Int32, stopped: Bool)>((-1, false))
    /// Resumed once the box has the claim, refused it, or there is no box to ask.
    private let ready = Mutex<CheckedContinuation<BoxClaimStart, Never>?>(nil)

    init(
        socketPath: String, name: String, reset: Bool, match: String, lifetimeMs: Int32, handler: @escaping @Sendable (ClaimUpdate) -> Void
    ) {
        self.socketPath = socketPath
        self.name = name
        self.reset = reset
        self.match = match
        self.lifetimeMs = lifetimeMs
        self.handler = handler
    }

    /// Whether the box took the claim, refused it, or is not there.
    func start() async -> BoxClaimStart {
        await withCheckedContinuation { continuation in
            ready.withLock { $0 = continuation }
            let thread = Foundation.Thread { [self] in
                run()
                signalReady(.noBox)     // no box, or the connection ended early
            }
            thread.name = "box-claim"
            thread.start()
        }
    }

    private func signalReady(_ asked: BoxClaimStart) {
        ready.withLock { continuation in
            continuation?.resume(returning: asked)
            continuation = nil
        }
    }

    func stop() {
        descriptor.withLock { d in
            d.stopped = true
            if d.fd >= 0 { BoxClient.interrupt(descriptor: d.fd) }
        }
    }

    private func run() {
        guard let client = try? BoxClient(path: socketPath, timeoutMs: 800) else { return }
        // The client closes its socket when released: forget the descriptor first, so stop()
        // never shuts down a number the process has since reused.
        withExtendedLifetime(client) {
            defer { descriptor.withLock { $0.fd = -1 } }
            let go = descriptor.withLock { d -> Bool in
                d.fd = client.descriptor
                return !d.stopped
            }
            guard go else { return }
            var updates: [ClaimUpdate] = []
            let request = BoxRequest(command: "claim", id: "claim", action: "start", claim: name, reset: reset, match: match)
            guard let reply = try? client.request(request, timeoutMs: 800, onEvent: { m in
                if m.event == "claim", let u = m.claim, u.id == name { updates.append(u) }
            }) else { return }
            guard reply.ok == true else {
                signalReady(.refused)
                return
            }
            signalReady(.asked)
            for update in updates { handler(update) }
            if updates.contains(where: { $0.progress == .confirmed || $0.progress == .ended }) { return }
            // The box went away (or the time ran out) with the claim open: it is over.
            if !listen(client), !descriptor.withLock({ $0.stopped }) { handler(ClaimUpdate(id: name, progress: .ended, reason: .cancelled)) }
        }
    }

    /// True once the box said the claim is over.
    private func listen(_ client: BoxClient) -> Bool {
        var left = Int64(lifetimeMs)
        var last = DispatchTime.now().uptimeNanoseconds
        while left > 0 {
            switch (try? client.next(timeoutMs: Int32(min(left, Int64(Int32.max))))) ?? .closed {
            case .message(let m) where m.type == "event" && m.event == "claim":
                if let update = m.claim, update.id == name {
                    handler(update)
                    if update.progress == .confirmed || update.progress == .ended { return true }
                }
            case .message: break
            case .timedOut, .closed: return false
            }
            let now = DispatchTime.now().uptimeNanoseconds
            left -= Int64((now - last) / 1_000_000)
            last = now
            if descriptor.withLock({ $0.stopped }) { return false }
        }
        return false
    }
}
