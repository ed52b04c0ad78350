/// Names a parent or player typed end up on a terminal, an OLED and a web page. Characters
/// that act instead of showing — C0/C1 controls (ESC clears a screen, BEL rings, CR and LF
/// break lines, NUL cuts a C string), line/paragraph separators and bidirectional overrides
/// (which reorder what follows) — are refused in new names and escaped in stored ones.
/// `isControl` is the one definition of such a character for every way in and out (names,
/// settings, push headers, the voice, board profiles, MQTT topics): check-house.sh fails on
/// another.
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

    /// `text` as HTML or SVG text and attribute values: the markup characters as entities,
    /// each control character as a space (the one escaper of every page and picture).
    public static func markupEscaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                if isControl(scalar) { out += " " } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// "U+001B" for messages.
    public static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// A character a name must not have although it shows nothing (#31): formatting marks
    /// (U+061C, U+FEFF, U+FFF9–U+FFFB, tag characters) and the default-ignorable ones
    /// (Hangul fillers), except the joiners and variation selectors emoji are made of.
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x200C, 0x200D, 0xFE00...0xFE0F: return false
        default: break
        }
        return scalar.properties.generalCategory == .format || scalar.properties.isDefaultIgnorableCodePoint
    }

    /// Why `name` cannot be a name, or nil: one rule for every way a name comes in (a
    /// routine file, the parent's editor, the player's quest form, a restored backup).
    public static func nameProblem(_ name: String) -> String? {
        if let control = firstControl(in: name) {
            return "contains the control character \(codePoint(control)) (names are plain text on one line)"
        }
        if let hidden = name.unicodeScalars.first(where: isInvisible) {
            return "contains the invisible character \(codePoint(hidden)) (names show every character they have)"
        }
        if !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) {
            return "has nothing to show (only spaces)"
        }
        return nil
    }
}
