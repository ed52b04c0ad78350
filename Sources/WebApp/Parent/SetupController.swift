import Foundation
import Hummingbird
import Logging
import QuestCore
import QuestStore

/// `/parent/setup`: setting the PIN the first time, or anew when it is forgotten, after the
/// act at the box (`PresenceCheck`, PAR-2): STOP and DOWN held while the idle box asks, or
/// the code on its own screen. #47: over an existing PIN the act lets its page sign in past
/// a lockout (3 tries), and a new PIN it asks for waits 24 hours, told to the parent (PAR-2).
struct SetupController {
    let forms: PageForms
    let logger: Logger
    let parents: ParentSessions
    let pinChecks: PINChecks
    let presence: PresenceCheck
    let settings: any FamilySettings
    let pins: any ParentPINStore
    let pinResets: PINResets

    func addRoutes(to router: RoomRoutes<WebRequestContext>) {
        router.post("/parent/claim") { request, context in
            _ = try await forms.changeForm(request, limit: 1024)
            // #47: no PIN lockout stops a claim: the act at the box is how the parent gets in
            // past a stranger's wrong PINs, and a new PIN it asks for waits 24 hours (PAR-2).
            let reset = try settings.current().hasPIN
            switch await presence.start(reset: reset, client: context.clientName) {
            case .started(let id):
                var response = Response.redirect(to: "/parent/setup")
                response.setCookie(PresenceCheck.cookie(id, maxAge: 20 * 60))
                return response
            case .busy:
                // #47: the open claim keeps going; this asker is told plainly.
                throw HTTPError(
                    .conflict,
                    message: "Someone is setting up the box right now. If its screen shows a code your page did not, press UP on the box, then start again.")
            case .tooSoon:
                throw HTTPError(.tooManyRequests, headers: [.retryAfter: "2"], message: "Set-up was started a moment ago; try again in 2 seconds.")
            case .noBox:
                // #48: nothing could allow the claim: the box is not running to ask.
                throw HTTPError(
                    .conflict,
                    message: "The box is not running, so it cannot ask you to hold its buttons. Choose its board on this page (or see why on the health page), wait until the box runs, then start again.")
            case .tooMany(let seconds):
                let minutes = (seconds + 59) / 60
                throw HTTPError(
                    .tooManyRequests, headers: [.retryAfter: "\(seconds)"],
                    message: "Set-up was started 5 times in 15 minutes; try again in \(minutes) minute\(minutes == 1 ? "" : "s").")
            }
        }
        router.get("/parent/setup") { request, _ in try page(request, problem: nil) }
        // For setup.js: whether the page should reload (the claim moved on).
        router.get("/parent/setup/state") { request, _ in
            SetupState(phase: Self.name(of: presence.phase(of: PresenceCheck.claim(of: request))))
        }
        router.post("/parent/setup/code") { request, _ in
            let form = try await forms.changeForm(request, limit: 1024)
            let claim = PresenceCheck.claim(of: request)
            switch presence.enter(code: form.value("code") ?? "", claim: claim) {
            case .waiting:
                return try page(request, problem: "That is not the code on the box's screen.", status: .unprocessableContent)
            case .failed(let reason) where presence.phase(of: claim) == .waiting:
                // Codes are paused; the claim still waits for the button.
                return try page(request, problem: reason, status: .tooManyRequests)
            default:
                return .redirect(to: "/parent/setup")
            }
        }
        router.post("/parent/setup/pin") { request, context in try await setPIN(request, client: context.clientName) }
        router.post("/parent/setup/sign-in") { request, context in try await signInAtTheBox(request, client: context.clientName) }
    }

