import Foundation
@testable import RoutineFormat
import Testing

@Suite("StrictJSON reads what RFC 8259 allows, exactly")
struct StrictJSONTests {
    @Test("escapes, surrogate pairs, integers apart from fractions, empty containers, whitespace")
    func valid() throws {
        let text = #" { "a" : [1, -0, 2.5, 1e2, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"], "b": {}, "c": [] } "#
        let value = try StrictJSON.parse(Array(text.utf8))
        #expect(value == .object([
            "a": .array([.int(1), .int(0), .double(2.5), .double(100), .bool(true), .bool(false), .null, .string("x\"\\/\u{8}\u{C}\n\r\té😀")]),
            "b": .object([:]), "c": .array([]),
        ]))
    }

    @Test("what it refuses, and where it says the problem is")
    func invalid() {
        let cases: [(String, String)] = [
            ("", "the file ends where a value should be (line 1, column 1)"),
            ("[1,]", "[1]: unexpected ']' where a value should be (line 1, column 4)"),
            ("01", "a number may not start with 0 (line 1, column 3)"),
            ("{\"a\":1}\n{", "more text after the end of the JSON value (line 2, column 1)"),
            ("\"\\ud800\"", "a lone UTF-16 surrogate escape (line 1, column 8)"),
            ("\"a\u{1}\"", "a control character (byte 0x1) inside text; write it as an escape (line 1, column 3)"),
            ("[\"\\q\"]", "[0]: unknown escape '\\q' (line 1, column 5)"),
            ("\u{FEFF}{}", "unexpected byte 0xEF where a value should be (line 1, column 1)"),
        ]
        for (text, message) in cases {
            #expect(throws: StrictJSON.Failure.self) { try StrictJSON.parse(Array(text.utf8)) }
            do { _ = try StrictJSON.parse(Array(text.utf8)) } catch { #expect(error.description == message, "\(text)") }
        }
    }
}
