import Foundation
import QuestCore

/// `web.hosts` (#31): the names the web app answers to besides an IP address, `localhost`
/// and the machine's own name (with `.local`): a name the family gave the box in their
/// router's DNS, say. Any other Host is refused (DNS rebinding).
public enum WebHosts {
    public static let maximumNames = 8
    static let maximumStoredBytes = maximumNames * 254
    public static let allowed = "none | up to 8 host names, space-separated (e.g. questbox.home.arpa)"

    /// The names in `text` (spaces or commas between them), lower-cased, a trailing dot
    /// dropped; "none" or nothing is none; nil when one is not a host name or there are
    /// too many.
    public static func parse(_ text: String) -> [String]? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed == "none" { return [] }
        var names: [String] = []
        for piece in trimmed.split(whereSeparator: { $0 == " " || $0 == "," }) {
            var name = piece.lowercased()
            if name.hasSuffix(".") { name.removeLast() }
            guard isHostName(name) else { return nil }
            if !names.contains(name) { names.append(name) }
        }
        return names.count <= maximumNames ? names : nil
    }

    /// Why these names cannot be stored, or nil.
    static func problem(_ names: [String]) -> String? {
        if names.count > maximumNames { return "more than \(maximumNames) names" }
        return names.first { !isHostName($0) }.map { "\"\(DisplayText.escaped($0))\" is not a host name" }
    }

    /// A DNS name: dot-separated labels of 1–63 letters, digits and inner dashes, 253
    /// characters at most, lower case, not all digits (that would be an address).
    static func isHostName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...253).contains(bytes.count) else { return false }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.allSatisfy({ label in
            let b = Array(label.utf8)
            return (1...63).contains(b.count) && b.first != 0x2D && b.last != 0x2D
                && b.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
        }) else { return false }
        return !bytes.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }
    }
}
