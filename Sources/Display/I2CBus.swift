import Glibc
import CDisplay

/// What the OLED driver needs of an I2C bus: the two SMBus writes an SSD1306/SH1106 takes,
/// which a Pi's I2C controller and the kernel's i2c-stub both carry.
public protocol I2CBus: AnyObject {
    /// One SMBus write-byte-data transaction: [address, command, value].
    func writeByteData(command: UInt8, value: UInt8) throws
    /// One SMBus I2C-block write: [address, command, bytes…] with 1…32 bytes.
    func writeBlock(command: UInt8, bytes: ArraySlice<UInt8>) throws
}

/// The most bytes one SMBus I2C-block write carries (I2C_SMBUS_BLOCK_MAX).
public let i2cBlockLimit = 32

/// An i2c-dev character device with one device selected; the fd is closed when this goes.
public final class LinuxI2CBus: I2CBus {
    public let path: String
    public let address: Int
    private let fd: Int32

    public init(path: String, address: Int) throws {
        guard (0x03...0x77).contains(address) else { throw DisplayError("\(path): 0x\(String(address, radix: 16)) is not a 7-bit device address") }
        let result = qb_i2c_open(path, Int32(address))
        guard result >= 0 else {
            if -result == ENOTTY { throw DisplayError("\(path): not an I2C adapter (i2c-dev character device)") }
            throw DisplayError.system(path, -result)
        }
        fd = result
        self.path = path
        self.address = address
        let can = qb_i2c_can_write_oled(fd)
        guard can == 1 else {
            qb_display_close(fd)
            if can < 0 { throw DisplayError.system(path, -can, doing: "asking what the adapter can do") }
            throw DisplayError("\(path): the adapter cannot do SMBus byte-data and I2C-block writes")
        }
    }

    deinit { qb_display_close(fd) }

    public func writeByteData(command: UInt8, value: UInt8) throws {
        let result = qb_i2c_write_byte_data(fd, command, value)
        if result < 0 { throw failure(-result) }
    }

    public func writeBlock(command: UInt8, bytes: ArraySlice<UInt8>) throws {
        guard (1...i2cBlockLimit).contains(bytes.count) else {
            throw DisplayError("\(path): a block write of \(bytes.count) bytes (1…\(i2cBlockLimit))")
        }
        let result = bytes.withUnsafeBufferPointer { qb_i2c_write_block(fd, command, $0.baseAddress, Int32($0.count)) }
        if result < 0 { throw failure(-result) }
    }

    /// A write nobody acknowledged reads as ENXIO/EREMOTEIO: say what that means on a box.
    private func failure(_ errno: Int32) -> DisplayError {
        if errno == ENXIO || errno == EREMOTEIO || errno == EIO || errno == ENODEV {
            return DisplayError("\(path): no device answers at 0x\(String(address, radix: 16)) (check the wiring: SDA, SCL, 3.3 V, GND, and the address)")
        }
        return DisplayError.system(path, errno, doing: "writing to 0x\(String(address, radix: 16))")
    }
}
