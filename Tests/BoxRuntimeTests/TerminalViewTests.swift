import BoxRuntime
import Foundation
import QuestCore
import ScreenRender
import Testing

/// A terminal that understands what `TerminalView` writes (cursor to row, text, clear to end
/// of line / screen), so the tests read the screen a person would see.
struct ReplayedTerminal {
    var rows: [Int: String] = [:]
    var clears = 0

    mutating func apply(_ text: String) {
        var rest = Substring(text)
        var row = 1
        while let esc = rest.firstIndex(of: "\u{1B}") {
            let plain = rest[rest.startIndex..<esc]
            if !plain.isEmpty { rows[row, default: ""] += plain }
            rest = rest[rest.index(after: esc)...]
            guard rest.first == "[" else { continue }
            rest = rest.dropFirst()
            guard let end = rest.firstIndex(where: { $0.isLetter }) else { break }
            let arguments = rest[rest.startIndex..<end]
            switch rest[end] {
            case "H":
                row = Int(arguments.split(separator: ";").first ?? "1") ?? 1
                rows[row] = ""
            case "J":
                if arguments == "2" {
                    rows = [:]
                    clears += 1
                } else {
                    rows = rows.filter { $0.key < row }
                }
            default: break  // K (the row was already emptied by H), m, h, l
            }
            rest = rest[rest.index(after: end)...]
        }
        if !rest.isEmpty { rows[row, default: ""] += rest }
    }

    /// The rows without colour codes, top to bottom.
    var screen: [String] {
        guard let last = rows.keys.max() else { return [] }
        return (1...last).map { (rows[$0] ?? "").replacingOccurrences(of: "\u{1B}[0m", with: "") }
    }
}

@Suite("#14 questbox simulate's full-screen view: the OLED's frame in block characters, LED, buzzer, last sound, keys; redrawn in place (SPEC §2)")
struct TerminalViewTests {
    static func pixels(fromHalfBlocks rows: [String]) -> [[Bool]] {
        rows.flatMap { row -> [[Bool]] in
            let cells = Array(row)
            return [cells.map { $0 == "▀" || $0 == "█" }, cells.map { $0 == "▄" || $0 == "█" }]
        }
    }

    static func pixels(fromQuadrants rows: [String]) -> [[Bool]] {
        let order: [Character] = [" ", "▘", "▝", "▀", "▖", "▌", "▞", "▛", "▗", "▚", "▐", "▜", "▄", "▙", "▟", "█"]
        return rows.flatMap { row -> [[Bool]] in
            let bits = row.map { order.firstIndex(of: $0) ?? -1 }
            #expect(!bits.contains(-1), "a character outside the quadrant blocks")
            return [bits.flatMap { [$0 & 1 != 0, $0 & 2 != 0] }, bits.flatMap { [$0 & 4 != 0, $0 & 8 != 0] }]
        }
    }

    static func pixels(of frame: MonoFrame) -> [[Bool]] {
        (0..<frame.height).map { y in (0..<frame.width).map { x in frame[x, y] } }
    }

    @Test("half blocks and quadrant blocks both show every pixel of every screen, nothing more")
    func blocksAreTheFrame() {
        for sample in ScreenSamples.tour {
            for (w, h) in [(128, 64), (128, 32)] {
                let frame = ScreenRenderer.render(sample.screen, width: w, height: h)
                #expect(frame.halfBlockRows.count == h / 2 && frame.halfBlockRows.allSatisfy { $0.count == w })
                #expect(frame.quadrantRows.count == h / 2 && frame.quadrantRows.allSatisfy { $0.count == w / 2 })
                #expect(Self.pixels(fromHalfBlocks: frame.halfBlockRows) == Self.pixels(of: frame), "\(sample.name) \(w)×\(h)")
                #expect(Self.pixels(fromQuadrants: frame.quadrantRows) == Self.pixels(of: frame), "\(sample.name) \(w)×\(h)")
            }
        }
        // An odd size: the missing row or column reads dark, never out of bounds.
        var odd = MonoFrame(width: 3, height: 3)
        odd[2, 2] = true
        #expect(odd.halfBlockRows == ["   ", "  ▀"])
        #expect(odd.quadrantRows == ["  ", " ▘"])
    }

