import Foundation
import Hummingbird
import QuestStore
import Synchronization
import SystemClock

/// #33 (`web.player-pages paired`): the player's pages (her home, stats, her page and quests,
/// and their API) answer only the browsers the family paired (a touch kiosk, or her phone
/// paired to show them). The box's screen (`/kiosk`) stays open, as the box is in the room.
/// The setting is read at most once a second (a flood of requests never reads it each).
final class PlayerPagesSetting: Sendable {
    let database: QuestDatabase
    let clock: any SystemClock
    private let cached = Mutex<(paired: Bool, readAt: Int64?)>((false, nil))
    static let refreshNanos: Int64 = 1_000_000_000

    init(database: QuestDatabase, clock: any SystemClock) {
        self.database = database
        self.clock = clock
    }

    var pairedOnly: Bool {
        let now = clock.monotonicNanos()
        if let hit = cached.withLock({ c in c.readAt.map { now - $0 < Self.refreshNanos ? c.paired : nil } ?? nil }) { return hit }
        // A store that cannot be read keeps the pages closed only if they were closed.
        let paired = (try? database.settings().playerPagesPaired) ?? cached.withLock { $0.paired }
        cached.withLock { $0 = (paired, now) }
        return paired
    }

    /// This process changed the setting: the next request reads it.
    func forget() { cached.withLock { $0.readAt = nil } }
}

/// The one gate (#47): the route a request matched, looked up in its room. A route in no
/// room, or no route, is 404. `parent`: a signed-in parent only (a page sends the browser to
/// the sign-in, the API answers 401). `player`: with `web.player-pages paired` only the
/// family's paired screens, not a parent's session (PRIV-1: her pages are hers); any other
/// browser gets the page to ask for pairing, a program 403. A change in her room that succeeded empties the page cache
/// (her home and stats show it).
struct RoomGate: RouterMiddleware {
    let services: WebServices
    let rooms: RouteRooms

    func handle(_ request: Request, context: WebRequestContext, next: (Request, WebRequestContext) async throws -> Response) async throws -> Response {
        guard let route = context.endpointPath, let room = rooms.room(request.method, route: route) else {
            throw HTTPError(.notFound)
        }
        switch room {
        case .open:
            return try await next(request, context)
        case .parent:
            guard services.parents.isSignedIn(request) else {
                if route.hasPrefix("/api/") { return try APIProblem(field: "", message: "sign in first").json(status: .unauthorized) }
                return .redirect(to: "/parent")
            }
            return try await next(request, context)
        case .player:
            if services.playerPages.pairedOnly, try services.pairedKiosk(request) == nil {
                if route.hasPrefix("/api/") {
                    throw HTTPError(.forbidden, message: "The player's pages answer only the family's paired screens (web.player-pages).")
                }
                let code = KioskPairingRequests.token(of: request).flatMap(services.kioskPairing.code(for:))
                return try services.formPage("player-paired-only", for: request, status: .forbidden) { csrf in
                    PairedOnlyView(csrf: csrf, code: code, back: route)
                }
            }
            let response = try await next(request, context)
            if PageChanges.changes(request.method, status: response.status) { services.forgetRecentReads() }
            return response
        }
    }
}

struct PairedOnlyView: Encodable {
    var csrf: String
    var code: String?
    var back: String
}
