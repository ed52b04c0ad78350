/// Names a parent or player typed end up on a terminal, an OLED and a web page. Characters
/// that act instead of showing — C0/C1 controls (ESC clears a screen, BEL rings, CR and LF
/// break lines, NUL cuts a C string), line/paragraph separators and bidirectional overrides
/// (which reorder what follows) — are refused in new names and escaped in stored ones.
public enum DisplayText {
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: break
        }
        switch scalar.value {
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true  // bidi marks, embeddings, overrides, isolates
        default: return false
        }
    }

    /// The first control character in `text`, if any.
    public static func firstControl(in text: String) -> Unicode.Scalar? { text.unicodeScalars.first(where: isControl) }

    /// `text` with each control character shown as `\u{1B}`: safe to print anywhere.
    public static func escaped(_ text: String) -> String {
        guard firstControl(in: text) != nil else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// "U+001B" for messages.
    public static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
