import BoardProfile
import Glibc

/// Finds the device a profile names: an I2C adapter by number or by the name the kernel gives
/// it, a framebuffer by its driver's name. Names are read from sysfs under `root`, so tests
/// can hand in a folder laid out like /sys.
public struct DeviceFinder: Sendable {
    public var root: String
    public init(root: String = "") { self.root = root }

    /// The i2c-dev node for the profile's bus: "/dev/i2c-N".
    public func i2cDevice(_ bus: DisplayConfig.I2CBus) throws -> String {
        switch bus {
        case .number(let number):
            return "\(root)/dev/i2c-\(number)"
        case .named(let name):
            let found = named(in: "/sys/class/i2c-dev", prefix: "i2c-")
            if let match = found.first(where: { $0.name == name }) { return "\(root)/dev/i2c-\(match.number)" }
            throw DisplayError(
                "no I2C adapter named \"\(name)\" (\(listing(found, kind: "adapters"))); load i2c-dev, and on a Pi set dtparam=i2c_arm=on")
        }
    }

    /// The framebuffer node whose driver is called `name`: "/dev/fbN".
    public func framebufferDevice(named name: String) throws -> String {
        let found = named(in: "/sys/class/graphics", prefix: "fb")
        if let match = found.first(where: { $0.name == name }) { return "\(root)/dev/fb\(match.number)" }
        throw DisplayError("no framebuffer named \"\(name)\" (\(listing(found, kind: "framebuffers")))")
    }

    struct Named { var number: Int; var name: String }

    /// Every `<prefix>N/name` in `folder`, sorted by N; unreadable entries are skipped.
    func named(in folder: String, prefix: String) -> [Named] {
        guard let dir = opendir(root + folder) else { return [] }
        defer { closedir(dir) }
        var found: [Named] = []
        while let entry = readdir(dir) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard entryName.hasPrefix(prefix), let number = Int(entryName.dropFirst(prefix.count)), number >= 0,
                let name = Self.readName(root + folder + "/" + entryName + "/name")
            else { continue }
            found.append(Named(number: number, name: name))
        }
        return found.sorted { $0.number < $1.number }
    }

    /// A sysfs name file: one short line. Anything longer or odd is not a name.
    static func readName(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 127) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return line.isEmpty ? nil : line
    }

    func listing(_ found: [Named], kind: String) -> String {
        if found.isEmpty { return "there are no \(kind)" }
        return "found: " + found.map { "\($0.number) \"\($0.name)\"" }.joined(separator: ", ")
    }
}
