/// Text on a `MonoFrame` in the `PixelFont`, at 1× for words and larger for the estimate.
public enum TextLayout {
    public static let scales = 1...8

    /// `scale` kept to 1…8, whatever is asked.
    static func clamped(_ scale: Int) -> Int { min(max(scale, scales.lowerBound), scales.upperBound) }

    /// How many glyphs fit across `width` pixels at `scale` (every glyph is as wide).
    static func capacity(_ width: Int, scale: Int) -> Int {
        let s = clamped(scale)
        return (min(max(width, 0), 1 << 20) + s) / (PixelFont.advance * s)
    }

    /// Pixels across `text` at `scale`, without the dark column after the last glyph.
    public static func width(of text: String, scale: Int = 1) -> Int {
        let s = clamped(scale)
        return text.isEmpty ? 0 : text.count * PixelFont.advance * s - s
    }

    /// `text` whole when it fits `width`, else its longest beginning that fits with "…" after
    /// it (a 40-character quest name on a 21-character line), or "" when not even "…" fits.
    /// Cut between characters, never inside one, so an accent or an emoji is kept or dropped
    /// whole.
    public static func fitted(_ text: String, width: Int, scale: Int = 1) -> String {
        let room = capacity(width, scale: scale)
        if text.count <= room { return text }
        guard room >= 1 else { return "" }
        var kept = String(text.prefix(room - 1))
        while kept.last == " " { kept.removeLast() }
        return kept + "…"
    }
}

extension MonoFrame {
    /// Draws `text` with its top-left corner at (x, y), each font pixel `scale`×`scale`
    /// (clamped to 1…8); whatever falls outside the frame is clipped. Returns the x where
    /// the next glyph would start.
    @discardableResult
    public mutating func draw(_ text: String, x: Int, y: Int, scale: Int = 1) -> Int {
        let s = TextLayout.clamped(scale)
        var left = x
        for character in text {
            // Nothing more can be seen past the right edge: stop there (a hostile name of a
            // million characters costs no more than a screenful).
            if left >= width { break }
            let glyph = PixelFont.glyph(for: character)
            for (row, bits) in glyph.enumerated() {
                for column in 0..<PixelFont.glyphWidth where bits & (1 << (PixelFont.glyphWidth - 1 - column)) != 0 {
                    fill(x: left + column * s, y: y + row * s, width: s, height: s)
                }
            }
            left += PixelFont.advance * s
        }
        return left
    }
}
