@testable import BoardProfile
import Foundation
import Testing
@testable import Display
import ScreenRender

@Suite("The screen's devices: adapters and framebuffers found by name, hostile paths refused (#14)")
struct DeviceTests {
    /// A folder laid out like /sys with the given `<prefix>N/name` files.
    static func sysfs(_ entries: [String: String]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("questbox-sysfs-\(UUID().uuidString)").path
        for (path, name) in entries {
            let folder = root + path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try (name + "\n").write(toFile: folder + "/name", atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test("an I2C adapter is found by its kernel name, a bus number is taken as it is")
    func adapterByName() throws {
        let root = try Self.sysfs([
            "/sys/class/i2c-dev/i2c-1": "bcm2835 (i2c@7e804000)", "/sys/class/i2c-dev/i2c-11": "SMBus stub driver",
        ])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let finder = DeviceFinder(root: root)
        #expect(try finder.i2cDevice(.named("SMBus stub driver")) == root + "/dev/i2c-11")
        #expect(try finder.i2cDevice(.number(3)) == root + "/dev/i2c-3")
        do {
            _ = try finder.i2cDevice(.named("nothing"))
            Issue.record("a missing adapter was found")
        } catch let error as DisplayError {
            #expect(error.description == "no I2C adapter named \"nothing\" (found: 1 \"bcm2835 (i2c@7e804000)\", 11 \"SMBus stub driver\"); load i2c-dev, and on a Pi set dtparam=i2c_arm=on")
        }
    }

    @Test("no adapters at all, and a framebuffer found by its driver's name")
    func framebufferByName() throws {
        let root = try Self.sysfs(["/sys/class/graphics/fb0": "Virtual FB", "/sys/class/graphics/fbcon": "not a framebuffer"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let finder = DeviceFinder(root: root)
        #expect(try finder.framebufferDevice(named: "Virtual FB") == root + "/dev/fb0")
        #expect(throws: DisplayError("no I2C adapter named \"x\" (there are no adapters); load i2c-dev, and on a Pi set dtparam=i2c_arm=on")) {
            try finder.i2cDevice(.named("x"))
        }
        #expect(throws: DisplayError("no framebuffer named \"fbtft\" (found: 0 \"Virtual FB\")")) { try finder.framebufferDevice(named: "fbtft") }
    }

    @Test("a regular file, /dev/null or a missing node is not an I2C adapter or a framebuffer: one line, nothing written")
    func hostilePaths() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("questbox-not-a-bus-\(UUID().uuidString)").path
        try "keep me".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(throws: DisplayError("\(file): not an I2C adapter (i2c-dev character device)")) { try LinuxI2CBus(path: file, address: 0x3C) }
        #expect(throws: DisplayError("/dev/null: not an I2C adapter (i2c-dev character device)")) { try LinuxI2CBus(path: "/dev/null", address: 0x3C) }
        #expect(throws: DisplayError("\(file): not a framebuffer device")) { try FramebufferDisplay(path: file) }
        #expect(throws: DisplayError("/dev/null: not a framebuffer device")) { try FramebufferDisplay(path: "/dev/null") }
        #expect(throws: DisplayError("/nonexistent/i2c-9: No such file or directory (no such device: is the bus enabled and its driver loaded?)")) {
            try LinuxI2CBus(path: "/nonexistent/i2c-9", address: 0x3C)
        }
        #expect(throws: DisplayError("/dev/null: 0x80 is not a 7-bit device address")) { try LinuxI2CBus(path: "/dev/null", address: 0x80) }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep me")
    }

    @Test("a profile's display opens through the finder: a missing adapter is the finder's line")
    func opener() throws {
        let root = try Self.sysfs([:])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let config = DisplayConfig(
            kind: .ssd1306, i2cBus: .named("SMBus stub driver"), address: 0x3C, framebuffer: nil, width: 128, height: 64, rotation: 0,
            contrast: 127, idleOffMinutes: 10)
        #expect(throws: DisplayError("no I2C adapter named \"SMBus stub driver\" (there are no adapters); load i2c-dev, and on a Pi set dtparam=i2c_arm=on")) {
            try ScreenOpener.open(config, finder: DeviceFinder(root: root))
        }
    }
}

@Suite("The framebuffer picture: the frame scaled, centred and packed at the device's depth (#14)")
struct FramebufferGeometryTests {
    static func frame() -> MonoFrame {
        var frame = MonoFrame(width: 4, height: 2)
        frame[0, 0] = true
        frame[3, 1] = true
        return frame
    }

