import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import QuestReports
import QuestStore
import TestSupport
import Testing
@testable import WebApp

/// #47: every route is in a room, and the player's room is closed to an unpaired browser by
/// any form of its paths (the gate keys on the route matched, not on the text asked).
@Suite("Rooms: who may use each route (#47)")
struct RoomGateTests {
    /// Her pages and their API, as registered. A route moved into or out of her room shows here.
    static let playerRoutes = [
        "GET /", "GET /api/v1/player", "GET /api/v1/quest-templates", "GET /api/v1/stats", "POST /api/v1/quests",
        "GET /me", "POST /me/switches", "POST /quests", "GET /quests/new", "GET /quests/saved",
        "POST /quests/{id}", "GET /quests/{id}/edit", "POST /quests/{id}/remove", "GET /stats",
    ]

    @Test("every route the router serves is in a room; her room holds exactly her pages and their API; the parent's room is all under /parent and /api/v1/parent")
    func everyRouteHasARoom() async throws {
        let (args, _) = try TestArguments.fresh(routines: [morningRoutine])
        let services = try await makeServices(args, logger: Logger(label: "test"))
        let rooms = RouteRooms()
        let router = buildRouter(services, rooms: rooms)
        for route in router.routes {
            #expect(rooms.room(route.method, route: route.path.description) != nil, "\(route.method) \(route.path) is in no room")
        }
        #expect(rooms.all.count == router.routes.count)
        let player = rooms.all.filter { $0.room == .player }.map { "\($0.method) \($0.route)" }.sorted()
        #expect(player == Self.playerRoutes.sorted())
        for route in rooms.all where route.room == .parent {
            #expect(route.route.hasPrefix("/parent/") || route.route.hasPrefix("/api/v1/parent/"), "\(route.route)")
        }
    }

    /// The forms a path can take that the router reads as the same route.
    static func variants(of path: String) -> [String] {
        let inner = path == "/" ? [] : [path.replacingOccurrences(of: "/", with: "//"), path.replacingOccurrences(of: "/", with: "///")]
        return Array(Set([path, "/" + path, "//" + path, path + "/", path + "//"] + inner)).sorted()
    }

    @Test("web.player-pages paired: every route of her room, in every path form (double, triple and trailing slashes), is refused to an unpaired browser and changes nothing; the same forms answer her paired phone")
    func pathFormsNeverOpenHerRoom() async throws {
        let (args, db) = try TestArguments.fresh(routines: [morningRoutine])
        try db.setPIN("2468")
        try SettingsCatalog.set("web.player-pages", to: "paired", in: db)
        let app = try await buildApplication(args)
        let routinesBefore = try db.routines().count
        try await app.test(.router) { client in
            var stranger = BrowserSession()
            _ = try await stranger.get(client, "/kiosk")
            for route in Self.playerRoutes {
                let parts = route.split(separator: " ", maxSplits: 1)
                let path = parts[1].replacingOccurrences(of: "{id}", with: UUID().uuidString)
                for form in Self.variants(of: path) {
                    let status: HTTPResponse.Status
                    if parts[0] == "GET" {
                        status = try await stranger.get(client, form).0
                    } else {
                        status = try await stranger.post(client, form, [("name", "Stranger's quest"), ("task", "Nothing"), ("action", "save")]).status
                    }
                    #expect(status == .forbidden || status == .notFound, "\(parts[0]) \(form) answered \(status.code)")
                }
            }
            #expect(try db.routines().count == routinesBefore, "a refused post stored a quest")

            // Her phone, paired by a parent to show her pages: the same forms reach them.
            _ = try await stranger.post(client, "/kiosk/pair", [("back", "/stats")])
            let code = try #require(TouchKioskTests.pairCode(try await stranger.get(client, "/stats").1))
            var parent = try await signedInParent(client)
            _ = try await parent.get(client, "/parent/kiosks")
            #expect(try await parent.post(client, "/parent/kiosks/pair", [("code", code), ("name", "Her phone")]).status == .seeOther)
            for path in ["/", "/stats", "/me", "/api/v1/stats"] {
                for form in Self.variants(of: path) {
                    #expect(try await stranger.get(client, form).0 == .ok, "her paired phone: GET \(form)")
                }
            }
        }
    }
}
