import BoxProtocol
import Foundation
import Hummingbird

/// `/api/v1`: what the pages show, as JSON.
struct APIController {
    let box: BoxLink
    let forms: PageForms
    let reads: PlayerPageReads

    /// `open`: the box's state and the session token; `player`: her home as JSON.
    func addRoutes(to group: RoomRoutes<WebRequestContext>, player: RoomRoutes<WebRequestContext>) {
        group.get("state") { _, _ in await state() }
        player.get("player") { _, _ in try await reads.playerHome() }
        // A program's way to the token every change needs (X-CSRF-Token), with its cookie.
        group.get("session") { request, _ in
            let (token, cookie) = forms.csrf.token(for: request)
            var response = try Session(csrf: token).json(status: .ok)
            if let cookie { response.setCookie(cookie) }
            return response
        }
    }

    struct Session: Encodable {
        var csrf: String
    }

    /// The box's live state: `online` with its screen (the socket's payload) and status, or
    /// `online: false` with the reason.
    struct State: ResponseEncodable {
        var online: Bool
        var screen: ScreenPayload?
        var box: BoxStatus?
        var reason: String?
    }

    func state() async -> State {
        switch await self.box.state() {
        // PRIV-1: a phone's pairing code never leaves the box's own surfaces.
        case .online(let reply): State(online: true, screen: reply.screen.map { ScreenPayload($0.screen.withoutSecrets) }, box: reply.box)
        case .offline(let reason): State(online: false, reason: reason)
        }
    }
}

extension PlayerHome: ResponseEncodable {}

/// `/api/openapi.json`: the API's description, written by hand and tested against the
/// routes and their answers.
struct OpenAPIController {
    let resources: WebResources

    func addRoutes(to router: RoomRoutes<WebRequestContext>) {
        router.get("/api/openapi.json") { _, _ in try resources.response(forAsset: "openapi.json") }
    }
}

/// `/assets/NAME`: only the files read at start; a name is a key, never a path.
struct AssetsController {
    let resources: WebResources

    func addRoutes(to group: RoomRoutes<WebRequestContext>) {
        group.get(":name") { _, context in
            try resources.response(forAsset: context.parameters.get("name"), cacheControl: "max-age=3600")
        }
    }
}

extension WebResources {
    /// One of the assets read at start, or 404.
    func response(forAsset name: String?, cacheControl: String? = nil) throws -> Response {
        guard let name, let asset = assets[name] else { throw HTTPError(.notFound, message: "No such file.") }
        var headers: HTTPFields = [.contentType: asset.type]
        if let cacheControl { headers[.cacheControl] = cacheControl }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }
}