    @Test("32 bpp: lit pixels are all ones, scaled as large as fits and centred")
    func thirtyTwo() {
        let geometry = FramebufferGeometry(width: 10, height: 5, bitsPerPixel: 32, lineLength: 40, memoryLength: 200)
        #expect(geometry.scale(for: Self.frame()) == 2)
        let bytes = geometry.encode(Self.frame())
        // Scale 2: an 8×4 picture at (1, 0) of the 10×5 screen.
        func lit(_ x: Int, _ y: Int) -> Bool { bytes[y * 40 + x * 4..<y * 40 + x * 4 + 4].allSatisfy { $0 == 0xFF } }
        let litPixels = (0..<5).flatMap { y in (0..<10).filter { lit($0, y) }.map { [$0, y] } }
        #expect(litPixels == [[1, 0], [2, 0], [1, 1], [2, 1], [7, 2], [8, 2], [7, 3], [8, 3]])
        #expect(bytes.filter { $0 != 0 && $0 != 0xFF }.isEmpty)
    }

    @Test("16 bpp with padded lines, and 1 bpp with the leftmost pixel in the high bit (and inverted)")
    func otherDepths() {
        let sixteen = FramebufferGeometry(width: 4, height: 2, bitsPerPixel: 16, lineLength: 12, memoryLength: 24)
        #expect(sixteen.encode(Self.frame()) == [0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0])
        let mono = FramebufferGeometry(width: 4, height: 2, bitsPerPixel: 1, lineLength: 1, memoryLength: 2)
        #expect(mono.encode(Self.frame()) == [0b1000_0000, 0b0001_0000])
        var inverted = mono
        inverted.monoInverted = true
        #expect(inverted.encode(Self.frame()) == [0b0111_1111, 0b1110_1111])
    }

    @Test("a screen smaller than the frame shows its middle, clipped, never out of bounds")
    func smallerScreen() {
        let tiny = FramebufferGeometry(width: 2, height: 1, bitsPerPixel: 8, lineLength: 2, memoryLength: 2)
        #expect(tiny.scale(for: Self.frame()) == 1)
        // The 4×2 frame centred on 2×1: frame columns 1…2 of row 0, both dark.
        #expect(tiny.encode(Self.frame()) == [0, 0])
        var wide = MonoFrame(width: 4, height: 1)
        wide[1, 0] = true
        #expect(tiny.encode(wide) == [0xFF, 0])
    }

    @Test("a depth or size the memory cannot hold is refused with the device's numbers")
    func refusals() {
        #expect(throws: DisplayError("/dev/fb0: 4 bits per pixel (the box draws on 1, 8, 16, 24 or 32)")) {
            try FramebufferGeometry(width: 4, height: 2, bitsPerPixel: 4, lineLength: 2, memoryLength: 4).check("/dev/fb0")
        }
        #expect(throws: DisplayError("/dev/fb0: a 640×480 screen at 32 bpp with 2560-byte lines does not fit its 1000 bytes")) {
            try FramebufferGeometry(width: 640, height: 480, bitsPerPixel: 32, lineLength: 2560, memoryLength: 1000).check("/dev/fb0")
        }
        #expect(throws: DisplayError.self) {
            try FramebufferGeometry(width: 640, height: 480, bitsPerPixel: 32, lineLength: 100, memoryLength: 1 << 30).check("/dev/fb0")
        }
        #expect(throws: DisplayError.self) {
            try FramebufferGeometry(width: Int.max / 2, height: 2, bitsPerPixel: 32, lineLength: 1, memoryLength: 1).check("/dev/fb0")
        }
        #expect(throws: Never.self) { try FramebufferGeometry(width: 640, height: 480, bitsPerPixel: 16, lineLength: 1280, memoryLength: 1 << 20).check("/dev/fb0") }
    }
}
