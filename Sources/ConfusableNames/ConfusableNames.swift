import CConfusables

/// #47: one rule for whether two names read the same, for every way a name comes in: Unicode
/// TR39's confusable skeleton after NFKC_Casefold, with spaces collapsed. "Morning Quest",
/// "morning  quest", "Morning\u{00A0}Quest", "Mοrning Quest" (a Greek omicron) and
/// "Morning\u{200B}Quest" share one key, so the box never lists two names a reader cannot
/// tell apart. The work is ICU's, the toolchain's own copy (`CConfusables`).
public enum ConfusableNames {
    /// The name's comparison key, or nil for text ICU cannot take (not UTF-8, over 1 KB).
    public static func key(_ name: String) -> String? {
        var bytes = Array(name.utf8)
        var out = [CChar](repeating: 0, count: 8 * 1024)
        let length = bytes.withUnsafeMutableBufferPointer { text in
            text.withMemoryRebound(to: CChar.self) { chars in
                questbox_name_skeleton(chars.baseAddress, Int32(chars.count), &out, Int32(out.count))
            }
        }
        guard length >= 0 else { return nil }
        let skeleton = String(decoding: out.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Runs of spaces (any kind, after NFKC) read as one, and none at the ends.
        return skeleton.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// Whether two names read the same (a name ICU cannot take reads as itself only).
    public static func same(_ a: String, _ b: String) -> Bool {
        guard let left = key(a), let right = key(b) else { return a == b }
        return left == right
    }
}
