import HTTPTypes
import Hummingbird
import Synchronization

/// #47: who may use a route. Every route is registered in a room (`RoomRoutes`), which
/// records it beside the route as the router knows it (`/quests/{id}`), and one gate
/// (`RoomGate`, outermost) looks up the route the request matched. A request reaches a route
/// only through its room's check, whatever form its path took (`//stats`, `/stats/`,
/// `/api//v1/stats`): the router normalises those, and the check keys on what it matched,
/// never on the text asked. A route registered outside every room is refused (404).
enum Room: String, Sendable, CaseIterable {
    /// Anyone on the home network: the box's screen (`/kiosk`), assets and pictures, the first
    /// run, the door to the parent's area (sign-in, the claim), the API's description.
    case open
    /// Her pages and their API: `web.player-pages` decides (every browser, or paired screens).
    case player
    /// The parent's area past the PIN (its groups ask for the session as well).
    case parent
}

/// The rooms of every route registered, keyed by method and route. Written while the router
/// is built, read by every request.
final class RouteRooms: Sendable {
    private let rooms = Mutex<[String: Room]>([:])

    private static func key(_ method: HTTPRequest.Method, _ route: String) -> String { "\(method.rawValue) \(route)" }

    func record(_ method: HTTPRequest.Method, _ route: RouterPath, in room: Room) {
        rooms.withLock { $0[Self.key(method, route.description)] = room }
    }

    /// The room of the route a request matched; a HEAD asks for its GET's room.
    func room(_ method: HTTPRequest.Method, route: String) -> Room? {
        rooms.withLock { $0[Self.key(method == .head ? .get : method, route)] }
    }

    /// Every route with its method and room, sorted (for tests and the docs' table).
    var all: [(method: String, route: String, room: Room)] {
        rooms.withLock { rooms in
            rooms.map { key, room in
                let parts = key.split(separator: " ", maxSplits: 1)
                return (String(parts[0]), String(parts[1]), room)
            }.sorted { ($0.route, $0.method) < ($1.route, $1.method) }
        }
    }
}

/// A router or group whose routes are all in one room. Controllers get these, never the
/// router itself, so a route cannot be added without saying who may use it.
struct RoomRoutes<Context: RequestContext>: RouterMethods {
    let room: Room
    let rooms: RouteRooms
    private let prefix: RouterPath
    private let base: RouterGroup<Context>

    /// `base`: a group (a router's own middleware would reach every later route).
    init(_ room: Room, in rooms: RouteRooms, on base: RouterGroup<Context>, prefix: RouterPath = "") {
        self.room = room
        self.rooms = rooms
        self.base = base
        self.prefix = prefix
    }

    @discardableResult func on<Responder: HTTPResponder>(_ path: RouterPath, method: HTTPRequest.Method, responder: Responder) -> Self
    where Responder.Context == Context {
        rooms.record(method, prefix.appendingPath(path), in: room)
        base.on(path, method: method, responder: responder)
        return self
    }

    func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        RoomRoutes(room, in: rooms, on: base.add(middleware: middleware), prefix: prefix)
    }

    /// Routes under `path`, in the same room.
    func group(_ path: RouterPath) -> RoomRoutes<Context> {
        RoomRoutes(room, in: rooms, on: base.group(path), prefix: prefix.appendingPath(path))
    }
}
