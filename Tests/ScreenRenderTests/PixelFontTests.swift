import Testing
@testable import ScreenRender

@Suite("The box's screen: frames and the pixel font (#14, SPEC §2)")
struct PixelFontTests {
    static let ascii = (0x20...0x7E).map { Character(Unicode.Scalar(UInt8($0))) }

    @Test("every entry of the font table parses; printable ASCII, ·, …, → and ✓ each have a glyph of their own")
    func everyGlyph() {
        #expect(PixelFont.glyphs.count == PixelFont.tableEntryCount)
        let drawn = Self.ascii + ["·", "…", "→", "✓"]
        for c in drawn {
            #expect(PixelFont.glyphs[c] != nil, "no glyph for \(c)")
            #expect(PixelFont.glyphs[c]?.count == PixelFont.glyphHeight)
            #expect(PixelFont.glyphs[c]?.allSatisfy { $0 < 32 } == true)
        }
        // No two characters look the same (0/O, 1/l/I, 5/S …) and none is the missing box.
        var seen: [PixelFont.Glyph: Character] = [:]
        for c in drawn {
            let g = PixelFont.glyph(for: c)
            #expect(seen[g] == nil, "\(c) looks like \(seen[g].map(String.init) ?? "")")
            #expect(g != PixelFont.missing, "\(c) is drawn as the missing box")
            seen[g] = c
        }
    }

    @Test("any UTF-8 name renders: accents as their base letter, other scripts and emoji as a box, control characters as a box")
    func anyName() {
        #expect(PixelFont.glyph(for: "é") == PixelFont.glyph(for: "e"))
        #expect(PixelFont.glyph(for: "Ü") == PixelFont.glyph(for: "U"))
        #expect(PixelFont.glyph(for: "e\u{301}") == PixelFont.glyph(for: "e"))
        for c: Character in ["猫", "Ж", "🦖", "\u{7}", "\u{0}", "\u{202E}", "👨‍👩‍👧"] {
            #expect(PixelFont.glyph(for: c) == PixelFont.missing, "\(c.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        var frame = MonoFrame(width: 128, height: 8)
        let name = "Zähne putzen 🦷 歯磨き"  // 18 characters, one glyph each
        #expect(frame.draw(name, x: 0, y: 0) == 18 * PixelFont.advance)
        #expect(frame.litCount > 0)
    }

    @Test("text is drawn glyph by glyph, one dark column apart, clipped at every edge")
    func drawing() {
        var frame = MonoFrame(width: 12, height: 7)
        #expect(frame.draw("T1", x: 0, y: 0) == 12)
        let expected = """
            #####...#...
            ..#....##...
            ..#.....#...
            ..#.....#...
            ..#.....#...
            ..#.....#...
            ..#....###..
            """
        #expect(rows(frame) == expected.split(separator: "\n").map(String.init))

        // Partly outside on every side: what is inside is drawn, nothing else, no crash.
        for (x, y) in [(-3, 0), (9, 0), (0, -4), (0, 5), (-100, -100), (Int.max / 2, 3), (Int.min / 2, Int.min / 2)] {
            var clipped = MonoFrame(width: 12, height: 7)
            clipped.draw("T1", x: x, y: y)
            #expect(clipped.litCount <= frame.litCount)
        }
        var shifted = MonoFrame(width: 12, height: 7)
        shifted.draw("T", x: -2, y: 0)
        #expect(rows(shifted)[0] == "###.........")
    }

    @Test("scaled text (the estimate in big digits): each font pixel a square, widths add up")
    func scaled() {
        var frame = MonoFrame(width: 128, height: 64)
        let end = frame.draw("2:30", x: 0, y: 0, scale: 3)
        #expect(end == 4 * PixelFont.advance * 3)
        #expect(TextLayout.width(of: "2:30", scale: 3) == 4 * 18 - 3)
        var small = MonoFrame(width: 128, height: 64)
        small.draw("2:30", x: 0, y: 0)
        #expect(frame.litCount == small.litCount * 9)
        // Scale is kept to 1…8 whatever is asked.
        var huge = MonoFrame(width: 128, height: 64)
        huge.draw("8", x: 0, y: 0, scale: 1_000_000)
        var eight = MonoFrame(width: 128, height: 64)
        eight.draw("8", x: 0, y: 0, scale: 8)
        #expect(huge == eight)
    }

    @Test("a long name is cut cleanly with … to fit the 128-pixel line; short ones are kept")
    func fitting() {
        let long = "The Extremely Long Homework Session Quest"  // 41 characters
        let fitted = TextLayout.fitted(long, width: 128)
        #expect(fitted == "The Extremely Long H…")  // 21 glyphs: 125 pixels
        #expect(TextLayout.width(of: fitted) <= 128)
        #expect(TextLayout.fitted("Tooth Time", width: 128) == "Tooth Time")
        #expect(TextLayout.fitted("🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖", width: 128).count == 21)
        #expect(TextLayout.fitted("anything", width: 3) == "")
        #expect(TextLayout.fitted("anything", width: 5) == "…")
        #expect(TextLayout.fitted("anything", width: -1) == "" && TextLayout.fitted("anything", width: Int.max) == "anything")
        // The cut falls after a space: no space before the … ("Tooth Time and more " + …).
        #expect(TextLayout.fitted("Tooth Time and more stuff", width: 128) == "Tooth Time and more…")
        #expect(TextLayout.fitted("2:30 and then", width: 58, scale: 2) == "2:30…" && TextLayout.fitted("2:30 and then", width: 57, scale: 2) == "2:3…")
        #expect(TextLayout.width(of: "") == 0)
    }

    @Test("frames: PBM out and back, half a turn twice is no turn, hostile PBM refused in one line")
    func frames() throws {
        var frame = MonoFrame(width: 128, height: 64)
        frame.draw("Quest 1", x: 3, y: 2)
        let back = try MonoFrame(pbm: frame.pbm)
        #expect(back == frame)
        #expect(frame.rotated180.rotated180 == frame)
        #expect(frame.rotated180[124, 61] == frame[3, 2])
        #expect(try MonoFrame(pbm: "P1\n# a comment\n3 2\n101\n010\n").litCount == 3)
        for bad in ["", "P4\n1 1\n0", "P1\n0 5\n", "P1\n99999 1\n0", "P1\n2 2\n0 1 0", "P1\n1 1\n2", "P1\nx 1\n0"] {
            #expect(throws: MonoFrame.PBMError.self) { try MonoFrame(pbm: bad) }
        }
        #expect(MonoFrame(width: -5, height: 0).pixels.count == 1)
    }

    func rows(_ frame: MonoFrame) -> [String] {
        (0..<frame.height).map { y in String((0..<frame.width).map { frame[$0, y] ? "#" : "." }) }
    }
}
