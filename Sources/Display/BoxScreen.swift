import BoardProfile
import Foundation
import ScreenRender

/// The box's own screen as the runtime sees it: frames in, dark or lit. An OLED on I2C and a
/// framebuffer are the live ones; tests hand in a recording one.
public protocol BoxScreen: AnyObject {
    /// One line for logs and `doctor`: "ssd1306 128×64 at 0x3c on /dev/i2c-1".
    var summary: String { get }
    /// Shows the frame (sending only what changed). When dark, it is kept for waking.
    func show(_ frame: MonoFrame) throws
    func setOn(_ on: Bool) throws
    /// What the last `show` or `setOn` wrote, for `display test` and the figures.
    var lastWrite: String { get }
    /// Asks the device whether it is there without changing what it shows (`doctor`).
    func probe() throws
}

/// An SSD1306/SH1106 on its I2C bus as a `BoxScreen`: `start` runs on the first frame.
public final class OLEDScreen: BoxScreen {
    public let summary: String
    public let driver: OLEDDriver
    private var started = false
    private var wantOn = true

    public init(driver: OLEDDriver, summary: String) {
        self.driver = driver
        self.summary = summary
    }

    public func show(_ frame: MonoFrame) throws {
        if !started {
            try driver.start(showing: frame)
            started = true
            if !wantOn { try driver.setOn(false) }
            return
        }
        try driver.show(frame)
    }

    public func setOn(_ on: Bool) throws {
        wantOn = on
        if started { try driver.setOn(on) }
    }

    public var lastWrite: String {
        let traffic = driver.lastTraffic
        let ms = { (hertz: Double) in String(format: "%.1f ms", traffic.seconds(atHertz: hertz) * 1000) }
        return "\(traffic.bytes) bytes in \(traffic.transactions) writes (\(ms(400_000)) at 400 kHz, \(ms(100_000)) at 100 kHz)"
    }

    public func probe() throws { try driver.probe() }
}

extension FramebufferDisplay: BoxScreen {
    public var summary: String {
        "framebuffer \(path) \"\(driverName)\" \(geometry.width)×\(geometry.height) at \(geometry.bitsPerPixel) bpp"
    }

    public var lastWrite: String { "\(lastBytesWritten) bytes" }

    /// Opening it read its geometry: a framebuffer that opened is there.
    public func probe() throws {}
}

/// Opens the screen a board profile describes, or says in one line why it cannot.
public enum ScreenOpener {
    public static func open(_ config: DisplayConfig, finder: DeviceFinder = DeviceFinder()) throws -> BoxScreen {
        switch config.kind {
        case .ssd1306, .sh1106:
            guard let bus = config.i2cBus, let address = config.address else { throw DisplayError("display: no I2C bus or address") }
            let path = try finder.i2cDevice(bus)
            let controller: OLEDController = config.kind == .sh1106 ? .sh1106 : .ssd1306
            let driver = try OLEDDriver(
                bus: try LinuxI2CBus(path: path, address: address), controller: controller, height: config.height,
                rotation: config.rotation, contrast: config.contrast)
            return OLEDScreen(driver: driver, summary: "\(config.kind.rawValue) 128×\(config.height) at 0x\(String(address, radix: 16)) on \(path)")
        case .framebuffer:
            guard let name = config.framebuffer else { throw DisplayError("display: no framebuffer name") }
            return try FramebufferDisplay(path: try finder.framebufferDevice(named: name))
        }
    }
}
