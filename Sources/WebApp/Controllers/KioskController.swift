import BoxProtocol
import Foundation
import Hummingbird
import QuestCore

/// `/kiosk`: the box's current screen, large, for a display on the box. GAME-2: the screen
/// shown is the one the daemon sends, which has no elapsed time while a task runs; nothing
/// here adds one.
struct KioskController {
    let services: WebServices
    var events: BoxEventRelay { services.kioskEvents }

    func addRoutes(to router: Router<WebRequestContext>) {
        router.get("/kiosk") { _, context in try await kiosk(onTheBox: context.isFromThisMachine) }
        // The first-run code (PresenceCheck), for the screen of the box itself only.
        router.get("/kiosk/setup-code") { _, context in
            guard context.isFromThisMachine, let code = services.presence.waitingCode else {
                throw HTTPError(.notFound, message: "No set-up code here.")
            }
            return SetupCode(code: code)
        }
        router.get("/kiosk/events") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                body: ResponseBody(asyncSequence: events.stream()))
        }
    }

    func kiosk(onTheBox: Bool) async throws -> HTML {
        var view = KioskView(await services.box.state())
        view.setupCode = onTheBox ? services.presence.waitingCode : nil
        return try services.resources.page("kiosk", view)
    }
}

struct SetupCode: ResponseEncodable {
    var code: String
}

/// One screen as the kiosk page draws it: a kind (for the page's colours), a headline and
/// the lines below it, the same words as the box's own text screen.
struct KioskView: Sendable, Encodable {
    var kind: String
    var headline: String
    var lines: [String]
    /// Only on the page the box's own screen loads, while a set-up waits; never in events.
    var setupCode: String?

    init(kind: String, headline: String, lines: [String]) {
        self.kind = kind
        self.headline = headline
        self.lines = lines
    }
}

extension KioskView {
    init(_ state: BoxLink.State) {
        switch state {
        case .online(let reply):
            if let screen = reply.screen?.screen {
                let text = screen.textLines
                self.init(kind: screen.kind, headline: text.first ?? "", lines: Array(text.dropFirst()))
            } else {
                self.init(kind: "starting", headline: "TimeQuest", lines: ["The box is starting."])
            }
        case .offline:
            self.init(kind: "offline", headline: "Box offline", lines: ["The quest box is not running. Pages with your quests and stats still work."])
        }
    }
}