    @Test("the frame style fits the terminal: half blocks from 130 columns, quadrants from 66, else the words; 40 rows for a frame")
    func styles() {
        #expect(TerminalView.frameStyle(columns: 130, rows: 40) == .halfBlocks)
        #expect(TerminalView.frameStyle(columns: 129, rows: 40) == .quadrants)
        #expect(TerminalView.frameStyle(columns: 80, rows: 40) == .quadrants)
        #expect(TerminalView.frameStyle(columns: 66, rows: 40) == .quadrants)
        #expect(TerminalView.frameStyle(columns: 65, rows: 40) == .words)
        #expect(TerminalView.frameStyle(columns: 200, rows: 39) == .words)
    }

    @Test("each style composes the screen, the LED, buzzer and sound, the notice and the keys, no row wider than the terminal")
    func composes() {
        var state = TerminalView.State(title: "simulated box on questbox-sim", keys: TerminalGPIO.help)
        state.screen = ScreenSamples.reveal
        state.led = "\u{1B}[92m●\u{1B}[0m green"
        state.buzzer = true
        state.sound = "reveal_spot_on"
        state.notice = "Not saved yet — the box keeps it and tries again"
        let frame = ScreenRenderer.render(ScreenSamples.reveal, width: 128, height: 64)
        for (columns, style) in [(140, TerminalView.FrameStyle.halfBlocks), (80, .quadrants), (50, .words)] {
            let rows = TerminalView.compose(state, columns: columns, rows: 45)
            let shown = rows.map { $0.replacingOccurrences(of: "\u{1B}[92m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "") }
            #expect(shown.allSatisfy { $0.count <= columns }, "\(columns): \(shown.filter { $0.count > columns })")
            #expect(shown.contains { $0.hasPrefix("  LED ● green   buzzer ≋ on   sound ♪ reveal_spot_on".prefix(columns)) }, "\(columns)")
            #expect(shown.contains { $0.hasPrefix("  ⚠ Not saved yet") }, "\(columns)")
            #expect(shown.last?.hasPrefix("  keys: l/space lock") == true, "\(columns)")
            switch style {
            case .halfBlocks: #expect(Array(rows[2..<34]) == frame.halfBlockRows.map { "│\($0)│" })
            case .quadrants: #expect(Array(rows[2..<34]) == frame.quadrantRows.map { "│\($0)│" })
            case .words:
                #expect(!rows.contains { $0.contains("┌") })
                #expect(rows.contains(" │ " + ScreenSamples.reveal.textLines[0]))
            }
        }
    }

    @Test("a change rewrites only its own rows; the replayed terminal always equals the composed view")
    func redrawsInPlace() {
        var written: [String] = []
        let view = TerminalView(title: "t", keys: TerminalGPIO.help, write: { written.append($0) }, size: { (80, 45) })
        var terminal = ReplayedTerminal()
        view.begin()
        view.show(ScreenSamples.idle, notice: nil)
        written.forEach { terminal.apply($0) }
        written = []
        // The idle LED blinking: one row each time, nothing scrolls.
        for on in [true, false, true, false] {
            view.lights(led: on ? "● blue" : "○ off", buzzer: false)
            #expect(written.count == 1)
            #expect(written.last?.components(separatedBy: "\u{1B}[").filter { $0.hasSuffix("1H") || $0.contains(";1H") }.count == 1)
            written.forEach { terminal.apply($0) }
            written = []
        }
        view.show(ScreenSamples.estimating(seconds: 165), notice: nil)
        view.sound("estimate_tick")
        written.forEach { terminal.apply($0) }
        var expected = TerminalView.State(title: "t", keys: TerminalGPIO.help)
        expected.screen = ScreenSamples.estimating(seconds: 165)
        expected.sound = "estimate_tick"
        #expect(terminal.screen == TerminalView.compose(expected, columns: 80, rows: 45).map { $0.replacingOccurrences(of: "\u{1B}[0m", with: "") })
        #expect(terminal.clears == 1)
    }

    @Test("a resized terminal is cleared and drawn whole in the style that now fits")
    func resizes() {
        final class Size: @unchecked Sendable { var value = (columns: 140, rows: 45) }
        let size = Size()
        var terminal = ReplayedTerminal()
        let view = TerminalView(title: "t", keys: "keys", write: { terminal.apply($0) }, size: { size.value })
        view.show(ScreenSamples.active, notice: nil)
        #expect(terminal.screen[1].count == 130)
        size.value = (80, 45)
        view.lights(led: "● red", buzzer: false)
        #expect(terminal.clears == 2)
        #expect(terminal.screen[1].count == 66)
        size.value = (60, 20)
        view.lights(led: "○ off", buzzer: false)
        #expect(terminal.screen.count < 20 && terminal.screen.allSatisfy { $0.count <= 60 })
    }
}
