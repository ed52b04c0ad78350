import Foundation
import HTTPTypes
import Hummingbird
import QuestStore
import Synchronization
import SystemClock

/// #33 (`web.player-pages paired`): the player's pages (her home, stats, her page and quests,
/// and their API) answer only the browsers the family paired (a touch kiosk, or her phone
/// paired to show them). The box's screen (`/kiosk`) stays open, as the box is in the room.
/// The setting is read at most once a second (a flood of requests never reads it each).
final class PlayerPagesSetting: Sendable {
    /// PRIV-1: closed (paired only, set up) until the store says otherwise.
    private let setting: PeriodicRead<(paired: Bool, set: Bool)>
    static let refreshNanos: Int64 = 1_000_000_000

    init(database: QuestDatabase, clock: any SystemClock) {
        setting = PeriodicRead(initial: (true, true), refreshNanos: Self.refreshNanos, clock: clock) {
            (try? database.settings.current()).map { ($0.playerPagesPaired, $0.hasPIN) }
        }
    }

    var pairedOnly: Bool { setting.current.paired }

    /// A parent PIN is set (a box with none is not set up yet: its home is the first run).
    var isSetUp: Bool { setting.current.set }

    /// This process changed the setting: the next request reads it.
    func forget() { setting.forget() }
}

/// The one gate (#47): the route a request matched, looked up in its room. A route in no
/// room, or no route, is 404. `parent`: a signed-in parent only (a page sends the browser to
/// the sign-in, the API answers 401). `player`: with `web.player-pages paired` only the
/// family's paired screens, not a parent's session (PRIV-1: her pages are hers); any other
/// browser gets the page to ask for pairing, a program 403. A change in her room that succeeded empties the page cache
/// (her home and stats show it).
struct RoomGate: RouterMiddleware {
    let parents: ParentSessions
    let playerPages: PlayerPagesSetting
    let pairedBrowsers: any PairedBrowserStore
    let pinResets: PINResets
    let forgetRecentReads: @Sendable () -> Void
    let pairedOnly: PairedOnlyPage
    let rooms: RouteRooms

    func handle(_ request: Request, context: WebRequestContext, next: (Request, WebRequestContext) async throws -> Response) async throws -> Response {
        guard let route = context.endpointPath, let room = rooms.room(request.method, route: route) else {
            throw HTTPError(.notFound)
        }
        switch room {
        case .open:
            return try await next(request, context)
        case .parent:
            // PAR-2: a reset come due ends the old PIN's sessions before this one is asked.
            try pinResets.settlePINReset()
            guard parents.isSignedIn(request) else {
                if route.hasPrefix("/api/") { return try APIProblem(field: "", message: "sign in first").json(status: .unauthorized) }
                return .redirect(to: "/parent")
            }
            return try await next(request, context)
        case .player:
            if playerPages.pairedOnly, try pairedBrowsers.pairedKiosk(request) == nil {
                // PRIV-1: a box with no parent PIN is not set up: its address leads to the first run.
                if route == "/", request.method == .get || request.method == .head, !playerPages.isSetUp {
                    return .redirect(to: "/parent")
                }
                if route.hasPrefix("/api/") {
                    throw HTTPError(.forbidden, message: "The player's pages answer only the family's paired screens (web.player-pages).")
                }
                return try pairedOnly.page(request, back: route)
            }
            let response = try await next(request, context)
            if PageChanges.changes(request.method, status: response.status) { forgetRecentReads() }
            return response
        }
    }
}

/// The page her pages give a browser that is not paired: pair it by a code from the box
/// (PRIV-1, her own act), or ask a parent to (a code the parent types).
struct PairedOnlyView: Encodable {
    var csrf: String
    /// The code a parent types (this browser asked a parent).
    var code: String?
    /// The box shows a code for this browser now: the page asks for it.
    var atBox: Bool
    var problem: String?
    var back: String
}

/// The page her pages give a browser that is not paired (`PairedOnlyView`), with what it needs.
struct PairedOnlyPage: Sendable {
    let forms: PageForms
    let kioskPairing: KioskPairingRequests
    let phonePairing: PhonePairing

    func page(_ request: Request, back: String, problem: String? = nil, status: HTTPResponse.Status = .forbidden) throws -> Response {
        let token = KioskPairingRequests.token(of: request)
        let code = token.flatMap(kioskPairing.code(for:))
        let atBox = phonePairing.isWaiting(token)
        return try forms.formPage("player-paired-only", for: request, status: status) { csrf in
            PairedOnlyView(csrf: csrf, code: code, atBox: atBox, problem: problem, back: back)
        }
    }
}
