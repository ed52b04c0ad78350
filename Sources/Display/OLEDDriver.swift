import ScreenRender

/// The two OLED controllers small box screens carry. They take the same commands for what
/// the box does, but the SH1106 has 132 columns of memory for its 128 pixels (from column 2),
/// no charge-pump command and only page addressing.
public enum OLEDController: String, Sendable {
    case ssd1306
    case sh1106

    /// Where the glass's first pixel column sits in the controller's memory.
    public var columnOffset: Int { self == .sh1106 ? 2 : 0 }
    /// Columns of display memory.
    public var memoryColumns: Int { self == .sh1106 ? 132 : 128 }
}

/// What the box sends to an OLED, as SMBus transactions: a control byte 0x00 before a command
/// byte, 0x40 before display data (the SSD1306/SH1106 I2C protocol).
public enum OLEDControl {
    public static let command: UInt8 = 0x00
    public static let data: UInt8 = 0x40
}

/// Bytes put on the wire, to state what a screen change costs on a real bus.
public struct BusTraffic: Equatable, Sendable {
    public var transactions = 0
    /// Every byte of every transaction, the address byte included.
    public var bytes = 0
    public init(transactions: Int = 0, bytes: Int = 0) {
        self.transactions = transactions
        self.bytes = bytes
    }

    /// Time on an I2C bus at `hertz`: 9 clocks a byte (8 bits and the acknowledge) and about
    /// 2 for each transaction's start and stop.
    public func seconds(atHertz hertz: Double) -> Double { Double(bytes * 9 + transactions * 2) / hertz }
}

/// An SSD1306 or SH1106 on an I2C bus: set up once, then sent frames. Only the columns that
/// changed since the last frame go out (a digit step is a few dozen bytes, a full 128×64
/// frame about 1.1 KB, ≈ 26 ms at 400 kHz). After any failed write the next frame is sent
/// whole, since what the glass shows is then unknown.
public final class OLEDDriver {
    public let controller: OLEDController
    public let width = 128
    public let height: Int
    public let rotation: Int
    private let bus: I2CBus
    private var contrast: UInt8
    /// The pages as last sent (height/8 rows of `width` bytes), nil when unknown.
    private var shown: [UInt8]?
    public private(set) var isOn = false
    /// What the last `show`, `setOn` or `start` put on the bus.
    public private(set) var lastTraffic = BusTraffic()

    public init(bus: I2CBus, controller: OLEDController, height: Int, rotation: Int = 0, contrast: Int = 127) throws {
        guard height == 64 || (height == 32 && controller == .ssd1306) else {
            throw DisplayError("\(controller.rawValue): 128×\(height) is not a size this driver knows")
        }
        guard rotation == 0 || rotation == 180 else { throw DisplayError("\(controller.rawValue): rotation \(rotation) is not 0 or 180") }
        self.bus = bus
        self.controller = controller
        self.height = height
        self.rotation = rotation
        self.contrast = UInt8(clamping: contrast)
    }

    var pageCount: Int { height / 8 }

    /// The set-up sequence, display off; `start` sends it, then the frame, then turns it on.
    public var setupCommands: [UInt8] {
        switch controller {
        case .ssd1306:
            return [
                0xAE, 0xD5, 0x80, 0xA8, UInt8(height - 1), 0xD3, 0x00, 0x40, 0x8D, 0x14, 0x20, 0x02,
                0xA1, 0xC8, 0xDA, height == 64 ? 0x12 : 0x02, 0x81, contrast, 0xD9, 0xF1, 0xDB, 0x40, 0x2E, 0xA4, 0xA6,
            ]
        case .sh1106:
            return [
                0xAE, 0xD5, 0x80, 0xA8, 0x3F, 0xD3, 0x00, 0x40, 0xAD, 0x8B,
                0xA1, 0xC8, 0xDA, 0x12, 0x81, contrast, 0xD9, 0x22, 0xDB, 0x35, 0xA4, 0xA6,
            ]
        }
    }

    /// Sets the controller up, draws `frame` into its memory while the glass is dark (its
    /// memory holds noise at power-up), then lights it.
    public func start(showing frame: MonoFrame) throws {
        var traffic = BusTraffic()
        shown = nil
        isOn = false
        try send(commands: setupCommands, traffic: &traffic)
        try draw(frame, traffic: &traffic)
        try send(commands: [0xAF], traffic: &traffic)
        isOn = true
        lastTraffic = traffic
    }

    /// Sends what changed between the last frame and this one; nothing when nothing did.
    public func show(_ frame: MonoFrame) throws {
        var traffic = BusTraffic()
        defer { lastTraffic = traffic }
        try draw(frame, traffic: &traffic)
    }

    /// Turns the glass off (idle, night: OLEDs burn in) or on; memory keeps the picture.
    public func setOn(_ on: Bool) throws {
        var traffic = BusTraffic()
        defer { lastTraffic = traffic }
        guard on != isOn else { return }
        try send(commands: [on ? 0xAF : 0xAE], traffic: &traffic)
        isOn = on
    }

    /// A NOP command (0xE3): acknowledged by a module that is there, changes nothing it shows.
    public func probe() throws {
        try bus.writeByteData(command: OLEDControl.command, value: 0xE3)
    }

    public func setContrast(_ value: Int) throws {
        var traffic = BusTraffic()
        defer { lastTraffic = traffic }
        contrast = UInt8(clamping: value)
        try send(commands: [0x81, contrast], traffic: &traffic)
    }

    /// The frame as the controller's memory holds it: one byte per column per 8-row page,
    /// the top row in the low bit.
    public func pages(of frame: MonoFrame) -> [UInt8] {
        let upright = rotation == 180 ? frame.rotated180 : frame
        var pages = [UInt8](repeating: 0, count: pageCount * width)
        for page in 0..<pageCount {
            for x in 0..<width {
                var byte: UInt8 = 0
                for bit in 0..<8 where upright[x, page * 8 + bit] { byte |= 1 << UInt8(bit) }
                pages[page * width + x] = byte
            }
        }
        return pages
    }

    private func draw(_ frame: MonoFrame, traffic: inout BusTraffic) throws {
        let next = pages(of: frame)
        do {
            for page in 0..<pageCount {
                let row = page * width
                var first = 0
                var last = width - 1
                if let shown {
                    guard let changed = (0..<width).first(where: { next[row + $0] != shown[row + $0] }) else { continue }
                    first = changed
                    last = (0..<width).last(where: { next[row + $0] != shown[row + $0] }) ?? changed
                }
                let column = first + controller.columnOffset
                try send(commands: [0xB0 | UInt8(page), UInt8(column & 0x0F), 0x10 | UInt8(column >> 4)], traffic: &traffic)
                var start = row + first
                let end = row + last + 1
                while start < end {
                    let stop = min(start + i2cBlockLimit, end)
                    try bus.writeBlock(command: OLEDControl.data, bytes: next[start..<stop])
                    traffic.transactions += 1
                    traffic.bytes += 2 + (stop - start)
                    start = stop
                }
            }
        } catch {
            shown = nil
            throw error
        }
        shown = next
    }

    private func send(commands: [UInt8], traffic: inout BusTraffic) throws {
        do {
            for command in commands {
                try bus.writeByteData(command: OLEDControl.command, value: command)
                traffic.transactions += 1
                traffic.bytes += 3
            }
        } catch {
            shown = nil
            throw error
        }
    }
}
