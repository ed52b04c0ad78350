import Foundation
import HTTPTypes
import Hummingbird
import Logging
import QuestStore

/// PRIV-1 (#48): her phone pairs itself by a code the box gives (`PhonePairing`). Open
/// routes: the browser asking is not paired yet, and only a code read at the box pairs it.
struct PhonePairingController {
    let forms: PageForms
    let logger: Logger
    let phonePairing: PhonePairing
    let pairedBrowsers: any PairedBrowserStore
    let forgetRecentReads: @Sendable () -> Void
    let pairedOnly: PairedOnlyPage

    /// Her pages a pairing goes back to (never elsewhere); `otherwise` when the form names
    /// none of them. The kiosk's own pairing ask goes back the same way.
    static func back(_ form: FormBody, otherwise: String = "/") -> String {
        form.value("back").flatMap { ["/", "/stats", "/me"].contains($0) ? $0 : nil } ?? otherwise
    }

    /// The name the parent sees under Paired screens.
    static let pairedName = "Phone paired at the box"

    func addRoutes(to router: RoomRoutes<WebRequestContext>) {
        // The box gives a code for this browser (a new token unless it is the one waiting).
        router.post("/pair/phone") { request, context -> Response in
            let form = try await forms.changeForm(request, limit: 1024)
            let back = Self.back(form)
            if try pairedBrowsers.pairedKiosk(request) != nil { return .redirect(to: back) }
            let token = KioskPairingRequests.token(of: request).flatMap { phonePairing.isWaiting($0) ? $0 : nil }
                ?? KioskPairingStore.newToken()
            switch await phonePairing.ask(token: token, client: context.clientName) {
            case .shown:
                var response = Response.redirect(to: back)
                response.setCookie(KioskPairingRequests.cookie(token))
                return response
            case .refused(let words):
                return try pairedOnly.page(request, back: back, problem: words, status: .conflict)
            case .tooMany(let retryAfter):
                var response = try pairedOnly.page(
                    request, back: back, problem: "Too many codes were asked for. Try again in \(max(1, (retryAfter + 59) / 60)) min.",
                    status: .tooManyRequests)
                response.headers[.retryAfter] = "\(retryAfter)"
                return response
            }
        }
        // The code typed: the phone is paired to show her pages (it presses nothing).
        router.post("/pair/phone/code") { request, _ -> Response in
            let form = try await forms.changeForm(request, limit: 1024)
            let back = Self.back(form)
            let token = KioskPairingRequests.token(of: request)
            switch await phonePairing.enter(code: form.value("code") ?? "", token: token) {
            case .paired:
                guard let token else { throw HTTPError(.badRequest) }
                do {
                    try pairedBrowsers.pair(name: Self.pairedName, token: token, now: Date(), canPress: false)
                } catch StoreError.invalid(let why) {
                    return try pairedOnly.page(request, back: back, problem: "The box took the code, but: \(why). Ask a parent.", status: .conflict)
                }
                logger.notice("phone paired at the box to show the player's pages")
                forgetRecentReads()
                return .redirect(to: back)
            case .wrong(let left):
                return try pairedOnly.page(
                    request, back: back, problem: "That is not the code the box shows. \(left) \(left == 1 ? "try" : "tries") left.",
                    status: .unprocessableContent)
            case .over(let words):
                return try pairedOnly.page(request, back: back, problem: words, status: .conflict)
            }
        }
    }
}
