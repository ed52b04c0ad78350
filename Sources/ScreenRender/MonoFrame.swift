/// A one-bit picture the size of the box's screen (128×64 for the usual OLED): what the
/// renderer draws and what a display driver sends. Pixels are row-major, one byte each
/// (0 dark, 1 lit): the frame is 8 KiB at most for an OLED, and simple beats packed here.
public struct MonoFrame: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public private(set) var pixels: [UInt8]

    /// A dark frame; sizes below 1 become 1, so no size can make an empty or negative buffer.
    public init(width: Int, height: Int) {
        self.width = max(1, min(width, 4096))
        self.height = max(1, min(height, 4096))
        pixels = [UInt8](repeating: 0, count: self.width * self.height)
    }

    public subscript(x: Int, y: Int) -> Bool {
        get { contains(x, y) && pixels[y * width + x] != 0 }
        set { if contains(x, y) { pixels[y * width + x] = newValue ? 1 : 0 } }
    }

    /// Drawing outside the frame is clipped, never a crash (a long name runs off the edge).
    public func contains(_ x: Int, _ y: Int) -> Bool { x >= 0 && y >= 0 && x < width && y < height }

    /// Sets a rectangle, clipped to the frame (any Int in, no overflow: values are clamped first).
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, lit: Bool = true) {
        let limit = 1 << 20
        let (cx, cy) = (min(max(x, -limit), limit), min(max(y, -limit), limit))
        let (cw, ch) = (min(max(w, 0), limit), min(max(h, 0), limit))
        let x0 = max(0, cx), x1 = min(width, cx + cw), y0 = max(0, cy), y1 = min(height, cy + ch)
        guard x0 < x1, y0 < y1 else { return }
        for yy in y0..<y1 {
            for xx in x0..<x1 { pixels[yy * width + xx] = lit ? 1 : 0 }
        }
    }

    /// The frame turned half a turn (a module mounted upside down).
    public var rotated180: MonoFrame {
        var turned = self
        turned.pixels.reverse()
        return turned
    }

    public var litCount: Int { pixels.reduce(0) { $0 + Int($1) } }

    /// As a plain PBM (P1): a text picture any image viewer opens and any diff shows.
    public var pbm: String {
        var out = "P1\n\(width) \(height)\n"
        out.reserveCapacity(out.utf8.count + pixels.count * 2)
        for y in 0..<height {
            out += pixels[(y * width)..<((y + 1) * width)].map { $0 == 0 ? "0" : "1" }.joined(separator: " ")
            out += "\n"
        }
        return out
    }

    public struct PBMError: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Reads a plain PBM (P1) as `pbm` writes it (comments allowed), for committed pictures.
    public init(pbm text: String) throws {
        var tokens: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            tokens += content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        }
        guard tokens.count >= 3, tokens[0] == "P1" else { throw PBMError(description: "not a plain PBM (P1)") }
        guard let w = Int(tokens[1]), let h = Int(tokens[2]), (1...4096).contains(w), (1...4096).contains(h) else {
            throw PBMError(description: "size \(tokens[1])×\(tokens[2]) is not 1…4096 each")
        }
        // P1 may also run the digits together ("0101"): read them one by one.
        let digits = tokens.dropFirst(3).flatMap { $0 }
        guard digits.count == w * h else { throw PBMError(description: "\(digits.count) pixels for \(w)×\(h)") }
        guard digits.allSatisfy({ $0 == "0" || $0 == "1" }) else { throw PBMError(description: "a pixel is not 0 or 1") }
        self.init(width: w, height: h)
        pixels = digits.map { $0 == "1" ? 1 : 0 }
    }
}
