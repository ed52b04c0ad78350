import Foundation
import Hashing
import HTTPTypes
import Hummingbird
import QuestStore

/// A token on every state-changing request (forms: a hidden `csrf` field; the API: the
/// `X-CSRF-Token` header). The browser holds a random id in an HttpOnly, SameSite=Strict
/// cookie; the token is that id's HMAC under a key this process drew at start. A page from
/// elsewhere can neither read the cookie nor make the token, and a cookie planted by a
/// neighbour host is useless without the key. A restart of the web app voids open forms
/// (the message says to reload).
struct CSRFTokens: Sendable {
    /// Bytes, not a `SymmetricKey` (which is not Sendable); 256 random bits.
    let key: [UInt8]
    static let cookieName = "questbox_csrf"
    static let fieldName = "csrf"
    static let headerName = HTTPField.Name("X-CSRF-Token")!

    init(key: [UInt8] = (0..<32).map { _ in UInt8.random(in: .min ... .max) }) { self.key = key }

    /// The token for this browser, and the cookie to set when it has none yet.
    func token(for request: Request) -> (token: String, newCookie: Cookie?) {
        if let id = request.cookies[Self.cookieName]?.value, Self.isWellFormed(id) {
            return (token(forID: id) ?? "", nil)
        }
        let id = RandomText.hex(bytes: 24)
        return (token(forID: id) ?? "", Cookie(name: Self.cookieName, value: id, path: "/", httpOnly: true, sameSite: .strict))
    }

    /// Nil when it cannot be computed (the app checked libcrypto at its start): then no form
    /// carries a token and every check refuses.
    func token(forID id: String) -> String? {
        (try? Hashing.hmacSHA256(key: key, message: Array(id.utf8))).map(Hashing.hex)
    }

    /// 403 unless `sent` is this browser's token. A browser that says the request comes
    /// from another site (`Sec-Fetch-Site: cross-site`) is refused whatever it sends.
    func check(_ request: Request, sent: String?) throws {
        let refused = HTTPError(.forbidden, message: "This form has expired or came from another page. Reload the page and try again.")
        if request.headers[.secFetchSite] == "cross-site" { throw refused }
        guard let id = request.cookies[Self.cookieName]?.value, Self.isWellFormed(id), let sent, let expected = token(forID: id),
              Self.equalInConstantTime(expected, sent)
        else { throw refused }
    }

    /// Whether two secrets are equal, comparing every byte of `expected` whatever differs
    /// first, so the time taken tells a guesser nothing about how close a guess was.
    static func equalInConstantTime(_ expected: String, _ given: String) -> Bool {
        let expected = Array(expected.utf8), given = Array(given.utf8)
        guard expected.count == given.count else { return false }
        var difference: UInt8 = 0
        for i in expected.indices { difference |= expected[i] ^ given[i] }
        return difference == 0
    }

    static func isWellFormed(_ id: String) -> Bool {
        id.utf8.count == 48 && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}

extension HTTPField.Name {
    static let secFetchSite = Self("Sec-Fetch-Site")!
}
