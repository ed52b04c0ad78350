import Foundation
import Hummingbird
import Logging
import QuestCore
import QuestStore

/// `/parent/kiosks` (#33): the browsers whose touch buttons press the box. A parent pairs a
/// kiosk by the code it shows (the Pi's own touch display included), or pairs the browser in
/// hand, and unpairs any of them; an unpaired browser sees the box and presses nothing.
struct KiosksController {
    let forms: PageForms
    let calendar: Calendar
    let logger: Logger
    let kioskPairing: KioskPairingRequests
    let kioskPresses: KioskPresses
    let pairedBrowsers: any PairedBrowserStore

    func addRoutes(to parent: RoomRoutes<WebRequestContext>) {
        parent.get("kiosks") { request, _ in try page(request) }
        parent.post("kiosks/pair") { request, _ in
            let form = try await forms.changeForm(request, limit: 1024)
            guard let token = kioskPairing.token(forCode: form.value("code") ?? "") else {
                return try page(request, problem: "No kiosk shows that code now. Tap “Use this screen's buttons” on the kiosk, then enter the six digits it shows (within 10 minutes).", status: .unprocessableContent)
            }
            return try pair(request, token: token, name: form.value("name") ?? "", canPress: form.value("press") == "on")
        }
        parent.post("kiosks/this") { request, _ in
            let form = try await forms.changeForm(request, limit: 1024)
            // #47 (token fixation): a cookie planted in this browser before is never the one
            // paired; a fresh token is, unless this browser is a paired kiosk already.
            let kept = try pairedBrowsers.pairedKiosk(request) != nil ? KioskPairingRequests.token(of: request) : nil
            let token = kept ?? KioskPairingStore.newToken()
            var response = try pair(request, token: token, name: form.value("name") ?? "")
            response.setCookie(KioskPairingRequests.cookie(token))
            return response
        }
        parent.post("kiosks/:id/unpair") { request, context in
            _ = try await forms.changeForm(request, limit: 1024)
            guard let id = context.parameters.get("id").flatMap(Int64.init), try pairedBrowsers.unpair(id: id) else {
                throw HTTPError(.notFound, message: "No paired kiosk of that number.")
            }
            // Whatever it held down on the box goes up: its "up" would now be refused.
            await kioskPresses.letGo(kiosk: id)
            logger.notice("touch kiosk unpaired", metadata: ["kiosk": "\(id)"])
            return Response.redirect(to: "/parent/kiosks?done=unpaired")
        }
    }

    private func pair(_ request: Request, token: String, name: String, canPress: Bool = true) throws -> Response {
        do {
            try pairedBrowsers.pair(name: name, token: token, now: Date(), canPress: canPress)
            kioskPairing.paired(token: token)
        } catch StoreError.invalid(let why) {
            return try page(request, problem: Self.words(why), status: .unprocessableContent)
        }
        logger.notice(canPress ? "touch kiosk paired" : "screen paired to show the player's pages")
        // #48: the banner says what was paired (a phone shows her pages and presses nothing).
        return Response.redirect(to: canPress ? "/parent/kiosks?done=paired" : "/parent/kiosks?done=shows")
    }

    /// The store's refusal in the page's words.
    static func words(_ why: String) -> String {
        if why.hasPrefix("kiosks:") { return "\(KioskPairingStore.maximumPaired) kiosks are paired already: unpair one first." }
        if why.hasPrefix("kiosk name:") { return "Give the kiosk a name of 1 to \(KioskPairingStore.maximumNameCharacters) characters (letters, digits, spaces), such as “Kitchen display”." }
        return "The kiosk could not be paired."
    }

    func page(_ request: Request, problem: String? = nil, status: HTTPResponse.Status = .ok) throws -> Response {
        let mine = try pairedBrowsers.pairedKiosk(request)?.id
        let kiosks = try pairedBrowsers.all().map {
            KiosksView.Kiosk(
                id: $0.id, name: $0.name, paired: Self.dateWords($0.pairedAt, calendar: self.calendar), thisBrowser: $0.id == mine,
                role: $0.canPress ? "presses the box's buttons" : "shows the player's pages")
        }
        let done: String? = switch request.uri.queryParameters["done"].map(String.init) {
        case "paired": "Paired as a kiosk: that screen's buttons press the box now."
        case "shows": "Paired to show the player's pages: that screen sees them and presses nothing."
        case "unpaired": "Unpaired: that screen shows the box and presses nothing."
        default: nil
        }
        return try forms.formPage("parent-kiosks", for: request, status: status) { csrf in
            KiosksView(csrf: csrf, kiosks: kiosks, hasKiosks: !kiosks.isEmpty, thisPaired: mine != nil, done: done, problem: problem)
        }
    }

    static func dateWords(_ date: Date, calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.day, .month, .year], from: date)
        return "\(parts.day ?? 1) \(CalendarWords.month(parts.month)) \(parts.year ?? 1970)"
    }
}

struct KiosksView: Encodable {
    struct Kiosk: Encodable {
        var id: Int64
        var name: String
        var paired: String
        var thisBrowser: Bool
        var role: String
    }

    var csrf: String
    var kiosks: [Kiosk]
    var hasKiosks: Bool
    var thisPaired: Bool
    var done: String?
    var problem: String?
}
