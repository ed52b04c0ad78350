import Foundation
import QuestCore
#if canImport(Glibc)
import Glibc
#endif

/// A file system mounted from a block device the box may copy its backups to (BACK-1: a
/// copy leaves the SD card, which is what dies): a USB stick as the desktop's automounter,
/// the package's udev rule (`systemd-mount`, under /run/media/system) or a person (/mnt)
/// mounts it.
public struct RemovableVolume: Equatable, Sendable {
    /// Where it is mounted (the kernel's mount table, unescaped).
    public var mountPoint: String
    /// The block device it came from ("/dev/sda1").
    public var device: String
    public var fileSystem: String
    public var readOnly: Bool
    /// The kernel's id of this mount: a stick pulled and plugged again gets a new one.
    public var mountID: Int

    /// What a parent reads: the stick's folder name (its label, as automounters name it).
    public var label: String {
        let last = (mountPoint as NSString).lastPathComponent
        return DisplayText.escaped(String(last.prefix(64)))
    }

    public init(mountPoint: String, device: String, fileSystem: String, readOnly: Bool, mountID: Int) {
        self.mountPoint = mountPoint
        self.device = device
        self.fileSystem = fileSystem
        self.readOnly = readOnly
        self.mountID = mountID
    }
}

public enum RemovableVolumes {
    /// Where removable media are mounted: udisks (/media/USER/LABEL, /run/media/USER/LABEL),
    /// systemd-mount (/run/media/system/LABEL) and by hand (/mnt/…). A folder below these on
    /// the store's own file system is not a stick, whatever it is called.
    public static let roots = ["/media/", "/run/media/", "/mnt/"]
    /// File systems a stick carries (FAT and exFAT as sold; ext4, NTFS, btrfs when formatted).
    static let fileSystems: Set<String> = ["vfat", "msdos", "exfat", "ext2", "ext3", "ext4", "ntfs3", "ntfs", "fuseblk", "btrfs", "xfs", "f2fs"]
    /// The mount table is read at most this far (a Pi's has a few dozen lines).
    static let maximumTableBytes = 1 << 20

    /// The sticks mounted now, excluding the file system `storeFolder` is on.
    public static func mounted(excludingFileSystemOf storeFolder: String) -> [RemovableVolume] {
        guard let table = readMountTable() else { return [] }
        var store = stat()
        let storeDevice: dev_t? = stat(storeFolder, &store) == 0 ? store.st_dev : nil
        return parse(mountTable: table).filter { volume in
            var info = stat()
            guard stat(volume.mountPoint, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return false }
            return info.st_dev != storeDevice
        }
    }

    /// The mount table of this process (`/proc/self/mountinfo`), bounded.
    static func readMountTable() -> String? {
        guard let file = FileHandle(forReadingAtPath: "/proc/self/mountinfo") else { return nil }
        defer { try? file.close() }
        guard let data = try? file.read(upToCount: maximumTableBytes) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The lines of a `mountinfo` table that are sticks: a block device's file system of a
    /// kind sticks carry, mounted below one of `roots`. Lines that do not parse are skipped.
    public static func parse(mountTable: String) -> [RemovableVolume] {
        mountTable.split(separator: "\n").compactMap { line -> RemovableVolume? in
            // id parent major:minor root mount-point options [optional…] - type source super-options
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard fields.count >= 10, let id = Int(fields[0]), let dash = fields.firstIndex(of: "-"), dash >= 6, dash + 2 < fields.count
            else { return nil }
            let mountPoint = unescape(fields[4])
            let type = fields[dash + 1], source = unescape(fields[dash + 2])
            let options = fields[5].split(separator: ",")
            guard fileSystems.contains(type), source.hasPrefix("/dev/"),
                  roots.contains(where: { mountPoint.hasPrefix($0) && mountPoint.count > $0.count }),
                  !mountPoint.unicodeScalars.contains(where: DisplayText.isControl),
                  !mountPoint.split(separator: "/").contains("..")
            else { return nil }
            return RemovableVolume(mountPoint: mountPoint, device: source, fileSystem: type, readOnly: options.contains("ro"), mountID: id)
        }
    }

    /// The kernel writes a space, tab, newline and backslash in a path as `\040`, `\011`,
    /// `\012`, `\134`.
    static func unescape(_ field: String) -> String {
        guard field.contains("\\") else { return field }
        var bytes: [UInt8] = []
        let source = Array(field.utf8)
        var i = 0
        while i < source.count {
            if source[i] == 0x5C, i + 3 < source.count,
               let value = UInt8(String(decoding: source[(i + 1)...(i + 3)], as: UTF8.self), radix: 8) {
                bytes.append(value)
                i += 4
            } else {
                bytes.append(source[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
