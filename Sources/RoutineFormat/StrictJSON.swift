/// A JSON reader for files people write (RFC 8259, nothing more), stricter than Foundation's
/// where a silent choice would lose something: a key twice in one object is an error (not
/// "the first wins"), a number too large for a Double is an error (not a type mismatch),
/// invalid UTF-8 is named by its byte offset, and nesting is bounded. Every error says where,
/// by line and column and by the path of keys leading there.
enum StrictJSON {
    struct Failure: Error, Equatable, CustomStringConvertible {
        var line: Int
        var column: Int
        /// "[0].tasks[2].name", or "" at the top.
        var path: String
        var message: String
        var description: String { "\(path.isEmpty ? "" : "\(path): ")\(message) (line \(line), column \(column))" }
    }

    static let maximumDepth = 32

    static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        if let bad = firstInvalidUTF8(bytes) {
            let (line, column) = position(of: bad, in: bytes)
            throw Failure(line: line, column: column, path: "", message: "not UTF-8 text (byte \(bad + 1) is not valid UTF-8)")
        }
        var parser = Parser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(path: "", depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.failure("", "more text after the end of the JSON value") }
        return value
    }

    /// Byte offset of the first byte that is not part of well-formed UTF-8, if any.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF  // allowed range of the second byte
            switch b {
            case 0x00...0x7F: i += 1; continue
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F  // no UTF-16 surrogates
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return i
            }
            guard i + length <= bytes.count else { return i }
            guard (low...high).contains(bytes[i + 1]) else { return i + 1 }
            for k in 2..<length where !(0x80...0xBF).contains(bytes[i + k]) { return i + k }
            i += length
        }
        return nil
    }

    static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for b in bytes.prefix(offset) {
            if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
        }
        return (line, column)
    }

    struct Parser {
        let bytes: [UInt8]
        var index = 0

        func failure(_ path: String, _ message: String) -> Failure {
            let (line, column) = StrictJSON.position(of: index, in: bytes)
            return Failure(line: line, column: column, path: path, message: message)
        }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let b = current, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { index += 1 }
        }

        mutating func value(path: String, depth: Int) throws(Failure) -> JSONValue {
            guard depth <= StrictJSON.maximumDepth else { throw failure(path, "nested deeper than \(StrictJSON.maximumDepth) levels") }
            guard let b = current else { throw failure(path, "the file ends where a value should be") }
            switch b {
            case UInt8(ascii: "{"): return try object(path: path, depth: depth)
            case UInt8(ascii: "["): return try array(path: path, depth: depth)
            case UInt8(ascii: "\""): return .string(try string(path: path))
            case UInt8(ascii: "t"): try literal("true", path: path); return .bool(true)
            case UInt8(ascii: "f"): try literal("false", path: path); return .bool(false)
            case UInt8(ascii: "n"): try literal("null", path: path); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number(path: path)
            default: throw failure(path, "unexpected \(shown(b)) where a value should be")
            }
        }

        func shown(_ b: UInt8) -> String {
            (0x21...0x7E).contains(b) ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x\(String(b, radix: 16, uppercase: true))"
        }

        mutating func literal(_ word: String, path: String) throws(Failure) {
            let w = Array(word.utf8)
            guard index + w.count <= bytes.count, Array(bytes[index..<(index + w.count)]) == w else {
                throw failure(path, "unexpected text where a value should be (true, false, null, a number, text, a list or an object)")
            }
            index += w.count
        }

        mutating func object(path: String, depth: Int) throws(Failure) -> JSONValue {
            index += 1
            var members: [String: JSONValue] = [:]
            skipSpace()
            if current == UInt8(ascii: "}") { index += 1; return .object(members) }
            while true {
                skipSpace()
                guard current == UInt8(ascii: "\"") else { throw failure(path, "expected a key in quotes") }
                let keyStart = index
                let key = try string(path: path)
                let memberPath = path.isEmpty ? key : "\(path).\(key)"
                if members[key] != nil {
                    index = keyStart
                    throw failure(memberPath, "appears twice in one object")
                }
                skipSpace()
                guard current == UInt8(ascii: ":") else { throw failure(memberPath, "expected ':' after the key") }
                index += 1
                skipSpace()
                members[key] = try value(path: memberPath, depth: depth + 1)
                skipSpace()
                if current == UInt8(ascii: ",") { index += 1; continue }
                if current == UInt8(ascii: "}") { index += 1; return .object(members) }
                throw failure(path, "expected ',' or '}' in an object")
            }
        }

        mutating func array(path: String, depth: Int) throws(Failure) -> JSONValue {
            index += 1
            var items: [JSONValue] = []
            skipSpace()
            if current == UInt8(ascii: "]") { index += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value(path: "\(path)[\(items.count)]", depth: depth + 1))
                skipSpace()
                if current == UInt8(ascii: ",") { index += 1; continue }
                if current == UInt8(ascii: "]") { index += 1; return .array(items) }
                throw failure(path, "expected ',' or ']' in a list")
            }
        }

        mutating func string(path: String) throws(Failure) -> String {
            index += 1  // the opening quote
            var scalars = String.UnicodeScalarView()
            var run = index  // start of the bytes copied as they are
            func flush(_ end: Int) { scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars) }
            while true {
                guard let b = current else { throw failure(path, "text not closed with '\"'") }
                if b == UInt8(ascii: "\"") {
                    flush(index)
                    index += 1
                    return String(scalars)
                }
                if b < 0x20 { throw failure(path, "a control character (byte 0x\(String(b, radix: 16, uppercase: true))) inside text; write it as an escape") }
                if b != UInt8(ascii: "\\") { index += 1; continue }
                flush(index)
                index += 1
                guard let e = current else { throw failure(path, "text not closed with '\"'") }
                index += 1
                switch e {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4(path: path)
                    if (0xD800...0xDBFF).contains(code) {
                        // A surrogate pair: the low half must follow as \uDC00–\uDFFF.
                        guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                            throw failure(path, "a lone UTF-16 surrogate escape")
                        }
                        index += 2
                        let low = try hex4(path: path)
                        guard (0xDC00...0xDFFF).contains(low) else { throw failure(path, "a lone UTF-16 surrogate escape") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw failure(path, "a lone UTF-16 surrogate escape") }
                    scalars.append(scalar)
                default:
                    throw failure(path, "unknown escape '\\\(Character(Unicode.Scalar(e)))'")
                }
                run = index
            }
        }

        mutating func hex4(path: String) throws(Failure) -> UInt32 {
            guard index + 4 <= bytes.count else { throw failure(path, "\\u needs four hex digits") }
            var code: UInt32 = 0
            for b in bytes[index..<(index + 4)] {
                let digit: UInt8
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
                default: throw failure(path, "\\u needs four hex digits")
                }
                code = code << 4 | UInt32(digit)
            }
            index += 4
            return code
        }

        mutating func number(path: String) throws(Failure) -> JSONValue {
            let start = index
            var isInteger = true
            if current == UInt8(ascii: "-") { index += 1 }
            func digits() -> Int {
                let from = index
                while let b = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) { index += 1 }
                return index - from
            }
            let intStart = index
            guard digits() > 0 else { throw failure(path, "a number needs digits") }
            if bytes[intStart] == UInt8(ascii: "0") && index - intStart > 1 { throw failure(path, "a number may not start with 0") }
            if current == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                guard digits() > 0 else { throw failure(path, "a number needs digits after '.'") }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                isInteger = false
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw failure(path, "a number needs digits after 'e'") }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if isInteger, let i = Int(text) { return .int(i) }
            guard let d = Double(text), d.isFinite else {
                index = start
                throw failure(path, "the number \(text.prefix(40)) is out of range")
            }
            return .double(d)
        }
    }
}

/// The strict reader for JSON that comes over the network (the web app's API): the problem
/// with `bytes` (a key twice in one object, bad UTF-8, too deep), or nil.
public enum StrictJSONCheck {
    public static func problem(_ bytes: [UInt8]) -> String? {
        do {
            _ = try StrictJSON.parse(bytes)
            return nil
        } catch {
            return error.description
        }
    }
}
