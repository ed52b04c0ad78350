import CDisplay
import Glibc
import ScreenRender

/// A Linux framebuffer's shape as the kernel reports it (FBIOGET_VSCREENINFO/FSCREENINFO).
public struct FramebufferGeometry: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var bitsPerPixel: Int
    public var lineLength: Int
    public var memoryLength: Int
    public var xOffset = 0
    public var yOffset = 0
    /// 1 bpp only: a set bit is dark.
    public var monoInverted = false

    public init(width: Int, height: Int, bitsPerPixel: Int, lineLength: Int, memoryLength: Int, xOffset: Int = 0, yOffset: Int = 0, monoInverted: Bool = false) {
        self.width = width
        self.height = height
        self.bitsPerPixel = bitsPerPixel
        self.lineLength = lineLength
        self.memoryLength = memoryLength
        self.xOffset = xOffset
        self.yOffset = yOffset
        self.monoInverted = monoInverted
    }

    public static let depths = [1, 8, 16, 24, 32]
    /// The most bytes the box will write a frame as (a 4K 32-bit screen is 33 MB).
    public static let byteLimit = 64 << 20

    /// Refuses what the box cannot draw on: an unknown depth, or a visible area the reported
    /// memory does not hold (a driver's numbers are input too).
    public func check(_ device: String) throws {
        guard Self.depths.contains(bitsPerPixel) else {
            throw DisplayError("\(device): \(bitsPerPixel) bits per pixel (the box draws on 1, 8, 16, 24 or 32)")
        }
        guard (1...16384).contains(width), (1...16384).contains(height), (0...16384).contains(xOffset), (0...16384).contains(yOffset),
            lineLength > 0, lineLength * 8 >= (xOffset + width) * bitsPerPixel,
            (yOffset + height) * lineLength <= min(memoryLength, Self.byteLimit)
        else {
            throw DisplayError(
                "\(device): a \(width)×\(height) screen at \(bitsPerPixel) bpp with \(lineLength)-byte lines does not fit its \(memoryLength) bytes")
        }
    }

    /// Whole pixels of the frame per box pixel: as large as fits, at least 1.
    public func scale(for frame: MonoFrame) -> Int { max(1, min(width / frame.width, height / frame.height)) }

    /// The visible lines as bytes (from line `yOffset`): the frame scaled up and centred,
    /// lit pixels all ones (white at any depth), the rest dark.
    public func encode(_ frame: MonoFrame) -> [UInt8] {
        let scale = scale(for: frame)
        let left = (width - frame.width * scale) / 2
        let top = (height - frame.height * scale) / 2
        let darkByte: UInt8 = bitsPerPixel == 1 && monoInverted ? 0xFF : 0x00
        var bytes = [UInt8](repeating: darkByte, count: height * lineLength)
        let bytesPerPixel = bitsPerPixel / 8
        // Each frame row is packed once and copied to its `scale` screen lines.
        var line = [UInt8](repeating: darkByte, count: lineLength)
        for frameY in 0..<frame.height {
            for index in line.indices { line[index] = darkByte }
            for frameX in 0..<frame.width where frame[frameX, frameY] {
                for step in 0..<scale {
                    let x = left + frameX * scale + step
                    guard x >= 0, x < width else { continue }
                    let screenX = x + xOffset
                    if bitsPerPixel == 1 {
                        // The leftmost pixel in the byte's high bit, as the kernel's mono drawing packs it.
                        let mask = UInt8(0x80) >> UInt8(screenX % 8)
                        if monoInverted { line[screenX / 8] &= ~mask } else { line[screenX / 8] |= mask }
                    } else {
                        let start = screenX * bytesPerPixel
                        for index in start..<(start + bytesPerPixel) { line[index] = 0xFF }
                    }
                }
            }
            for step in 0..<scale {
                let y = top + frameY * scale + step
                guard y >= 0, y < height else { continue }
                bytes.replaceSubrange((y * lineLength)..<((y + 1) * lineLength), with: line)
            }
        }
        return bytes
    }
}

