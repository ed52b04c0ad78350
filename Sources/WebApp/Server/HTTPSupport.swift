import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Mustache
import RoutineFormat

/// A rendered page.
struct HTML: ResponseGenerator {
    var body: String

    func response(from request: Request, context: some RequestContext) throws -> Response {
        response(setting: nil)
    }

    /// The page with `status`, setting `cookie` when there is one.
    func response(setting cookie: Cookie?, status: HTTPResponse.Status = .ok) -> Response {
        var response = Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        if let cookie { response.setCookie(cookie) }
        return response
    }
}

extension WebResources {
    /// Renders a template (HTML-escaped by default: `{{ }}`); a missing template is a 500.
    func page(_ name: String, _ object: Any) throws -> HTML {
        guard let body = templates.render(object, withTemplate: name) else {
            throw HTTPError(.internalServerError, message: "template \(name) missing")
        }
        return HTML(body: body)
    }
}

extension Encodable {
    /// This value as a JSON answer with `status` (for answers other than 200).
    func json(status: HTTPResponse.Status, encoder: JSONEncoder = JSONEncoder()) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(self))))
    }
}

enum LocalLink {
    /// `path?name=value&…`, the values percent-encoded; items without a value are left out.
    static func to(_ path: String, _ items: [(String, String?)]) -> String {
        var query = URLComponents()
        query.queryItems = items.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        return path + "?" + (query.percentEncodedQuery ?? "")
    }
}

/// Every response: no inline script or style runs (CSP), no framing, no sniffing, no
/// referrer leaves the box.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var policy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = Self.policy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.referrerPolicy] = "no-referrer"
        response.headers[.xFrameOptions] = "DENY"
        return response
    }
}

/// After a change this app made to what the home and stats show (quests, routines,
/// settings, a restore), they are read anew, so it shows on the next page at once. Only a
/// change that succeeded: a refused one (403, 413, 422, 429 …) or a sign-in, sign-out or
/// claim keeps them, so nobody can empty the page cache by posting (#31: /stats fell from
/// ~1,000 pages in 20 s to 12 while a stranger posted refused forms).
struct ForgetRecentReads<Context: RequestContext>: RouterMiddleware {
    let forget: @Sendable () -> Void

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        if PageChanges.changes(request.method, status: response.status) { forget() }
        return response
    }
}

/// Which answers are changes: in the parent's area past the PIN and in the player's room
/// (`RoomGate`), a change that succeeded; never a read, never a refusal.
enum PageChanges {
    static func changes(_ method: HTTPRequest.Method, status: HTTPResponse.Status) -> Bool {
        method != .get && method != .head && status.code < 400
    }
}

/// Errors become a plain page with the status and a short reason; anything unexpected is
/// logged in full and shown as "something went wrong", never with a path or a stack.
struct ErrorPageMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPResponseError {
            // Hummingbird's own (404, 413 …): their messages are ours or generic.
            let status = error.status
            let message = (error as? HTTPError)?.body ?? status.reasonPhrase
            var page = Self.page(status, message: status == .internalServerError ? "Something went wrong on the box." : message)
            // A wait the error names (Retry-After) reaches the client.
            if let retry = (error as? HTTPError)?.headers[.retryAfter] { page.headers[.retryAfter] = retry }
            return page
        } catch {
            logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            return Self.page(.internalServerError, message: "Something went wrong on the box.")
        }
    }

    static func page(_ status: HTTPResponse.Status, message: String) -> Response {
        let text = "\(status.code) \(status.reasonPhrase)\n\(message)\n"
        return Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

extension HTTPField.Name {
    // HTTPTypes names Content-Security-Policy and X-Content-Type-Options already.
    static let referrerPolicy = Self("Referrer-Policy")!
    static let xFrameOptions = Self("X-Frame-Options")!
    /// HTTP/1.1's Host when a request's authority does not carry it.
    static let host = Self("Host")!
}

/// JSON from the network, read strictly (#31: a key twice in one object was taken, the
/// last one winning): nil when it breaks RFC 8259's rules or is not a `T`.
func strictJSON<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer) -> T? {
    let bytes = [UInt8](buffer: buffer)
    guard StrictJSONCheck.problem(bytes) == nil else { return nil }
    return try? JSONDecoder().decode(T.self, from: Data(bytes))
}
