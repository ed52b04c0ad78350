import BoxProtocol
import Foundation
import Hummingbird
import Synchronization
import SystemClock

/// First run (PAR-1): nobody on the network can claim a box with no PIN. Setting one (or
/// resetting a forgotten one) needs proof of being at the box: its big button (`lock`)
/// pressed after the page asked, or the six-digit code that only the box's own screen shows
/// (the kiosk page opened on the box itself; for a box with no buttons wired yet).
///
/// One claim at a time: a second claim while one waits fails both, so a press can never
/// confirm a stranger's claim instead of the parent's. A claim waits 2 minutes; a code gets
/// 5 tries, and 10 wrong codes in all shut code entry for 15 minutes (a six-digit code
/// would otherwise fall to a patient script); claims start at most one per 2 seconds.
final class PresenceCheck: Sendable {
    enum Phase: Equatable, Sendable {
        case waiting
        case confirmed
        case failed(String)
    }

    struct Claim {
        var id: String
        var code: String
        var started: Int64
        var phase: Phase
        var wrongCodes = 0

        /// Waiting, and within its 2 minutes at `now`.
        func isWaiting(at now: Int64) -> Bool { phase == .waiting && now - started < PresenceCheck.windowNanos }
    }

    static let windowNanos: Int64 = 120 * 1_000_000_000
    static let codeTriesPerClaim = 5
    static let wrongCodesBeforePause = 10
    static let codePauseNanos: Int64 = 15 * 60 * 1_000_000_000
    static let claimSpacingNanos: Int64 = 2 * 1_000_000_000
    static let cookieName = "questbox_claim"

    /// The claim cookie (only the set-up pages see it); an empty value with age 0 removes it.
    static func cookie(_ id: String, maxAge: Int) -> Cookie {
        Cookie(name: cookieName, value: id, maxAge: maxAge, path: "/parent", httpOnly: true, sameSite: .strict)
    }

    /// The claim this browser started, if any.
    static func claim(of request: Request) -> String? { request.cookies[cookieName]?.value }

    private struct State {
        var claim: Claim?
        var lastStart: Int64?
        var wrongCodes: [Int64] = []
        var listener: BoxEventListener?
    }
    private let state = Mutex(State())
    let clock: any SystemClock
    let socketPath: String
    /// Told when a code starts or stops waiting (the kiosk pages show it).
    let onCodeChange: @Sendable (Bool) -> Void

    init(clock: any SystemClock, socketPath: String, onCodeChange: @escaping @Sendable (Bool) -> Void = { _ in }) {
        self.clock = clock
        self.socketPath = socketPath
        self.onCodeChange = onCodeChange
    }

    /// Starts a claim; its id, or nil when one was started less than 2 seconds ago. Returns
    /// once the box listens for the press (or is found offline), so the page asks for the
    /// press only when it can be felt.
    func start() async -> String? {
        let now = clock.monotonicNanos()
        let id = CSRFTokens.randomHex(bytes: 24)
        let code = String(format: "%06d", Int.random(in: 0...999_999))
        let (accepted, listen, old) = state.withLock { s -> (Bool, Bool, BoxEventListener?) in
            if let last = s.lastStart, now - last < Self.claimSpacingNanos { return (false, false, nil) }
            s.lastStart = now
            if let other = s.claim, other.isWaiting(at: now) {
                // Two at once: neither may go on (a press cannot tell whose it is). The first
                // claim is gone; its page says set-up was cancelled.
                s.claim = Claim(id: id, code: code, started: now, phase: .failed("Someone else started setting up the box at the same time. Start again."))
                let listener = s.listener
                s.listener = nil
                return (true, false, listener)
            }
            s.claim = Claim(id: id, code: code, started: now, phase: .waiting)
            return (true, true, nil)
        }
        old?.stop()
        guard accepted else { return nil }
        onCodeChange(listen)
        if listen {
            let listener = BoxEventListener(socketPath: socketPath, lifetimeMs: Int32(Self.windowNanos / 1_000_000)) { [weak self] message in
                if message.event == "press", message.button == "lock", message.pressed == true { self?.pressed(claim: id) }
            }
            state.withLock { $0.listener = listener }
            await listener.start()
        }
        return id
    }

    /// Where the claim stands (a claim past its 2 minutes has failed).
    func phase(of id: String?) -> Phase? {
        let now = clock.monotonicNanos()
        return state.withLock { s in
            guard let id, let claim = s.claim, claim.id == id else { return nil }
            if claim.phase == .waiting, !claim.isWaiting(at: now) {
                s.claim?.phase = .failed("The 2 minutes ran out. Start again.")
            }
            return s.claim?.phase
        }
    }