/// A framebuffer device (an SPI panel's fbtft, HDMI, the kernel's vfb) showing the box's
/// frames. Only the lines that changed are written; going dark writes a dark frame (not
/// every driver can blank) and waking writes the last frame again.
public final class FramebufferDisplay {
    public let path: String
    public let geometry: FramebufferGeometry
    public let driverName: String
    private let fd: Int32
    private var shown: [UInt8]?
    private var lastFrame: MonoFrame?
    public private(set) var isOn = true
    /// Bytes written by the last `show` or `setOn`.
    public private(set) var lastBytesWritten = 0

    public init(path: String) throws {
        var info = qb_fb_info()
        let result = qb_fb_open(path, &info)
        guard result >= 0 else {
            if -result == ENOTTY { throw DisplayError("\(path): not a framebuffer device") }
            throw DisplayError.system(path, -result)
        }
        fd = result
        self.path = path
        geometry = FramebufferGeometry(
            width: Int(info.width), height: Int(info.height), bitsPerPixel: Int(info.bits_per_pixel), lineLength: Int(info.line_length),
            memoryLength: Int(info.memory_length), xOffset: Int(info.x_offset), yOffset: Int(info.y_offset), monoInverted: info.mono_inverted != 0)
        driverName = withUnsafeBytes(of: info.name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        do {
            try geometry.check(path)
        } catch {
            qb_display_close(fd)
            throw error
        }
    }

    deinit { qb_display_close(fd) }

    public func show(_ frame: MonoFrame) throws {
        lastFrame = frame
        lastBytesWritten = 0
        guard isOn else { return }
        try write(geometry.encode(frame))
    }

    public func setOn(_ on: Bool) throws {
        lastBytesWritten = 0
        guard on != isOn else { return }
        isOn = on
        if on {
            if let lastFrame { try write(geometry.encode(lastFrame)) }
        } else {
            try write(geometry.encode(MonoFrame(width: 1, height: 1)))
        }
    }

    /// Writes the runs of lines that differ from what was written last (all the first time).
    private func write(_ bytes: [UInt8]) throws {
        let line = geometry.lineLength
        let changed = Self.changedLines(from: shown, to: bytes, lineLength: line, lines: geometry.height)
        var y = 0
        do {
            while y < geometry.height {
                guard changed[y] else {
                    y += 1
                    continue
                }
                var end = y + 1
                while end < geometry.height, changed[end] { end += 1 }
                try writeAll(bytes[(y * line)..<(end * line)], at: (geometry.yOffset + y) * line)
                y = end
            }
        } catch {
            shown = nil
            throw error
        }
        shown = bytes
    }

    /// Which lines differ (memcmp: a 4K screen has 2160 lines of 15 KB).
    static func changedLines(from old: [UInt8]?, to new: [UInt8], lineLength: Int, lines: Int) -> [Bool] {
        guard let old, old.count == new.count else { return [Bool](repeating: true, count: lines) }
        return old.withUnsafeBytes { before in
            new.withUnsafeBytes { after in
                guard let a = before.baseAddress, let b = after.baseAddress else { return [Bool](repeating: true, count: lines) }
                return (0..<lines).map { memcmp(a + $0 * lineLength, b + $0 * lineLength, lineLength) != 0 }
            }
        }
    }

    private func writeAll(_ bytes: ArraySlice<UInt8>, at offset: Int) throws {
        var done = 0
        try bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            while done < raw.count {
                let count = pwrite(fd, base + done, raw.count - done, off_t(offset + done))
                if count < 0 {
                    if errno == EINTR { continue }
                    throw DisplayError.system(path, errno, doing: "writing")
                }
                if count == 0 { throw DisplayError("\(path): the device took no more bytes at \(offset + done)") }
                done += count
                lastBytesWritten += count
            }
        }
    }
}
