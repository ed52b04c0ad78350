/// A frame drawn with block characters, for the simulated box in a terminal (SPEC §2): the
/// same pixels as the OLED, so what the terminal shows is what the glass would show.
extension MonoFrame {
    /// Two pixel rows per character (▀ ▄ █ and space): one column per pixel, so a 128-pixel
    /// frame needs 128 columns; pixels come out about square in a usual terminal font.
    public var halfBlockRows: [String] {
        stride(from: 0, to: height, by: 2).map { y in
            String((0..<width).map { x -> Character in
                switch (self[x, y], self[x, y + 1]) {
                case (true, true): "█"
                case (true, false): "▀"
                case (false, true): "▄"
                case (false, false): " "
                }
            })
        }
    }

    /// 2×2 pixels per character (the quadrant blocks): every pixel still shown, in half the
    /// columns (64 for the OLED), for an 80-column terminal.
    public var quadrantRows: [String] {
        stride(from: 0, to: height, by: 2).map { y in
            String(stride(from: 0, to: width, by: 2).map { x in
                let index = (self[x, y] ? 1 : 0) + (self[x + 1, y] ? 2 : 0) + (self[x, y + 1] ? 4 : 0) + (self[x + 1, y + 1] ? 8 : 0)
                return Self.quadrants[index]
            })
        }
    }

    /// Indexed by top-left 1, top-right 2, bottom-left 4, bottom-right 8.
    static let quadrants: [Character] = [" ", "▘", "▝", "▀", "▖", "▌", "▞", "▛", "▗", "▚", "▐", "▜", "▄", "▙", "▟", "█"]
}
