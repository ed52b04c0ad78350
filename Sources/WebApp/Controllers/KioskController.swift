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

/// One screen as the kiosk page draws it: a kind (for the page's colours), the small lines
/// above, the headline (the screen's one big thing) and the lines below it: the same words
/// as the box's own screen (`Screen.words`), with the "not saved" notice first below.
struct KioskView: Sendable, Encodable {
    var kind: String
    /// What the screen is about (quest and task, level and streak); nil when none.
    var above: [String]?
    var headline: String
    var lines: [String]
    /// Only on the page the box's own screen loads, while a set-up waits; never in events.
    var setupCode: String?

    init(kind: String, headline: String, lines: [String], above: [String] = []) {
        self.kind = kind
        self.above = above.isEmpty ? nil : above
        self.headline = headline
        self.lines = lines
    }
}

extension KioskView {
    init(_ state: BoxLink.State) {
        switch state {
        case .online(let reply):
            if let screen = reply.screen?.screen {
                let words = screen.words
                let below = (reply.notice.map { [$0] } ?? []) + words.lines + words.more + (words.hint.map { [$0] } ?? [])
                if let big = words.big {
                    self.init(kind: screen.kind, headline: big, lines: below, above: words.top)
                } else {
                    self.init(kind: screen.kind, headline: words.top.first ?? "", lines: Array(words.top.dropFirst()) + below)
                }
            } else {
                self.init(kind: "starting", headline: "TimeQuest", lines: ["The box is starting."])
            }
        case .offline:
            self.init(kind: "offline", headline: "Box offline", lines: ["The quest box is not running. Pages with your quests and stats still work."])
        }
    }
}
