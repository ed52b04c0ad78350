import Foundation
import Hummingbird
import HummingbirdTesting
import QuestStore
import Synchronization
import Testing
@testable import WebApp

/// #49: the backup pages run on a fake of their store area (`BackupShelf`): a full card and
/// a listed file gone from the disk, on demand.
@Suite("The backup pages on a fake store")
struct BackupsFakeStoreTests {
    final class FakeShelf: BackupShelf {
        let listed: Mutex<[BackupInfo]>
        let failing = Mutex(false)
        let downloads = Mutex(0)
        struct CardFull: Error {}

        init(_ listed: [BackupInfo]) { self.listed = Mutex(listed) }

        func make(kind: BackupKind, now: Date) throws -> BackupInfo {
            if failing.withLock({ $0 }) { throw CardFull() }
            let made = BackupInfo(path: "/nowhere/questbox-made.sqlite", createdAt: now, sizeBytes: 1, kind: kind)
            listed.withLock { $0.append(made) }
            return made
        }
        func all() throws -> [BackupInfo] { listed.withLock { $0 } }
        func restore(from file: String, now: Date) throws -> BackupInfo { throw CardFull() }
        func recordDownload(_ backup: BackupInfo, now: Date) throws { downloads.withLock { $0 += 1 } }
        func offCardStatuses() throws -> [OffCardStatus] { [] }
        func incomingFile() throws -> IncomingFile { throw CardFull() }
    }

    @Test("BACK-1: the list is the fake's; a backup the card cannot take is a 500 with no redirect; a listed file gone is a 404, no download counted")
    func onAFake() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let old = BackupInfo(path: "/nowhere/questbox-2026-11-01.sqlite", createdAt: Date(timeIntervalSince1970: 1_793_000_000), sizeBytes: 4096, kind: .automatic)
        let fake = FakeShelf([old])
        let app = try await application(args) { $0.backups = fake }
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            let (_, page) = try await browser.get(client, "/parent/backups")
            #expect(page.contains("questbox-2026-11-01.sqlite"), "\(page)")
            let made = try await browser.post(client, "/parent/backups", [])
            #expect(made.status == .seeOther)
            #expect(try fake.all().count == 2)
            #expect(try db.backups.all().isEmpty, "the real store was never asked")

            fake.failing.withLock { $0 = true }
            _ = try await browser.get(client, "/parent/backups")
            let full = try await browser.post(client, "/parent/backups", [])
            #expect(full.status == .internalServerError, "\(full.status)")
            #expect(full.headers[.location] == nil)
            #expect(try fake.all().count == 2)

            let (gone, _) = try await browser.get(client, "/parent/backups/questbox-2026-11-01.sqlite")
            #expect(gone == .notFound)
            #expect(fake.downloads.withLock { $0 } == 0)
        }
    }
}
