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
    /// A parent's preview of a screen (`/parent/screens`): the page does not follow the box.
    var preview: Bool?

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
                self.init(screen, notice: reply.notice)
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
        } else {
            self.init(kind: screen.kind, headline: words.top.first ?? "", lines: first + Array(words.top.dropFirst()) + words.lines, more: words.more, hint: words.hint)
        }
    }
}
