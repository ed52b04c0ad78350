import QuestCore
/// #34: the addresses a parent types for the house's link, read strictly: a broker
/// (`mqtt://HOST[:PORT]`, `mqtts://…` for TLS), a push service (`https://HOST[/PATH]`), and an
/// MQTT topic. Each refusal is one line naming what is wrong.
public struct BrokerAddress: Equatable, Sendable {
    public var host: String
    public var port: Int
    public var tls: Bool

    public static let allowed = "mqtt://HOST[:PORT] | mqtts://HOST[:PORT] | off"

    public init(host: String, port: Int, tls: Bool) {
        self.host = host
        self.port = port
        self.tls = tls
    }

    public var description: String { "\(tls ? "mqtts" : "mqtt")://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    public static func parse(_ text: String) -> Result<BrokerAddress, LinkAddressProblem> {
        let tls: Bool
        let rest: Substring
        if text.hasPrefix("mqtt://") { (tls, rest) = (false, text.dropFirst(7)) } else if text.hasPrefix("mqtts://") { (tls, rest) = (true, text.dropFirst(8)) } else {
            return .failure(LinkAddressProblem("starts with neither mqtt:// nor mqtts://"))
        }
        return HostAndPort.parse(rest.hasSuffix("/") ? rest.dropLast() : rest, defaultPort: tls ? 8883 : 1883).map {
            BrokerAddress(host: $0.host, port: $0.port, tls: tls)
        }
    }
}

/// A push service's address: `http(s)://HOST[:PORT][/PATH]` (ntfy's `https://ntfy.sh/TOPIC`).
public struct PushAddress: Equatable, Sendable {
    public var url: String
    public var host: String
    public var port: Int
    public var tls: Bool

    public static let allowed = "https://HOST[:PORT]/TOPIC (ntfy; http:// only to a LAN address) | off"

    public static func parse(_ text: String) -> Result<PushAddress, LinkAddressProblem> {
        let tls: Bool
        let rest: Substring
        if text.hasPrefix("https://") { (tls, rest) = (true, text.dropFirst(8)) } else if text.hasPrefix("http://") { (tls, rest) = (false, text.dropFirst(7)) } else {
            return .failure(LinkAddressProblem("starts with neither https:// nor http://"))
        }
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        guard path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && !"\"<>\\^`{|}#".unicodeScalars.contains($0) }) else {
            return .failure(LinkAddressProblem("its path has a space or a character a URL cannot carry"))
        }
        return HostAndPort.parse(authority, defaultPort: tls ? 443 : 80).flatMap { hostAndPort in
            // #47: the push carries the player's reminders; in plain text only inside the home.
            guard tls || Self.isHomeNetwork(hostAndPort.host) else {
                return .failure(LinkAddressProblem("uses http:// to a host outside the home network (only a LAN address such as 192.168.1.5 or a .local name may; use https://)"))
            }
            return .success(PushAddress(url: text, host: hostAndPort.host, port: hostAndPort.port, tls: tls))
        }
    }

    /// A host on the home network: a private, loopback or link-local IPv4 address (10/8,
    /// 172.16/12, 192.168/16, 127/8, 169.254/16), an IPv6 loopback, unique-local or link-local
    /// one, or a `.local` (mDNS) or `.home.arpa` name. Any other name may resolve anywhere.
    static func isHomeNetwork(_ host: String) -> Bool {
        let lower = host.lowercased()
        if lower.hasSuffix(".local") || lower.hasSuffix(".home.arpa") { return lower.first != "." }
        let octets = lower.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        if octets.count == 4, octets.allSatisfy({ $0.map { (0...255).contains($0) } == true }) {
            let a = octets[0] ?? -1, b = octets[1] ?? -1
            return a == 10 || a == 127 || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168) || (a == 169 && b == 254)
        }
        if lower.contains(":") {
            if lower == "::1" { return true }
            let first = lower.split(separator: ":", omittingEmptySubsequences: false).first.flatMap { UInt16($0, radix: 16) } ?? 0
            return first & 0xFE00 == 0xFC00 || first & 0xFFC0 == 0xFE80
        }
        return false
    }
}

/// Why an address or topic was refused.
public struct LinkAddressProblem: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

enum HostAndPort {
    /// `host`, `host:port`, `[v6]` or `[v6]:port`; never a user name or password (they have
    /// settings of their own, kept out of the address that is shown back).
    static func parse(_ text: Substring, defaultPort: Int) -> Result<(host: String, port: Int), LinkAddressProblem> {
        if text.contains("@") { return .failure(LinkAddressProblem("has a user name in it (set mqtt.username and mqtt.password instead)")) }
        var host: Substring, portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return .failure(LinkAddressProblem("has an IPv6 address without its closing ]")) }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure(LinkAddressProblem("has something after the IPv6 address that is not :PORT")) }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return .failure(LinkAddressProblem("has an IPv6 address that is not one"))
            }
        } else {
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            portText = parts.count > 1 ? parts[1] : nil
            guard !host.isEmpty else { return .failure(LinkAddressProblem("has no host name")) }
            guard host.utf8.count <= 253, host.utf8.allSatisfy({ $0.isHostNameByte }), !host.hasPrefix("-"), !host.hasPrefix(".") else {
                return .failure(LinkAddressProblem("has a host name with a character a host name cannot have"))
            }
        }
        var port = defaultPort
        if let portText {
            guard let p = Int(portText), (1...65_535).contains(p), portText.allSatisfy(\.isASCII) else {
                return .failure(LinkAddressProblem("has a port that is not 1–65535"))
            }
            port = p
        }
        return .success((String(host), port))
    }
}

extension UInt8 {
    var isHostNameByte: Bool { (0x61...0x7A).contains(self | 0x20) || (0x30...0x39).contains(self) || self == 0x2D || self == 0x2E || self == 0x5F }
}

/// An MQTT topic the box publishes under (`mqtt.topic`, the discovery prefix): 1–128 bytes of
/// printable text in levels split by `/`, no wildcard (`+`, `#`), not starting with `$`
/// (the broker's own) nor with or ending in `/`, and no empty level.
public enum LinkTopic {
    public static let maximumBytes = 128

    public static func problem(_ topic: String) -> String? {
        if topic.isEmpty || topic.utf8.count > maximumBytes { return "is not 1–\(maximumBytes) bytes" }
        if topic.contains("+") || topic.contains("#") { return "has a wildcard (+ or #)" }
        if topic.hasPrefix("$") { return "starts with $ (the broker's own topics)" }
        if topic.hasPrefix("/") || topic.hasSuffix("/") || topic.contains("//") { return "has an empty level (a / at an end, or //)" }
        if topic.unicodeScalars.contains(where: { $0 == " " || DisplayText.isControl($0) }) { return "has a space or a control character" }
        return nil
    }

    /// The box's own topic when `mqtt.topic` is not set.
    public static func standard(boxID: String) -> String { "questbox/\(boxID)" }
}
