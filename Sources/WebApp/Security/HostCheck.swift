import Foundation
import HTTPTypes
import Hummingbird
import Logging
import QuestCore
import QuestStore
import Synchronization
import SystemClock

/// DNS rebinding (#31): a page on another site can make a browser on the home network talk
/// to the box under the other site's name. The web app answers only requests whose Host is
/// an IP address, `localhost`, the machine's own name (and that name with `.local`), or a
/// name the parent listed in `web.hosts`; any other is 421 with one line. A request with no
/// Host at all comes from no browser (browsers always send one) and is answered.
struct HostCheckMiddleware<Context: RequestContext>: RouterMiddleware {
    let names: AllowedHostNames

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The authority (HTTP/1.1's Host as parsed) and any Host field left beside it: each
        // must be a name of the box (two that differ cannot both be).
        let claimed = [request.head.authority].compactMap { $0 } + request.headers[values: .host]
        for authority in claimed {
            guard let host = HostHeader.host(of: authority), names.allows(host) else {
                let shown = DisplayText.escaped(String(authority.prefix(100)))
                throw HTTPError(
                    .misdirectedRequest,
                    message: "Host: \(shown) is not a name of this box; a parent can add it in the settings (web.hosts).")
            }
        }
        return try await next(request, context)
    }
}

enum HostHeader {
    /// The host of a Host header (`name`, `name:port`, `[v6]`, `[v6]:port`), lower-cased,
    /// a trailing dot dropped; nil when it is not one.
    static func host(of authority: String) -> String? {
        var text = Substring(authority)
        if text.hasPrefix("[") {
            guard let end = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: end)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && isPort(rest.dropFirst())) else { return nil }
            return String(text[...end]).lowercased()
        }
        if let colon = text.lastIndex(of: ":") {
            guard isPort(text[text.index(after: colon)...]) else { return nil }
            text = text[..<colon]
        }
        if text.hasSuffix(".") { text = text.dropLast() }
        return text.isEmpty ? nil : text.lowercased()
    }

    static func isPort(_ text: Substring) -> Bool { (1...5).contains(text.count) && text.allSatisfy(\.isASCII) && UInt16(text) != nil }

    /// An IPv4 address in dotted decimal, or an IPv6 one in brackets.
    static func isAddress(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        if host.hasPrefix("[") && host.hasSuffix("]") { return inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &v6) == 1 }
        return inet_pton(AF_INET, host, &v4) == 1
    }
}

/// The names the web app answers to: fixed ones, and `web.hosts` read from the store at most
/// once per 2 s (only when a request names something else), so a parent's change applies
/// within 2 s and a flood of foreign names costs one read per 2 s.
final class AllowedHostNames: Sendable {
    let fixed: Set<String>
    private let listed: PeriodicRead<Set<String>>
    static let refreshNanos: Int64 = 2_000_000_000

    init(machineName: String? = AllowedHostNames.machineName(), database: QuestDatabase?, clock: any SystemClock = LiveSystemClock()) {
        var fixed: Set<String> = ["localhost"]
        if let name = machineName?.lowercased(), !name.isEmpty {
            fixed.insert(name)
            let short = name.split(separator: ".").first.map(String.init) ?? name
            fixed.insert(short)
            fixed.insert(short + ".local")
        }
        self.fixed = fixed
        listed = PeriodicRead(initial: [], refreshNanos: Self.refreshNanos, clock: clock) {
            guard let database, let settings = try? database.settings.current() else { return nil }
            return Set(settings.webHosts)
        }
    }

    static func machineName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func allows(_ host: String) -> Bool {
        if fixed.contains(host) || HostHeader.isAddress(host) || listed.last.contains(host) { return true }
        return listed.current.contains(host)
    }
}
