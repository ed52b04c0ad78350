import Foundation
import QuestCore
import Yams

/// The box's own screen (SPEC §2), from the profile's `display:` section: a 128×64 or
/// 128×32 SSD1306/SH1106 OLED on an I2C bus, or a Linux framebuffer; no section (or
/// `type: none`) is a box without a screen, which is complete with its LED and buzzer.
public struct DisplayConfig: Equatable, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case ssd1306
        case sh1106
        case framebuffer
    }

    /// An I2C adapter: by its number (`/dev/i2c-N`) or by the name the kernel gives it in
    /// `/sys/class/i2c-dev/i2c-N/name` (numbers move between kernels and overlays; names don't).
    public enum I2CBus: Equatable, Sendable {
        case number(Int)
        case named(String)
    }

    public var kind: Kind
    /// The OLED's bus and 7-bit address (nil for a framebuffer).
    public var i2cBus: I2CBus?
    public var address: Int?
    /// The framebuffer's name in `/sys/class/graphics/fbN/name` (nil for an OLED).
    public var framebuffer: String?
    public var width: Int
    public var height: Int
    /// 0 or 180 degrees: OLED modules are often mounted upside down.
    public var rotation: Int
    /// 0…255, the OLED's contrast command (ignored by a framebuffer).
    public var contrast: Int
    /// Minutes without a press or reminder before the screen goes dark (OLED burn-in); 0 never.
    public var idleOffMinutes: Int
    /// Night hours in wall-clock time (OLED burn-in, a dark bedroom): the screen stays dark
    /// unless a press lights it for a minute; nil for none.
    public var night: NightHours? = nil
}

/// A daily span of wall-clock minutes, "21:30-07:00"; it may cross midnight. Wall time is
/// right here: night is a calendar fact, and a clock change moves it as it moves bedtime.
public struct NightHours: Equatable, Sendable, CustomStringConvertible {
    public let startMinute: Int
    public let endMinute: Int

    public init?(startMinute: Int, endMinute: Int) {
        guard (0..<1440).contains(startMinute), (0..<1440).contains(endMinute), startMinute != endMinute else { return nil }
        self.startMinute = startMinute
        self.endMinute = endMinute
    }

    /// "HH:MM-HH:MM", 24-hour; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        func minute(_ part: Substring) -> Int? {
            let hm = part.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
            guard hm.count == 2, hm[1].count == 2, (1...2).contains(hm[0].count),
                  hm.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                  let h = Int(hm[0]), let m = Int(hm[1]), h < 24, m < 60 else { return nil }
            return h * 60 + m
        }
        guard parts.count == 2, let start = minute(parts[0]), let end = minute(parts[1]) else { return nil }
        self.init(startMinute: start, endMinute: end)
    }

    /// Whether a second of the day (0..<86400, wall clock) is in the night, and how many
    /// seconds until that changes (at least 1).
    public func state(atSecondOfDay second: Int) -> (isNight: Bool, secondsUntilChange: Int) {
        let s = ((second % 86_400) + 86_400) % 86_400
        let start = startMinute * 60, end = endMinute * 60
        let isNight = start < end ? (s >= start && s < end) : (s >= start || s < end)
        let next = isNight ? end : start
        let until = (next - s + 86_400) % 86_400
        return (isNight, max(1, until))
    }

    public var description: String {
        func hm(_ m: Int) -> String { (m / 60 < 10 ? "0" : "") + "\(m / 60):" + (m % 60 < 10 ? "0" : "") + "\(m % 60)" }
        return "\(hm(startMinute))-\(hm(endMinute))"
    }
}

extension DisplayConfig {
    static let keys: Set<String> = ["type", "i2c_bus", "address", "framebuffer", "width", "height", "rotation", "contrast", "idle_off_minutes", "night"]
    static let oledAddresses = [0x3C, 0x3D]

