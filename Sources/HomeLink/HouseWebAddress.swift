import Foundation

/// #47: another box's web address as the parent's page may link it. Any publisher on the
/// broker can say anything in a box's `info` (`http://questbox.local:8080@127.0.0.1:18999/parent`
/// showed as a box and led elsewhere), so an address is taken only in the form a box on the home
/// network has: http or https, a host of the home network (a `.local` or `.home.arpa` name, a
/// private or link-local address; the push address's rule, less loopback), an optional port, no
/// user, path, query or fragment, printable ASCII only. The link is rebuilt from those parts
/// and its host is printed beside it. One rule for the link (what it keeps) and the page (what
/// it shows, a store written before this rule included).
public enum HouseWebAddress {
    public struct Address: Equatable, Sendable {
        /// `http://hallway.local:8080/`, rebuilt from its parts.
        public var url: String
        /// `hallway.local:8080`, printed plainly beside the link.
        public var shown: String
    }

    public static let maximumBytes = 256

    public static func parse(_ text: String) -> Address? {
        guard text.utf8.count <= maximumBytes, text.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }),
              let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(), scheme == "http" || scheme == "https",
              parts.user == nil, parts.password == nil, parts.query == nil, parts.fragment == nil,
              parts.path.isEmpty || parts.path == "/",
              let bracketed = parts.host?.lowercased(), case let host = bracketed.trimmingCharacters(in: CharacterSet(charactersIn: "[]")),
              isHomeHost(host)
        else { return nil }
        // "http://host:/" parses with no port; anything but digits in range is refused by
        // URLComponents already.
        if let port = parts.port, !(1...65_535).contains(port) { return nil }
        let hostPort = (host.contains(":") ? "[\(host)]" : host) + (parts.port.map { ":\($0)" } ?? "")
        return Address(url: "\(scheme)://\(hostPort)/", shown: hostPort)
    }

    /// The push address's own rule for the home network (`PushAddress.isHomeNetwork`), less
    /// loopback: 127.0.0.1 on the parent's phone is her phone, and in the attack it was this box.
    static func isHomeHost(_ host: String) -> Bool {
        let loopback = host == "::1" || host == "localhost" || host.hasPrefix("127.")
        // A name is shown on the page: its labels as DNS writes them.
        let wellFormed = host.contains(":") || host.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                && label.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        }
        return !loopback && wellFormed && PushAddress.isHomeNetwork(host)
    }
}

