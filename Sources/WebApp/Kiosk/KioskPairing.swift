import Foundation
import Hummingbird
import QuestStore
import Synchronization
import SystemClock

/// #33: a touch kiosk is paired by a parent, behind the PIN. The kiosk's browser asks (a
/// button on `/kiosk`: the Pi's own touch display has no keyboard) and shows a six-digit
/// code; the parent types that code on their phone's parent page. The browser keeps a random
/// token in a cookie from the moment it asks; the store learns the token's hash only when
/// the parent enters the code. A stranger's browser can ask, but its code means nothing
/// until a parent types it, so it stays view-only.
final class KioskPairingRequests: Sendable {
    static let cookieName = "questbox_kiosk"
    /// A paired kiosk stays paired for years (until a parent unpairs it).
    static let cookieMaxAgeSeconds = 10 * 365 * 86_400
    static let lifetimeNanos: Int64 = 10 * 60 * 1_000_000_000
    /// #47: asks waiting at once from one client address; past this that client's own oldest
    /// goes. A fresh ask never evicts another client's code (a flood from one address took
    /// the real kiosk's pending code away).
    static let maximumPerClient = 4
    /// Asks waiting at once in all; past this a new client's ask is refused (memory stays
    /// bounded whatever the number of addresses).
    static let maximumWaiting = 64

    struct Waiting { var code: String; var token: String; var client: String; var asked: Int64 }
    private let waiting = Mutex<[Waiting]>([])
    let clock: any SystemClock

    init(clock: any SystemClock) { self.clock = clock }

    /// The code for the browser keeping `token`: the one it already has while it waits, or
    /// a new one unlike any waiting; nil when every place is taken by others (`client`: the
    /// asker's address, which bounds only its own asks).
    func ask(token: String, client: String) -> String? {
        let now = clock.monotonicNanos()
        return waiting.withLock { all in
            all.removeAll { now - $0.asked > Self.lifetimeNanos }
            if let mine = all.first(where: { $0.token == token }) { return mine.code }
            if all.filter({ $0.client == client }).count >= Self.maximumPerClient, let oldest = all.firstIndex(where: { $0.client == client }) {
                all.remove(at: oldest)
            }
            guard all.count < Self.maximumWaiting else { return nil }
            var code: String
            repeat { code = RandomText.digits(6) } while all.contains { $0.code == code }
            all.append(Waiting(code: code, token: token, client: client, asked: now))
            return code
        }
    }

    /// Whether the browser keeping `token` waits with a code now (its token is then ours).
    func isWaiting(_ token: String) -> Bool { code(for: token) != nil }

    /// The code this browser shows while it waits, if it asked within the last 10 minutes.
    func code(for token: String) -> String? {
        let now = clock.monotonicNanos()
        return waiting.withLock { all in all.first { $0.token == token && now - $0.asked <= Self.lifetimeNanos }?.code }
    }

    /// The token of the browser showing `code` (spaces allowed: "123 456"); nil for a code
    /// nobody shows.
    func token(forCode typed: String) -> String? {
        let code = typed.filter { !$0.isWhitespace }
        guard code.count == 6, code.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let now = clock.monotonicNanos()
        return waiting.withLock { all in
            all.first { CSRFTokens.equalInConstantTime($0.code, code) && now - $0.asked <= Self.lifetimeNanos }?.token
        }
    }

    /// The browser keeping `token` is paired: its code is spent.
    func paired(token: String) {
        waiting.withLock { all in all.removeAll { $0.token == token } }
    }

    /// The browser's kiosk token (a well-formed one), paired or not.
    static func token(of request: Request) -> String? {
        guard let value = request.cookies[cookieName]?.value, KioskPairingStore.isToken(value) else { return nil }
        return value
    }

    static func cookie(_ token: String) -> Cookie {
        Cookie(name: cookieName, value: token, maxAge: cookieMaxAgeSeconds, path: "/", httpOnly: true, sameSite: .strict)
    }
}

extension PairedBrowserStore {
    /// The kiosk this request's browser is, when a parent paired it.
    func pairedKiosk(_ request: Request) throws -> PairedKiosk? {
        guard let token = KioskPairingRequests.token(of: request) else { return nil }
        return try paired(token: token)
    }
}
