/// Text on a `MonoFrame` in the `PixelFont`, at 1× for words and larger for the estimate.
public enum TextLayout {
    public static let scales = 1...8

    /// Pixels across `text` at `scale`, without the dark column after the last glyph.
    public static func width(of text: String, scale: Int = 1) -> Int {
        let s = min(max(scale, scales.lowerBound), scales.upperBound)
        return text.isEmpty ? 0 : text.count * PixelFont.advance * s - s
    }

    /// `text` whole when it fits `width`, else its longest beginning that fits with "…" after
    /// it (a 40-character quest name on a 21-character line). Cut between characters, never
    /// inside one, so an accent or an emoji is kept or dropped whole.
    public static func fitted(_ text: String, width: Int, scale: Int = 1) -> String {
        if self.width(of: text, scale: scale) <= width { return text }
        var kept = ""
        for character in text {
            if self.width(of: kept + String(character) + "…", scale: scale) > width { break }
            kept.append(character)
        }
        while kept.last == " " { kept.removeLast() }
        return self.width(of: kept + "…", scale: scale) <= width ? kept + "…" : ""
    }
}

extension MonoFrame {
    /// Draws `text` with its top-left corner at (x, y), each font pixel `scale`×`scale`
    /// (clamped to 1…8); whatever falls outside the frame is clipped. Returns the x where
    /// the next glyph would start.
    @discardableResult
    public mutating func draw(_ text: String, x: Int, y: Int, scale: Int = 1) -> Int {
        let s = min(max(scale, TextLayout.scales.lowerBound), TextLayout.scales.upperBound)
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
