import Foundation
import QuestCore
import ScreenRender

/// The simulated box as one full-screen view that redraws in place (SPEC §2): the screen as
/// the OLED would show it (block characters), the LED, the buzzer, the last sound and the
/// keys. Only rows that changed are rewritten, so an LED blinking while idle rewrites one
/// row, and nothing scrolls away. Without a terminal the simulator prints one line per
/// event instead (`TerminalGPIO`/`TerminalOutput` with no view).
public final class TerminalView: @unchecked Sendable {
    /// What the view shows; `compose` turns it into rows.
    public struct State: Equatable, Sendable {
        public var title: String
        public var screen: Screen?
        public var notice: String?
        public var led = "○ off"
        public var buzzer = false
        public var sound: String?
        public var keys: String

        public init(title: String, keys: String) {
            self.title = title
            self.keys = keys
        }
    }

    /// How the frame is drawn for the room the terminal has.
    public enum FrameStyle: Equatable, Sendable {
        case halfBlocks  // one column per pixel: 128 + 2 columns
        case quadrants  // 2×2 pixels per character: 64 + 2 columns
        case words  // too small for the frame: the screen's words only
    }

    private let lock = NSLock()
    private var state: State
    private var drawn: [String] = []
    private var drawnSize: (columns: Int, rows: Int)?
    private let write: (String) -> Void
    private let size: () -> (columns: Int, rows: Int)

    /// `write`: raw text to the terminal. `size`: the terminal's columns and rows now.
    public init(title: String, keys: String, write: @escaping (String) -> Void, size: @escaping () -> (columns: Int, rows: Int)) {
        state = State(title: title, keys: keys)
        self.write = write
        self.size = size
    }

    /// The alternate screen (the shell's scrollback is left as it was), cursor hidden.
    public func begin() {
        write("\u{1B}[?1049h\u{1B}[?25l")
        update { _ in }
    }

    /// Back to the shell's screen with the cursor shown.
    public func end() {
        write("\u{1B}[?25h\u{1B}[?1049l")
    }

    public func show(_ screen: Screen, notice: String?) {
        update {
            $0.screen = screen
            $0.notice = notice
        }
    }

    public func lights(led: String, buzzer: Bool) {
        update {
            $0.led = led
            $0.buzzer = buzzer
        }
    }

    public func sound(_ text: String) { update { $0.sound = text } }

    private func update(_ change: (inout State) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        change(&state)
        let now = size()
        let rows = Self.compose(state, columns: now.columns, rows: now.rows)
        let resized = drawnSize.map { $0 != now } ?? true
        if resized { drawn = [] }
        let text = Self.changes(from: drawn, to: rows, clearFirst: resized)
        drawn = rows
        drawnSize = now
        if !text.isEmpty { write(text) }
    }

    // MARK: pure parts (tested)

    public static func frameStyle(columns: Int, rows: Int, frame: (width: Int, height: Int) = (128, 64)) -> FrameStyle {
        // Title, border ×2, LED/sound, notice, words, blank, keys: 8 rows beside the frame.
        let frameRows = (frame.height + 1) / 2
        guard rows >= frameRows + 8 else { return .words }
        if columns >= frame.width + 2 { return .halfBlocks }
        if columns >= (frame.width + 1) / 2 + 2 { return .quadrants }
        return .words
    }

    /// The rows of the view, each at most `columns` characters wide (escape sequences aside).
    public static func compose(_ state: State, columns: Int, rows: Int) -> [String] {
        let frame = state.screen.map { ScreenRenderer.render($0, width: 128, height: 64) } ?? MonoFrame(width: 128, height: 64)
        let words = state.screen.map { $0.textLines.map(DisplayText.escaped) } ?? ["(starting…)"]
        var out = [fit(" TimeQuest Box · \(state.title)", columns)]
        let style = frameStyle(columns: columns, rows: rows)
        switch style {
        case .halfBlocks, .quadrants:
            let picture = style == .halfBlocks ? frame.halfBlockRows : frame.quadrantRows
            let width = picture.first?.count ?? 0
            out.append("┌" + String(repeating: "─", count: width) + "┐")
            out += picture.map { "│" + $0 + "│" }
            out.append("└" + String(repeating: "─", count: width) + "┘")
        case .words:
            out += words.map { fit(" │ " + $0, columns) }
        }
        let buzzer = state.buzzer ? "≋ on" : "– off"
        out.append(fit("  LED \(state.led)   buzzer \(buzzer)   sound \(state.sound.map { "♪ " + $0 } ?? "–")", columns, hasEscapes: true))
        out.append(fit(state.notice.map { "  ⚠ " + DisplayText.escaped($0) } ?? "", columns))
        if style != .words { out.append(fit("  " + words.joined(separator: " · "), columns)) }
        out.append("")
        out.append(fit("  " + state.keys, columns))
        return out
    }

    /// What to write to turn the rows on the terminal into `next`: each changed row,
    /// positioned and cleared to its end; rows past the new end cleared.
    public static func changes(from previous: [String], to next: [String], clearFirst: Bool) -> String {
        var out = clearFirst ? "\u{1B}[2J" : ""
        for (i, row) in next.enumerated() where clearFirst || i >= previous.count || previous[i] != row {
            out += "\u{1B}[\(i + 1);1H" + row + "\u{1B}[K"
        }
        if next.count < previous.count { out += "\u{1B}[\(next.count + 1);1H\u{1B}[J" }
        return out
    }

    /// Cut to the terminal's width, so no row wraps and pushes the others down.
    static func fit(_ text: String, _ columns: Int, hasEscapes: Bool = false) -> String {
        guard !hasEscapes else {
            // Count only what shows: skip ESC [ … letter sequences.
            var shown = 0, out = "", inEscape = false
            for c in text {
                if c == "\u{1B}" { inEscape = true }
                if inEscape {
                    out.append(c)
                    if c.isLetter { inEscape = false }
                    continue
                }
                guard shown < columns else { break }
                out.append(c)
                shown += 1
            }
            return out + (inEscape ? "" : "\u{1B}[0m")
        }
        return text.count <= columns ? text : String(text.prefix(max(0, columns - 1))) + "…"
    }
}
