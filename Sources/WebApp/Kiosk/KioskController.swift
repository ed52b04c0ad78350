import BoxProtocol
import Foundation
import Hummingbird
import QuestCore
import QuestStore

/// `/kiosk`: the box's current screen, large, for a display on the box. GAME-2: the screen
/// shown is the one the daemon sends, which has no elapsed time while a task runs; nothing
/// here adds one.
struct KioskController {
    let box: BoxLink
    let forms: PageForms
    let kioskEvents: BoxEventRelay
    let presence: PresenceCheck
    let kioskPairing: KioskPairingRequests
    let kioskPresses: KioskPresses
    let pairedBrowsers: any PairedBrowserStore
    var events: BoxEventRelay { kioskEvents }

    func addRoutes(to router: RoomRoutes<WebRequestContext>) {
        router.get("/kiosk") { request, _ in try await kiosk(request) }
        // #33: this browser asks to be paired as a touch kiosk; a parent enters its code.
        router.post("/kiosk/pair") { request, context in
            let form = try await forms.changeForm(request, limit: 1024)
            // Back to the player's page that asked, or to the kiosk (never elsewhere).
            let back = PhonePairingController.back(form, otherwise: "/kiosk")
            var response = Response.redirect(to: back)
            if try pairedBrowsers.pairedKiosk(request) == nil {
                // #47: a token this web app did not hand out for a waiting code (one planted in
                // the browser before) is never kept: a new one is made.
                let token = KioskPairingRequests.token(of: request).flatMap { kioskPairing.isWaiting($0) ? $0 : nil }
                    ?? KioskPairingStore.newToken()
                guard kioskPairing.ask(token: token, client: context.clientName) != nil else {
                    throw HTTPError(.tooManyRequests, headers: [.retryAfter: "600"], message: "Too many screens are asking to be paired right now. Try again in 10 minutes.")
                }
                response.setCookie(KioskPairingRequests.cookie(token))
            }
            return response
        }
        // While its code shows, the kiosk asks whether a parent has entered it.
        router.get("/kiosk/pairing") { request, _ in
            let token = KioskPairingRequests.token(of: request)
            return PairingState(paired: try pairedBrowsers.pairedKiosk(request) != nil, code: token.flatMap(kioskPairing.code(for:)))
        }
        // A paired kiosk's button: the same press as the box's own, through its socket, in
        // the order the kiosk's presses came (`KioskPresses`).
        router.post("/kiosk/press") { request, _ in
            let form = try await forms.changeForm(request, limit: 256)
            guard try pairedBrowsers.pairedKiosk(request)?.canPress == true, let token = KioskPairingRequests.token(of: request) else {
                throw Self.notPaired
            }
            guard let button = form.value("button").flatMap(ButtonRole.init(rawValue:)),
                  let action = form.value("action").flatMap(SocketPress.init(rawValue:))
            else { throw HTTPError(.badRequest, message: "Send a button (lock, stop, up, down) and an action (down, up, tap).") }
            let browsers = pairedBrowsers
            switch try await kioskPresses.press(button, action, kiosk: { try browsers.paired(token: token).flatMap { $0.canPress ? $0.id : nil } }) {
            case nil: throw Self.notPaired
            case .success: return Response(status: .noContent)
            case .failure(.refused(let reason)): throw HTTPError(.conflict, message: reason)
            case .failure(.offline): throw HTTPError(.serviceUnavailable, message: "The box is offline.")
            }
        }
        // The set-up code (PresenceCheck) for the box's own glass only: a kiosk a parent paired
        // to press the box's buttons (#47: never by address; loopback is any local user).
        router.get("/kiosk/setup-code") { request, _ in
            guard try pairedBrowsers.pairedKiosk(request)?.canPress == true, let code = presence.waitingCode else {
                throw HTTPError(.notFound, message: "No set-up code here.")
            }
            return SetupCode(code: code)
        }
        // PRIV-1: a phone's code for the box's own glass only (a kiosk paired to press; the
        // events and every other page leave it out), while the box gives one.
        router.get("/kiosk/pairing-code") { request, _ in
            guard try pairedBrowsers.pairedKiosk(request)?.canPress == true, let code = Self.pairingCode(await box.state()) else {
                throw HTTPError(.notFound, message: "No phone's code here.")
            }
            return SetupCode(code: code)
        }
        router.get("/kiosk/events") { _, context in
            Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                body: ResponseBody(asyncSequence: events.stream(client: context.clientName)))
        }
    }

    /// The phone's code the box shows now, spaced as the box shows it.
    static func pairingCode(_ state: BoxLink.State) -> String? {
        guard case .online(let reply) = state, case .pairing(let pairing)? = reply.screen?.screen else { return nil }
        return pairing.spacedCode
    }

    static let notPaired = HTTPError(.forbidden, message: "This screen may not press the box: a parent pairs it as a kiosk in the parent area (Paired screens).")

    func kiosk(_ request: Request) async throws -> Response {
        let state = await box.state()
        var view = KioskView(state)
        if let paired = try pairedBrowsers.pairedKiosk(request) {
            view.touch = paired.canPress ? true : nil
            view.setupCode = paired.canPress ? presence.waitingCode : nil
            view.pairingCode = paired.canPress ? Self.pairingCode(state) : nil
        } else {
            view.pairCode = KioskPairingRequests.token(of: request).flatMap(kioskPairing.code(for:))
            view.canPair = view.pairCode == nil
        }
        return try forms.formPage("kiosk", for: request) { csrf in
            var v = view
            v.csrf = csrf
            return v
        }
    }
}

