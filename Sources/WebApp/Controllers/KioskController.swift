import BoxProtocol
import Foundation
import Hummingbird
import QuestCore

/// `/kiosk`: the box's current screen, large, for a display on the box. GAME-2: the screen
/// shown is the one the daemon sends, which has no elapsed time while a task runs; nothing
/// here adds one.
struct KioskController {
    let services: WebServices
    /// One relay of the box's screens for every open kiosk page.
    let events: KioskEvents

    func addRoutes(to router: Router<WebRequestContext>) {
        router.get("/kiosk") { _, _ in try await kiosk() }
        router.get("/kiosk/events") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                body: ResponseBody(asyncSequence: events.stream()))
        }
    }

    func kiosk() async throws -> HTML {
        try services.resources.page("kiosk", KioskView(await services.box.state()))
    }
}

/// One screen as the kiosk page draws it: a kind (for the page's colours), a headline and
/// the lines below it, the same words as the box's own text screen.
struct KioskView: Sendable, Encodable {
    var kind: String
    var headline: String
    var lines: [String]
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