    /// The `display:` section, checked like the rest of the profile; nil when there is none.
    static func parse(_ root: Node.Mapping, fail: (String, String) -> BoardProfileError) throws -> DisplayConfig? {
        guard let section = try BoardProfile.section(root, "display", allowed: keys, fail: fail) else { return nil }
        let typeText = try BoardProfile.requiredText(section, "type", prefix: "display.", fail: fail)
        if typeText == "none" {
            if let extra = section.keys.compactMap(\.string).filter({ $0 != "type" }).sorted().first {
                throw fail("display.\(extra)", "not used with type none")
            }
            return nil
        }
        guard let kind = Kind(rawValue: typeText) else {
            throw fail("display.type", "\"\(typeText)\" is not one of \((Kind.allCases.map(\.rawValue) + ["none"]).joined(separator: ", "))")
        }
        let width = try BoardProfile.integer(section, "width", prefix: "display.", default: 128, range: 1...4096, fail: fail)
        let height = try BoardProfile.integer(section, "height", prefix: "display.", default: 64, range: 1...4096, fail: fail)
        let rotation = try BoardProfile.integer(section, "rotation", prefix: "display.", default: 0, range: 0...270, fail: fail)
        guard rotation == 0 || rotation == 180 else { throw fail("display.rotation", "\(rotation) is not 0 or 180") }
        let contrast = try BoardProfile.integer(section, "contrast", prefix: "display.", default: 127, range: 0...255, fail: fail)
        let idleOff = try BoardProfile.integer(section, "idle_off_minutes", prefix: "display.", default: 10, range: 0...1440, fail: fail)
        var config = DisplayConfig(
            kind: kind, i2cBus: nil, address: nil, framebuffer: nil, width: width, height: height, rotation: rotation,
            contrast: contrast, idleOffMinutes: idleOff)
        if section["night"] != nil {
            let text = try BoardProfile.requiredText(section, "night", prefix: "display.", fail: fail)
            guard let night = NightHours(text) else {
                throw fail("display.night", "\(String(text.prefix(40)).debugDescription) is not a span of hours like 21:30-07:00 (24-hour, start and end differ)")
            }
            config.night = night
        }

        switch kind {
        case .ssd1306, .sh1106:
            if section["framebuffer"] != nil { throw fail("display.framebuffer", "only for type framebuffer") }
            guard width == 128 else { throw fail("display.width", "\(width) is not 128 (the width of \(kind.rawValue) modules)") }
            let heights = kind == .sh1106 ? [64] : [32, 64]
            guard heights.contains(height) else {
                throw fail("display.height", "\(height) is not \(heights.map(String.init).joined(separator: " or ")) (the \(kind.rawValue) modules' heights)")
            }
            config.i2cBus = try bus(section, fail: fail)
            let address = try BoardProfile.integer(section, "address", prefix: "display.", default: 0x3C, range: 0...0x7F, fail: fail)
            guard oledAddresses.contains(address) else {
                throw fail("display.address", "0x\(String(address, radix: 16)) is not 0x3c or 0x3d (where \(kind.rawValue) modules answer)")
            }
            config.address = address
        case .framebuffer:
            for key in ["i2c_bus", "address"] where section[key] != nil {
                throw fail("display.\(key)", "only for an I2C OLED (type ssd1306 or sh1106)")
            }
            config.framebuffer = try deviceName(section, "framebuffer", fail: fail)
        }
        return config
    }

    /// `i2c_bus`: a number, or an adapter name (any text of printable characters).
    static func bus(_ section: Node.Mapping, fail: (String, String) -> BoardProfileError) throws -> I2CBus {
        guard let node = section["i2c_bus"] else {
            throw fail("display.i2c_bus", "missing (the I2C adapter's number, or its name from /sys/class/i2c-dev/*/name)")
        }
        if let number = node.int {
            guard (0...255).contains(number) else { throw fail("display.i2c_bus", "\(number) is not a bus number from 0 to 255") }
            return .number(number)
        }
        return .named(try deviceName(section, "i2c_bus", fail: fail))
    }

    /// A name the kernel gives a device (an I2C adapter, a framebuffer): printable, short.
    static func deviceName(_ section: Node.Mapping, _ key: String, fail: (String, String) -> BoardProfileError) throws -> String {
        let name = try BoardProfile.requiredText(section, key, prefix: "display.", fail: fail)
        guard name.count <= 64, !name.unicodeScalars.contains(where: DisplayText.isControl) else {
            throw fail("display.\(key)", "not a device name (at most 64 printable characters)")
        }
        return name
    }

    /// One line for `boards validate`: "ssd1306 128×64 at 0x3c on the I2C adapter "SMBus stub driver"".
    public var summary: String {
        let size = "\(width)×\(height)\(rotation == 0 ? "" : " rotated \(rotation)°")\(night.map { ", dark \($0)" } ?? "")"
        switch kind {
        case .framebuffer:
            return "framebuffer \"\(framebuffer ?? "")\" \(size)"
        case .ssd1306, .sh1106:
            let bus: String
            switch i2cBus {
            case .number(let n)?: bus = "/dev/i2c-\(n)"
            case .named(let name)?: bus = "the I2C adapter \"\(name)\""
            case nil: bus = "no bus"
            }
            return "\(kind.rawValue) \(size) at 0x\(String(address ?? 0, radix: 16)) on \(bus)"
        }
    }
}

extension NightHours {
    /// Night or not at `date` in `calendar`'s time zone, and the seconds until that changes,
    /// counted to the next wall-clock edge so that a DST change in the night is honoured.
    public func state(at date: Date, calendar: Calendar) -> (isNight: Bool, secondsUntilChange: Double) {
        let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
        let second = (parts.hour ?? 0) * 3_600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0)
        let now = state(atSecondOfDay: second)
        let edge = now.isNight ? endMinute : startMinute
        let next = calendar.nextDate(
            after: date, matching: DateComponents(hour: edge / 60, minute: edge % 60, second: 0), matchingPolicy: .nextTime)
        let seconds = next.map { $0.timeIntervalSince(date) } ?? Double(now.secondsUntilChange)
        return (now.isNight, max(1, seconds))
    }
}