struct PairingState: ResponseEncodable {
    var paired: Bool
    var code: String?
}

struct SetupCode: ResponseEncodable {
    var code: String
}

/// One screen as the kiosk page draws it: a kind (for the page's colours), the small lines
/// above, the headline (the screen's one big thing), the lines below it, then the lines that
/// may give way on a small glass (`more`), and the button hint last: the same words as the
/// box's own screen (`Screen.words`), with the "not saved" notice first below. The idle
/// screen's quests are a list of their own (the chosen one marked by style, not by a ">").
struct KioskView: Sendable, Encodable {
    struct Quest: Sendable, Encodable {
        var name: String
        var badge: String?
        var selected: Bool
        var played: Bool
        var reminded: Bool
    }

    var kind: String
    /// What the screen is about (quest and task, level and streak); nil when none.
    var above: [String]?
    var headline: String
    var lines: [String]
    /// Lines the page hides first when the glass is small (#33: fewer, larger lines).
    var more: [String]?
    var hint: String?
    var quests: [Quest]?
    var hasQuests: Bool
    /// Only on the page the box's own screen loads, while a set-up waits; never in events.
    var setupCode: String?
    /// PRIV-1: only on the page of a kiosk paired to press (the box's own glass), while the
    /// box gives a phone's code; never in events or to any other page.
    var pairingCode: String?
    /// A parent's preview of a screen (`/parent/screens`): the page does not follow the box.
    var preview: Bool?
    /// #33: a reveal's rating (`spot_on` … `way_off`): its big words take the LED's colour.
    var rating: String?
    /// #33: only on the page of a kiosk a parent paired: its touch buttons press the box.
    var touch: Bool?
    /// #33: this browser asked to be paired; the code a parent enters.
    var pairCode: String?
    /// #33: this browser may ask to be paired (the button shows).
    var canPair: Bool?
    /// The page's form token (pairing, touch presses); never in events.
    var csrf: String?

    init(kind: String, headline: String, lines: [String], above: [String] = [], more: [String] = [], hint: String? = nil, quests: [Quest] = []) {
        self.kind = kind
        self.above = above.isEmpty ? nil : above
        self.headline = headline
        self.lines = lines
        self.more = more.isEmpty ? nil : more
        self.hint = hint
        self.quests = quests.isEmpty ? nil : quests
        hasQuests = !quests.isEmpty
    }
}

extension KioskView {
    init(_ state: BoxLink.State) {
        switch state {
        case .online(let reply):
            if let screen = reply.screen?.screen {
                // PRIV-1: a phone's code shows only on the box's own glass (`pairingCode`).
                self.init(screen.withoutSecrets, notice: reply.notice)
            } else {
                self.init(kind: "starting", headline: "TimeQuest", lines: ["The box is starting."])
            }
        case .offline:
            self.init(kind: "offline", headline: "Box offline", lines: ["The quest box is not running. Pages with your quests and stats still work."])
        }
    }

    init(_ screen: Screen, notice: String?) {
        let words = screen.words
        let first = notice.map { [$0] } ?? []
        if case .idle(let idle) = screen {
            // The quests as a list (two or more); the chosen one is the headline already.
            let quests = idle.quests.count > 1 ? idle.quests.enumerated().map { i, q in
                Quest(name: q.name, badge: q.badge, selected: i == (idle.selectedIndex ?? 0), played: q.playedToday, reminded: q.reminded == true)
            } : []
            self.init(kind: "idle", headline: words.big ?? "", lines: first + words.lines, above: words.top, more: words.more, hint: words.hint, quests: quests)
        } else if let big = words.big {
            self.init(kind: screen.kind, headline: big, lines: first + words.lines, above: words.top, more: words.more, hint: words.hint)
            if case .reveal(let reveal) = screen { rating = reveal.rating.rawValue }
        } else {
            self.init(kind: screen.kind, headline: words.top.first ?? "", lines: first + Array(words.top.dropFirst()) + words.lines, more: words.more, hint: words.hint)
        }
    }
}
