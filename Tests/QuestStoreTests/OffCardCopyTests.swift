import Foundation
import GRDB
import QuestCore
import TestSupport
import Testing
@testable import QuestStore

/// BACK-1, off the card, on a folder standing in for a stick's mount point (the real stick,
/// full, read-only and failing mid-write, is `Tests/USB/run.sh` on loop devices).
@Suite("BACK-1: a copy leaves the SD card (USB sticks)")
struct OffCardCopyTests {
    let now = Date(timeIntervalSince1970: 1_780_000_000)

    func stick(readOnly: Bool = false) throws -> RemovableVolume {
        let mount = NSTemporaryDirectory() + "questbox-tests-stick-\(UUID().uuidString)/KINGSTON"
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        return RemovableVolume(mountPoint: mount, device: "/dev/sda1", fileSystem: "vfat", readOnly: readOnly, mountID: 99)
    }

    func folder(_ stick: RemovableVolume) -> String { stick.mountPoint + "/" + BackupStore.offCardFolderName }

    @Test("BACK-1: the newest backup is copied whole into the stick's folder, once; the store says when")
    func copiesNewest() throws {
        let (db, _) = try freshDatabase()
        try db.routines.save(morningRoutine)
        try db.backups.make(kind: .automatic, now: now.addingTimeInterval(-86_400))
        let newest = try db.backups.make(kind: .manual, now: now)
        let stick = try stick()
        guard case .copied(let copy) = try db.backups.copyNewest(to: stick, now: now) else { Issue.record("not copied"); return }
        #expect(copy.path == folder(stick) + "/" + newest.fileName)
        #expect(FileManager.default.contentsEqual(atPath: copy.path, andPath: newest.path))
        try QuestDatabase.validate(path: copy.path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder(stick)) == [newest.fileName], "no temporary file is left")
        #expect(try db.backups.copyNewest(to: stick, now: now) == .alreadyThere(copy), "a second look writes nothing")
        let status = try db.backups.offCardStatuses()
        #expect(status.map(\.label) == ["KINGSTON"])
        #expect(status.first?.fileName == newest.fileName && status.first?.copiedAt == now && status.first?.problem == nil)
        #expect(BackupStore.offCardCopies(on: stick).map(\.fileName) == [newest.fileName], "listed for a restore")
    }

    @Test("BACK-1: the stick keeps the newest 10 of the box's backups; other files on it are never touched")
    func keepsTen() throws {
        let (db, _) = try freshDatabase()
        let stick = try stick()
        try FileManager.default.createDirectory(atPath: folder(stick), withIntermediateDirectories: true)
        for day in 1...12 {
            let old = folder(stick) + "/questbox-\(BackupStore.stamp(now.addingTimeInterval(Double(-day) * 86_400)))-automatic.sqlite"
            #expect(FileManager.default.createFile(atPath: old, contents: Data("old".utf8)))
        }
        #expect(FileManager.default.createFile(atPath: folder(stick) + "/holiday photos.sqlite", contents: Data("mine".utf8)))
        #expect(FileManager.default.createFile(atPath: stick.mountPoint + "/homework.txt", contents: Data("mine".utf8)))
        try db.backups.make(kind: .automatic, now: now)
        _ = try db.backups.copyNewest(to: stick, now: now)
        let ours = BackupStore.offCardCopies(on: stick)
        #expect(ours.count == BackupStore.offCardCopiesKept)
        #expect(ours.first?.createdAt == now)
        #expect(ours.last?.createdAt == now.addingTimeInterval(-9 * 86_400), "the oldest went")
        #expect(FileManager.default.fileExists(atPath: folder(stick) + "/holiday photos.sqlite"))
        #expect(FileManager.default.fileExists(atPath: stick.mountPoint + "/homework.txt"))
    }

    @Test("BACK-1: a stick is hostile: its folder as a link is refused; read-only, no backup yet: one line naming the stick, and the store keeps it")
    func refusals() throws {
        let (db, dir) = try freshDatabase()
        let empty = try stick()
        #expect(throws: StoreError.self) { try db.backups.copyNewest(to: empty, now: now) }
        try db.backups.make(kind: .manual, now: now)
        let linked = try stick()
        try FileManager.default.createSymbolicLink(atPath: folder(linked), withDestinationPath: dir)
        do {
            _ = try db.backups.copyNewest(to: linked, now: now)
            Issue.record("a link was followed")
        } catch {
            #expect("\(error)".contains("USB stick “KINGSTON”") && "\(error)".contains("is not a folder"), "\(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("questbox-") }.isEmpty, "nothing written through the link")
        do {
            _ = try db.backups.copyNewest(to: try stick(readOnly: true), now: now)
            Issue.record("a read-only stick was written")
        } catch {
            #expect("\(error)".contains("read-only"), "\(error)")
        }
        let status = try db.backups.offCardStatuses().first
        #expect(status?.problem?.contains("read-only") == true && status?.problemAt == now && status?.copiedAt == nil)
        #expect(status?.problem?.contains("\n") == false)
    }

    @Test("BACK-1: the mount table's sticks: a block device's FAT, exFAT or ext4 below /media, /run/media or /mnt, escapes read, the rest left out")
    func mountTable() {
        let table = """
            22 1 179:2 / / rw,noatime shared:1 - ext4 /dev/mmcblk0p2 rw
            25 22 179:1 / /boot/firmware rw,relatime shared:2 - vfat /dev/mmcblk0p1 rw,fmask=0022
            30 22 0:26 / /run rw,nosuid shared:5 - tmpfs tmpfs rw,size=186000k
            41 30 8:1 / /run/media/system/KINGSTON rw,nosuid,nodev,relatime shared:20 - vfat /dev/sda1 rw,uid=998,gid=998
            42 22 8:17 / /media/pi/HOLIDAY\\040PICS ro,relatime shared:21 - exfat /dev/sdb1 ro
            43 22 8:33 / /mnt/backup rw,relatime shared:22 - ext4 /dev/sdc1 rw
            44 22 0:40 / /media/pi/phone rw,relatime shared:23 - fuse.gvfsd-fuse gvfsd-fuse rw
            45 22 0:41 / /mnt/share rw,relatime shared:24 - cifs //nas/share rw
            46 22 8:49 / /media rw,relatime shared:25 - vfat /dev/sdd1 rw
            47 22 8:65 / /srv/stick rw,relatime shared:26 - vfat /dev/sde1 rw
            garbage line
            """
        let sticks = RemovableVolumes.parse(mountTable: table)
        #expect(sticks.map(\.mountPoint) == ["/run/media/system/KINGSTON", "/media/pi/HOLIDAY PICS", "/mnt/backup"])
        #expect(sticks.map(\.label) == ["KINGSTON", "HOLIDAY PICS", "backup"])
        #expect(sticks.map(\.readOnly) == [false, true, false])
        #expect(sticks.map(\.mountID) == [41, 42, 43])
    }

    @Test("BACK-1: the live mount table never offers the store's own file system")
    func ownFileSystemExcluded() throws {
        let (_, dir) = try freshDatabase()
        #expect(RemovableVolumes.mounted(excludingFileSystemOf: dir).allSatisfy { !dir.hasPrefix($0.mountPoint + "/") })
    }

    @Test("BACK-1: the parent is reminded a week after the first backup while nothing left the box, then weekly; a download or a stick's copy puts it off a week")
    func weeklyReminder() throws {
        let (db, _) = try freshDatabase()
        let day: TimeInterval = 86_400
        #expect(try db.backups.reminderDue(now: now) == nil, "no backup, nothing to take")
        let first = try db.backups.make(kind: .automatic, now: now)
        #expect(try db.backups.reminderDue(now: now.addingTimeInterval(6 * day)) == nil, "not in the box's first week")
        let due = try db.backups.reminderDue(now: now.addingTimeInterval(7 * day))
        #expect(due?.newest == first && due?.lastOffTheBox == nil)
        try db.backups.markReminder(at: now.addingTimeInterval(7 * day))
        #expect(try db.backups.reminderDue(now: now.addingTimeInterval(13 * day)) == nil, "once a week")
        #expect(try db.backups.reminderDue(now: now.addingTimeInterval(14 * day)) != nil)
        try db.backups.recordDownload(first, now: now.addingTimeInterval(14 * day))
        #expect(try db.backups.reminderDue(now: now.addingTimeInterval(20 * day)) == nil, "a download is a copy off the box")
        let stick = try stick()
        try db.backups.make(kind: .automatic, now: now.addingTimeInterval(21 * day))
        _ = try db.backups.copyNewest(to: stick, now: now.addingTimeInterval(21 * day))
        #expect(try db.backups.reminderDue(now: now.addingTimeInterval(27 * day)) == nil, "so is a stick's copy")
        #expect(try db.backups.reminderDue(now: now.addingTimeInterval(28 * day))?.lastOffTheBox == now.addingTimeInterval(21 * day))
    }
}