    /// The code typed on the page (from the box's own screen).
    /// The code typed on the page (from the box's own screen): what the page shows. While
    /// codes are paused that is a failure, yet the claim itself still waits for the button.
    func enter(code: String, claim id: String?) -> Phase? {
        let current = phase(of: id)
        guard current == .waiting else { return current }
        let now = clock.monotonicNanos()
        let (shown, ended) = state.withLock { s -> (Phase?, Bool) in
            s.wrongCodes = s.wrongCodes.filter { now - $0 < Self.codePauseNanos }
            guard var claim = s.claim, claim.id == id else { return (nil, false) }
            if s.wrongCodes.count >= Self.wrongCodesBeforePause {
                return (.failed("Too many wrong codes. Press the box's button instead, or try the code again in 15 minutes."), false)
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
        if ended { finishListening() }
        return shown
    }

    /// Uses up a confirmed claim (the PIN was set); false when it is not confirmed.
    func consume(_ id: String?) -> Bool {
        state.withLock { s in
            guard let id, s.claim?.id == id, s.claim?.phase == .confirmed else { return false }
            s.claim = nil
            return true
        }
    }

    /// The code the box's own screen shows while a claim waits.
    var waitingCode: String? {
        let now = clock.monotonicNanos()
        return state.withLock { s in
            guard let claim = s.claim, claim.isWaiting(at: now) else { return nil }
            return claim.code
        }
    }

    private func pressed(claim id: String) {
        let now = clock.monotonicNanos()
        let confirmed = state.withLock { s -> Bool in
            guard s.claim?.id == id, s.claim?.isWaiting(at: now) == true else { return false }
            s.claim?.phase = .confirmed
            return true
        }
        if confirmed { finishListening() }
    }

    private func finishListening() {
        let listener = state.withLock { s -> BoxEventListener? in
            defer { s.listener = nil }
            return s.listener
        }
        listener?.stop()
        onCodeChange(false)
    }
}

/// The box's events on a thread of its own for a while (`lifetimeMs`), each handed to
/// `handler`, with the box's buttons held (`button-check`) meanwhile; `stop()` ends it at
/// once. With no box it ends quietly (the code remains).
final class BoxEventListener: Sendable {
    let socketPath: String
    let lifetimeMs: Int32
    let handler: @Sendable (BoxMessage) -> Void
    private let descriptor = Mutex<(fd: Int32, stopped: Bool)>((-1, false))
    /// Resumed once subscribed, or given up (no box): `start` waits for it.
    private let ready = Mutex<CheckedContinuation<Void, Never>?>(nil)

    init(socketPath: String, lifetimeMs: Int32, handler: @escaping @Sendable (BoxMessage) -> Void) {
        self.socketPath = socketPath
        self.lifetimeMs = lifetimeMs
        self.handler = handler
    }

    func start() async {
        await withCheckedContinuation { continuation in
            ready.withLock { $0 = continuation }
            let thread = Foundation.Thread { [self] in
                run()
                signalReady()     // no box, or the subscription ended early
            }
            thread.name = "box-events"
            thread.start()
        }
    }

    private func signalReady() {
        ready.withLock { continuation in
            continuation?.resume()
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
        guard let client = try? BoxClient(path: socketPath, timeoutMs: 800),
              (try? client.request(BoxRequest(command: "subscribe", id: "presence"), timeoutMs: 800))?.ok == true
        else { return }
        // The box holds its buttons while this listens, so the press that proves presence
        // starts no quest. During a quest it refuses; the press is still heard.
        _ = try? client.request(BoxRequest(command: "button-check", id: "presence-check"), timeoutMs: 800)
        // The client closes its socket when released: forget the descriptor first, so stop()
        // never shuts down a number the process has since reused.
        withExtendedLifetime(client) {
            defer { descriptor.withLock { $0.fd = -1 } }
            listen(client)
        }
    }

    private func listen(_ client: BoxClient) {
        let go = descriptor.withLock { d -> Bool in
            d.fd = client.descriptor
            return !d.stopped
        }
        signalReady()
        guard go else { return }
        var left = Int64(lifetimeMs)
        var last = DispatchTime.now().uptimeNanoseconds
        while left > 0 {
            switch (try? client.next(timeoutMs: Int32(left))) ?? .closed {
            case .message(let m) where m.type == "event": handler(m)
            case .message: break
            case .timedOut, .closed: return
            }
            let now = DispatchTime.now().uptimeNanoseconds
            left -= Int64((now - last) / 1_000_000)
            last = now
            if descriptor.withLock({ $0.stopped }) { return }
        }
    }
}
