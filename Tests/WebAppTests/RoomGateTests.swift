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
        "POST /quests/{id}", "GET /quests/{id}/edit", "POST /quests/{id}/remove", "GET /stats", "GET /stats/day/{date}",
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
    static func sameRouteForms(of path: String) -> [String] {
        let inner = path == "/" ? [] : [path.replacingOccurrences(of: "/", with: "//"), path.replacingOccurrences(of: "/", with: "///")]
        return Array(Set([path, "/" + path, "//" + path, path + "/", path + "//"] + inner)).sorted()
    }

    /// Forms a server might read as the path, which this router reads as another (or none):
    /// percent-encoding, case, dot segments. Each must be refused as well, never served.
    static func lookAlikeForms(of path: String) -> [String] {
        guard path != "/", let first = path.dropFirst().first else { return ["/.", "/%2F", "/%2e", "/./"] }
        let encodedFirst = "/%" + String(first.asciiValue ?? 0, radix: 16) + path.dropFirst(2)
        let encodedSlashes = path.dropFirst().contains("/") ? ["/" + path.dropFirst().replacingOccurrences(of: "/", with: "%2F")] : []
        return encodedSlashes + [encodedFirst, path.uppercased(), "/." + path, "/x/.." + path, path + "/.", path + "%2F", path + "?x=/"]
    }

    static func allForms(of path: String) -> [String] { sameRouteForms(of: path) + lookAlikeForms(of: path) }

    static func concrete(_ route: String) -> (method: HTTPRequest.Method, path: String) {
        let parts = route.split(separator: " ", maxSplits: 1)
        return (HTTPRequest.Method(String(parts[0]))!, parts[1].replacingOccurrences(of: "{id}", with: UUID().uuidString).replacingOccurrences(of: "{date}", with: "2026-11-23"))
    }

    @Test("web.player-pages paired: every route of her room, in every path form (slashes, percent-encoding, case, dot segments) and by GET, HEAD or POST, is refused to an unpaired browser and changes nothing; the router's own forms answer her paired phone, not a parent's session")
    func pathFormsNeverOpenHerRoom() async throws {
        let (args, db) = try TestArguments.fresh(routines: [morningRoutine])
        try db.parentPIN.setPIN("2468")
        try SettingsCatalog.set("web.player-pages", to: "paired", in: db.settings)
        let app = try await buildApplication(args)
        let routinesBefore = try db.routines.all().count
        try await app.test(.router) { client in
            var stranger = BrowserSession()
            _ = try await stranger.get(client, "/kiosk")
            for route in Self.playerRoutes {
                let (method, path) = Self.concrete(route)
                for form in Self.allForms(of: path) {
                    let status: HTTPResponse.Status
                    if method == .get {
                        status = try await stranger.get(client, form).0
                        let head = try await client.execute(uri: form, method: .head, headers: stranger.cookieHeader)
                        #expect(head.status == .forbidden || head.status == .notFound, "HEAD \(form) answered \(head.status.code)")
                    } else {
                        status = try await stranger.post(client, form, [("name", "Stranger's quest"), ("task", "Nothing"), ("action", "save")]).status
                    }
                    #expect(status == .forbidden || status == .notFound, "\(method) \(form) answered \(status.code)")
                }
            }
            #expect(try db.routines.all().count == routinesBefore, "a refused post stored a quest")

            // A signed-in parent's browser is not her paired screen (PRIV-1): refused as well.
            var parent = try await signedInParent(client)
            for path in ["/", "/stats", "/me", "/api/v1/stats"] {
                for form in Self.sameRouteForms(of: path) {
                    #expect(try await parent.get(client, form).0 == .forbidden, "the parent: GET \(form)")
                }
            }

            // Her phone, paired by a parent to show her pages: the router's forms reach them,
            // look-alikes stay unknown.
            _ = try await stranger.post(client, "/kiosk/pair", [("back", "/stats")])
            let code = try #require(TouchKioskTests.pairCode(try await stranger.get(client, "/stats").1))
            _ = try await parent.get(client, "/parent/kiosks")
            #expect(try await parent.post(client, "/parent/kiosks/pair", [("code", code), ("name", "Her phone")]).status == .seeOther)
            for path in ["/", "/stats", "/me", "/api/v1/stats"] {
                for form in Self.sameRouteForms(of: path) {
                    #expect(try await stranger.get(client, form).0 == .ok, "her paired phone: GET \(form)")
                }
                let head = try await client.execute(uri: path, method: .head, headers: stranger.cookieHeader)
                #expect(head.status == .ok && head.body.readableBytes == 0, "her paired phone: HEAD \(path) \(head.status.code), \(head.body.readableBytes) bytes")
                for form in Self.lookAlikeForms(of: path) where !form.hasPrefix(path + "?") {
                    #expect(try await stranger.get(client, form).0 == .notFound, "her paired phone: GET \(form) is not a route")
                }
            }
        }
    }

    @Test("the parent's room: every route, in every path form and by GET, HEAD or POST, sends a browser without a session to the sign-in (a page) or answers 401 (the API), never 200, and changes nothing")
    func parentRoomNeedsTheSession() async throws {
        let (args, db) = try TestArguments.fresh(routines: [morningRoutine])
        try db.parentPIN.setPIN("2468")
        let app = try await buildApplication(args)
        let rooms = RouteRooms()
        _ = buildRouter(try await makeServices(args, logger: Logger(label: "test")), rooms: rooms)
        let parentRoutes = rooms.all.filter { $0.room == .parent }
        #expect(parentRoutes.count > 30, "only \(parentRoutes.count) routes in the parent's room")
        let routinesBefore = try db.routines.all().count
        let settingsBefore = try db.settings.current()
        try await app.test(.router) { client in
            var stranger = BrowserSession()
            _ = try await stranger.get(client, "/parent")
            for route in parentRoutes {
                let (method, path) = Self.concrete("\(route.method) \(route.route)")
                for form in Self.allForms(of: path) {
                    let methods: [HTTPRequest.Method] = method == .get ? [.get, .head] : [method]
                    for method in methods {
                        var headers = stranger.cookieHeader
                        headers[.contentType] = "application/x-www-form-urlencoded"
                        let response = try await client.execute(uri: form, method: method, headers: headers,
                                                                body: method == .post ? ByteBuffer(string: "csrf=\(stranger.csrf)&name=Mine&pin=0000") : nil)
                        let allowed: [HTTPResponse.Status] = form.contains("/api/") ? [.unauthorized, .notFound] : [.seeOther, .notFound]
                        #expect(allowed.contains(response.status), "\(method) \(form) answered \(response.status.code)")
                        if response.status == .seeOther { #expect(response.headers[.location] == "/parent", "\(method) \(form) sent to \(response.headers[.location] ?? "-")") }
                    }
                }
            }
        }
        #expect(try db.routines.all().count == routinesBefore)
        #expect(try db.settings.current() == settingsBefore, "a refused request changed a setting")
        #expect(try db.parentPIN.verifyPIN("2468", monotonicNanos: 0, bootID: "test") == .accepted, "the PIN changed")
    }
}
