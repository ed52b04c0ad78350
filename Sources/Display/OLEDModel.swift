import ScreenRender

/// An SSD1306/SH1106 as far as the box uses it, rebuilt from the transactions on the bus:
/// its display memory, page and column pointers, power, contrast and scan directions. Tests
/// decode the driver's writes with it, and the HIL decodes the kernel's trace of a real
/// i2c-stub bus with it, so both check the picture a module would show, not the driver's intent.
public struct OLEDModel: Sendable {
    public struct DecodeError: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public let controller: OLEDController
    public private(set) var memory: [UInt8]
    public private(set) var isOn = false
    public private(set) var contrast: UInt8 = 0x7F
    public private(set) var multiplexRatio = 64
    public private(set) var chargePumpOn = false
    /// A1 (column 0 at the right end of the segment drivers) and C8 (COM scan from the last
    /// row) together are how these modules are wired to look upright.
    public private(set) var segmentRemap = false
    public private(set) var comScanReversed = false
    public private(set) var commandCount = 0
    public private(set) var dataBytes = 0
    private var page = 0
    private var column = 0
    /// A command waiting for its parameter bytes.
    private var pending: (command: UInt8, remaining: Int)?

    public init(controller: OLEDController) {
        self.controller = controller
        memory = [UInt8](repeating: 0, count: 8 * controller.memoryColumns)
    }

    /// One SMBus write-byte-data: control byte then one byte.
    public mutating func receive(command control: UInt8, value: UInt8) throws {
        try receive(block: control, bytes: [value])
    }

    /// One SMBus I2C-block write: control byte then the bytes.
    public mutating func receive(block control: UInt8, bytes: [UInt8]) throws {
        guard bytes.count <= i2cBlockLimit else {
            throw DecodeError(description: "a write of \(bytes.count) bytes (an SMBus block carries \(i2cBlockLimit))")
        }
        switch control {
        case OLEDControl.command: for byte in bytes { apply(command: byte) }
        case OLEDControl.data: for byte in bytes { write(data: byte) }
        default:
            throw DecodeError(description: "control byte 0x\(String(control, radix: 16)) (the box sends 0x00 commands and 0x40 data)")
        }
    }

    private mutating func write(data: UInt8) {
        memory[page * controller.memoryColumns + column] = data
        dataBytes += 1
        // Page addressing: the column wraps within the page, the page stays.
        column = (column + 1) % controller.memoryColumns
    }

    private mutating func apply(command byte: UInt8) {
        commandCount += 1
        if let waiting = pending {
            parameter(byte, for: waiting.command)
            pending = waiting.remaining > 1 ? (waiting.command, waiting.remaining - 1) : nil
            return
        }
        switch byte {
        case 0x00...0x0F: column = (column & 0xF0) | Int(byte & 0x0F)
        case 0x10...0x1F: column = ((Int(byte & 0x0F) << 4) | (column & 0x0F)) % controller.memoryColumns
        case 0xB0...0xB7: page = Int(byte & 0x07)
        case 0xAE: isOn = false
        case 0xAF: isOn = true
        case 0xA0: segmentRemap = false
        case 0xA1: segmentRemap = true
        case 0xC0: comScanReversed = false
        case 0xC8: comScanReversed = true
        case 0x81, 0xA8, 0xD3, 0xD5, 0xD9, 0xDA, 0xDB, 0x8D, 0x20, 0xAD: pending = (byte, 1)
        case 0x21, 0x22: pending = (byte, 2)
        default: break  // start line, normal/inverse, resume, scroll off, NOP: no state the box reads
        }
    }

    private mutating func parameter(_ value: UInt8, for command: UInt8) {
        switch command {
        case 0x81: contrast = value
        case 0xA8: multiplexRatio = Int(value & 0x3F) + 1
        case 0x8D: chargePumpOn = value & 0x04 != 0
        case 0xAD: chargePumpOn = value & 0x01 != 0  // SH1106's DC-DC converter
        default: break
        }
    }

    /// What the glass shows, 128 wide and as tall as the multiplex ratio: upright when the
    /// scan directions are A1/C8, mirrored on the axis whose direction is not.
    public var frame: MonoFrame {
        let height = multiplexRatio
        var frame = MonoFrame(width: 128, height: height)
        for y in 0..<height {
            for x in 0..<128 {
                let column = x + controller.columnOffset
                let byte = memory[(y / 8) * controller.memoryColumns + column]
                guard byte & (1 << UInt8(y % 8)) != 0 else { continue }
                frame[segmentRemap ? x : 127 - x, comScanReversed ? y : height - 1 - y] = true
            }
        }
        return frame
    }
}