    /// #47: the parent who knows her PIN gets in past a lockout by the act at the box: its
    /// confirmed page tries the PIN with no lockout in the way (3 tries, 10 a day).
    func signInAtTheBox(_ request: Request, client: String) async throws -> Response {
        let form = try await forms.changeForm(request, limit: 1024)
        let claim = PresenceCheck.claim(of: request)
        let pin = form.value("pin") ?? ""
        do {
            try PINHasher.validate(pin)
        } catch {
            return try page(request, problem: nil, signInProblem: "\(error)", status: .unprocessableContent)
        }
        let left: Int
        switch presence.takePINTry(claim) {
        case .notConfirmed:
            return .redirect(to: "/parent/setup")
        case .used:
            return try page(request, problem: nil, signInProblem: "This page's 3 tries are used. Start again at the box.", status: .tooManyRequests)
        case .tooMany(let seconds):
            var response = try page(
                request, problem: nil, signInProblem: "10 PINs were tried at the box today. It may try again in \(CountText.counted((seconds + 3599) / 3600, "hour")).",
                status: .tooManyRequests)
            response.headers[.retryAfter] = "\(seconds)"
            return response
        case .allowed(let remaining):
            left = remaining
        }
        try pinResets.settlePINReset()
        switch try await pinChecks.check(pin, client: client, atTheBox: true) {
        case .accepted:
            _ = presence.consume(claim)
            logger.notice("parent signed in after the act at the box")
            var response = Response.redirect(to: "/parent")
            response.setCookie(parents.open())
            response.setCookie(PresenceCheck.cookie("", maxAge: 0))
            return response
        case .notSet:
            return .redirect(to: "/parent/setup")
        case .rejected, .addressPaused, .areaClosed, nil:
            let words = left == 0 ? "That PIN is not right, and this page's tries are used." : "That PIN is not right. \(left) more \(left == 1 ? "try" : "tries") on this page."
            return try page(request, problem: nil, signInProblem: words, status: .unauthorized)
        }
    }

    func setPIN(_ request: Request, client: String) async throws -> Response {
        let form = try await forms.changeForm(request, limit: 1024)
        let claim = PresenceCheck.claim(of: request)
        guard presence.phase(of: claim) == .confirmed else { return .redirect(to: "/parent/setup") }
        let pin = form.value("pin") ?? "", again = form.value("again") ?? ""
        do {
            try PINHasher.validate(pin)
        } catch {
            return try page(request, problem: "\(error)", status: .unprocessableContent)
        }
        guard pin == again else { return try page(request, problem: "The two PINs differ. Type the same PIN twice.", status: .unprocessableContent) }
        guard presence.consume(claim) else { return .redirect(to: "/parent/setup") }
        if try settings.current().hasPIN {
            // PAR-2: over an existing PIN the new one waits 24 hours; the old one still signs
            // in and may cancel it, and the parent's phone is told (by questbox-link).
            try pins.askPINReset(pin, from: client, clock: pinResets.pinResetClock())
            logger.notice("parent PIN reset asked after the presence check: it waits 24 hours", metadata: ["from": "\(client)"])
            var response = Response.redirect(to: "/parent")
            response.setCookie(PresenceCheck.cookie("", maxAge: 0))
            return response
        }
        try pins.setPIN(pin, at: Date())
        // A new PIN ends every session opened with the old one.
        parents.closeAll()
        logger.notice("parent PIN set after the presence check")
        var response = Response.redirect(to: "/parent")
        response.setCookie(parents.open())
        response.setCookie(PresenceCheck.cookie("", maxAge: 0))
        return response
    }

    func page(_ request: Request, problem: String?, signInProblem: String? = nil, status: HTTPResponse.Status = .ok) throws -> Response {
        let claim = PresenceCheck.claim(of: request)
        let phase = presence.phase(of: claim)
        let resetting = try settings.current().hasPIN
        let match = presence.match(of: claim).map(ClaimScreen.spaced)
        return try forms.formPage("parent-setup", for: request, status: status) { csrf in
            var view = SetupView(csrf: csrf, problem: problem, resetting: resetting)
            view.match = match
            view.signInProblem = signInProblem
            switch phase {
            case .queued: view.queued = true
            case .waiting: view.waiting = true
            case .confirmed: view.confirmed = true
            case .failed(let reason): view.failed = reason
            case nil: view.failed = "This set-up is over (it was cancelled, or it timed out). Start again."
            }
            return view
        }
    }

    static func name(of phase: PresenceCheck.Phase?) -> String {
        switch phase {
        case .queued: "queued"
        case .waiting: "waiting"
        case .confirmed: "confirmed"
        case .failed, nil: "failed"
        }
    }
}

struct SetupState: ResponseEncodable {
    var phase: String
}

struct SetupView: Encodable {
    var csrf: String
    var problem: String?
    var queued = false
    var waiting = false
    var confirmed = false
    var failed: String?
    var resetting: Bool
    /// The claim's three digits, spaced as the box shows them (#47).
    var match: String?
    /// A PIN tried past a lockout on the confirmed page (#47), and what was wrong with it.
    var signInProblem: String?

    init(csrf: String, problem: String?, resetting: Bool) {
        self.csrf = csrf
        self.problem = problem
        self.resetting = resetting
    }
}
