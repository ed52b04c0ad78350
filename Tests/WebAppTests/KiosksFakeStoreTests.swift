import Foundation
import Hummingbird
import HummingbirdTesting
import QuestStore
import Synchronization
import Testing
@testable import WebApp

/// #49: the kiosk pages run on a fake of their store area (`PairedBrowserStore`), as
/// Hummingbird's examples test a controller on a fake repository: what a real store rarely
/// does on demand (a failing disk, a kiosk gone between two requests) is tried here.
@Suite("The kiosk pages on a fake store")
struct KiosksFakeStoreTests {
    final class FakeBrowsers: PairedBrowserStore {
        let kiosks = Mutex<[PairedKiosk]>([])
        let failing = Mutex(false)
        struct DiskFailed: Error {}

        func pair(name: String, token: String, now: Date, canPress: Bool) throws {
            if failing.withLock({ $0 }) { throw DiskFailed() }
            kiosks.withLock { $0.append(PairedKiosk(id: Int64($0.count + 1), name: name, pairedAt: now, canPress: canPress)) }
        }
        func all() throws -> [PairedKiosk] { kiosks.withLock { $0 } }
        func paired(token: String) throws -> PairedKiosk? { nil }
        func unpair(id: Int64) throws -> Bool {
            kiosks.withLock { list in
                let before = list.count
                list.removeAll { $0.id == id }
                return list.count < before
            }
        }
    }

    @Test("#33/#48: the list says what each browser does; a failing store pairs nothing and says so; an unpair that finds nothing is a 404")
    func onAFake() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let fake = FakeBrowsers()
        fake.kiosks.withLock {
            $0 = [PairedKiosk(id: 1, name: "Kitchen display", pairedAt: Date(timeIntervalSince1970: 1_795_000_000), canPress: true),
                  PairedKiosk(id: 2, name: "Her phone", pairedAt: Date(timeIntervalSince1970: 1_795_000_000), canPress: false)]
        }
        let app = try await application(args) { $0.pairedBrowsers = fake }
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            let (_, page) = try await browser.get(client, "/parent/kiosks")
            #expect(page.contains("Kitchen display") && page.contains("presses the box"), "\(page)")
            #expect(page.contains("Her phone") && page.contains("shows the player"))
            #expect(try db.kiosks.all().isEmpty, "the real store was never asked")

            fake.failing.withLock { $0 = true }
            let failed = try await browser.post(client, "/parent/kiosks/this", [("name", "Hall")])
            #expect(failed.status == .internalServerError, "\(failed.status)")
            #expect(!String(buffer: failed.body).contains("Paired"), "a failed write claimed a pairing")
            #expect(failed.headers[.setCookie] == nil, "no token handed to a browser the store did not pair")
            #expect(try fake.all().count == 2)

            _ = try await browser.get(client, "/parent/kiosks")
            let gone = try await browser.post(client, "/parent/kiosks/9/unpair", [])
            #expect(gone.status == .notFound)
        }
    }
}
