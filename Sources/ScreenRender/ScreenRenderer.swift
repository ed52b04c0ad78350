import QuestCore

/// The core's screens drawn for a small monochrome display (128×64 or 128×32): a line or two
/// of words above, one thing in big type in the middle (the estimate in M:SS, the rating, the
/// XP), and what to press below. GAME-2: the active screen has no clock, countdown or
/// elapsed time; `ActiveScreen` has no field for one, and the renderer adds none.
public enum ScreenRenderer {
    /// What one screen says, before it is placed on a frame of a given size.
    public struct Layout: Equatable, Sendable {
        public var top: [String]
        public var big: String?
        public var bottom: [String]
    }

    public static func render(_ screen: Screen, notice: String? = nil, width: Int = 128, height: Int = 64) -> MonoFrame {
        draw(layout(screen, notice: notice), width: width, height: height)
    }

    /// The shared words (`Screen.words`) placed for the glass: what is about, the big item,
    /// then the lines and the button hint as far as they fit. `notice` (a play not saved
    /// yet) comes first below, as on every surface.
    public static func layout(_ screen: Screen, notice: String? = nil) -> Layout {
        let words = screen.words
        return Layout(top: words.top, big: words.big, bottom: (notice.map { [$0] } ?? []) + (words.glassLines ?? words.lines) + (words.hint.map { [$0] } ?? []))
    }

    /// Places a layout: on 64 rows, two rows of words above, the big item at the largest size
    /// (3×, 2×, then 1× cut with …) that fits, two rows below; on 32 rows, one row above and
    /// one below. Below, the lines come in order, a line too long for one row wrapping onto
    /// the next at a space, until the rows are full (so a long notice is read whole and the
    /// button hint gives way to it).
    public static func draw(_ layout: Layout, width: Int, height: Int) -> MonoFrame {
        var frame = MonoFrame(width: width, height: height)
        let line = PixelFont.lineHeight
        let compact = frame.height < 48
        let top = compact ? Array(layout.top.prefix(1)) : Array(layout.top.prefix(2))
        let bottom = rows(layout.bottom, count: compact ? 1 : 2, width: frame.width)
        for (i, text) in top.enumerated() {
            frame.draw(TextLayout.fitted(text, width: frame.width), x: 0, y: i * line)
        }
        for (i, text) in bottom.enumerated() {
            frame.draw(text, x: 0, y: frame.height - (bottom.count - i) * line + 1)
        }
        if let big = layout.big {
            let above = top.count * line, below = frame.height - bottom.count * line
            let room = below - above
            let scales = (compact ? [2, 1] : [3, 2, 1]).filter { PixelFont.glyphHeight * $0 <= room }
            let scale = scales.first { TextLayout.width(of: big, scale: $0) <= frame.width } ?? 1
            let text = TextLayout.fitted(big, width: frame.width, scale: scale)
            let x = (frame.width - TextLayout.width(of: text, scale: scale)) / 2
            let y = above + (room - PixelFont.glyphHeight * scale) / 2
            frame.draw(text, x: x, y: y, scale: scale)
        }
        return frame
    }

    /// `lines` laid into at most `count` rows of `width` pixels: whole lines while they fit,
    /// a long one wrapped at spaces into the rows left, the last row cut with "…".
    static func rows(_ lines: [String], count: Int, width: Int) -> [String] {
        let room = max(1, TextLayout.capacity(width, scale: 1))
        var out: [String] = []
        for text in lines where out.count < count {
            var rest = Substring(text)
            while !rest.isEmpty && out.count < count {
                if rest.count <= room || out.count == count - 1 {
                    out.append(TextLayout.fitted(String(rest), width: width))
                    break
                }
                // The last space that keeps the row within the room; none: cut mid-word.
                let window = rest.prefix(room + 1)
                let cut = window.lastIndex(of: " ").flatMap { $0 > rest.startIndex ? $0 : nil } ?? rest.index(rest.startIndex, offsetBy: room)
                var row = String(rest[..<cut])
                while row.last == " " { row.removeLast() }
                out.append(row)
                rest = rest[cut...].drop { $0 == " " }
            }
        }
        return out
    }
}
