import Foundation
import Hummingbird
import HummingbirdTesting
import QuestCore
@testable import QuestStore
import Synchronization
import Testing
@testable import WebApp

/// #49: the settings, `/me`, PIN and health pages run on fakes of their store areas
/// (`FamilySettings`, `ParentPINStore`, `BoxRecords`): what a real store seldom does, on demand
/// (a lock taken between the page and the press, a reset whose day is over, records that
/// cannot be read).
@Suite("The parent's areas on fake stores")
struct ParentAreasFakeStoreTests {
    final class FakeSettings: FamilySettings {
        let stored: Mutex<StoredSettings>
        let streak: Int
        let locked = Mutex(false)
        let writes = Mutex(0)

        init(_ stored: StoredSettings, streak: Int) {
            self.stored = Mutex(stored)
            self.streak = streak
        }

        func current() throws -> StoredSettings { stored.withLock { $0 } }
        func routineList() throws -> [Routine] { [] }
        func update(reminders: [(routine: String, reminder: ReminderChoice)], now: Date, _ change: (inout StoredSettings) -> Void) throws {
            var s = stored.withLock { $0 }
            change(&s)
            stored.withLock { $0 = s }
            writes.withLock { $0 += 1 }
        }
        func setReminder(_ reminder: ReminderChoice, forRoutineNamed name: String) throws -> Bool { false }
        func setPlayerSwitch(_ playerSwitch: PlayerSwitch, on: Bool) throws -> Bool { !locked.withLock { $0 } }
        func streakToday(calendar: Calendar, now: Date) throws -> Int { streak }
    }

    final class FakePINs: ParentPINStore {
        let reset: Mutex<PINReset?> = Mutex(nil)
        let shownMarks = Mutex(0)
        let newPINs = Mutex<[String]>([])

        func setPIN(_ pin: String, at now: Date) throws { newPINs.withLock { $0.append(pin) } }
        func askPINReset(_ pin: String, from: String, clock: PINResetClock) throws {}
        func pinReset() throws -> PINReset? { reset.withLock { $0 } }
        /// The wait is always over here: a waiting reset is applied when settled.
        func settlePINReset(clock: PINResetClock) throws -> PINReset? {
            reset.withLock { r in
                if r?.state == .waiting { r?.state = .applied; r?.settledAt = Date() }
                return r
            }
        }
        func cancelPINReset(at now: Date) throws -> Bool { false }
        func markPINResetShown(at now: Date) throws {
            shownMarks.withLock { $0 += 1 }
            reset.withLock { $0?.shown = true }
        }
    }

    final class FakeRecords: BoxRecords {
        struct Unreadable: Error {}
        let unreadable = Mutex(false)
        let lastPlay: Date

        init(lastPlay: Date) { self.lastPlay = lastPlay }

        func check() throws { if unreadable.withLock({ $0 }) { throw Unreadable() } }
        func boxStart() throws -> BoxStartRecord? { try check(); return nil }
        func lastPlayedAt() throws -> Date? { try check(); return lastPlay }
        func houseLinkStatus() throws -> LinkStatus { throw Unreadable() }
        func houseBoxes() throws -> [HouseBox] { try check(); return [] }
    }

    @Test("STREAK-3 on a fake: the help names the fake's streak; a change is written to the fake, not the store")
    func settingsOnAFake() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let fake = FakeSettings(try db.settings.current(), streak: 12)
        let app = try await application(args) { $0.settings = fake }
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            let (status, page) = try await browser.get(client, "/parent/settings")
            #expect(status == .ok)
            #expect(page.contains("Switching keeps the streak (now 12 days)"), "\(page)")
            let saved = try await browser.post(client, "/parent/settings", settingsFields(page, changing: ["sound.volume": "35"]))
            #expect(saved.status == .seeOther, "\(String(buffer: saved.body))")
            #expect(try fake.current().volumePercent == 35)
            #expect(fake.writes.withLock { $0 } == 1)
            #expect(try db.settings.current().volumePercent != 35, "the real store was never asked")
        }
    }

    @Test("#32: a switch a parent locked after her page was drawn is refused by the store's answer, not the page's")
    func lockedMeanwhile() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        let fake = FakeSettings(try db.settings.current(), streak: 0)
        let app = try await application(args) { $0.settings = fake }
        try await app.test(.router) { client in
            var browser = BrowserSession()
            let (_, page) = try await browser.get(client, "/me")
            #expect(page.contains("Turn hints off"), "not locked when drawn")
            fake.locked.withLock { $0 = true }
            let refused = try await browser.post(client, "/me/switches", [("switch", "hints"), ("on", "false")])
            #expect(refused.status == .conflict)
            #expect(String(buffer: refused.body).contains("Hints before a guess is locked by a parent."))
            fake.locked.withLock { $0 = false }
            let switched = try await browser.post(client, "/me/switches", [("switch", "hints"), ("on", "false")])
            #expect(switched.status == .seeOther)
        }
    }

    @Test("PAR-2 on a fake: a reset whose day is over ends the signed-in parent's session; the applied reset is said once")
    func resetAppliedWhileSignedIn() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let pins = FakePINs()
        let app = try await application(args) { $0.pins = pins }
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            var (_, page) = try await browser.get(client, "/parent")
            #expect(page.contains("Sign out") && !page.contains("name=\"pin\""), "signed in: \(page)")
            pins.reset.withLock {
                $0 = PINReset(state: .waiting, askedAt: Date().addingTimeInterval(-90_000), from: "192.0.2.7", settledAt: nil, pushed: false, shown: false)
            }
            (_, page) = try await browser.get(client, "/parent")
            #expect(page.contains("name=\"pin\""), "the old PIN's session is over: the sign-in page")
            #expect(try pins.pinReset()?.state == .applied)
            #expect(pins.shownMarks.withLock { $0 } == 0, "not said to a page that is not signed in")
            browser = try await signedInParent(client)
            (_, page) = try await browser.get(client, "/parent")
            #expect(page.contains("The PIN was replaced"), "\(page)")
            #expect(page.contains("192.0.2.7"))
            (_, page) = try await browser.get(client, "/parent")
            #expect(!page.contains("The PIN was replaced"), "said once")
            #expect(pins.shownMarks.withLock { $0 } == 1)
        }
    }

    @Test("the health page's last play is the records' (a store with no plays); records that cannot be read give a page still")
    func healthWithUnreadableRecords() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let records = FakeRecords(lastPlay: Date().addingTimeInterval(-3 * 86_400))
        let app = try await application(args) { $0.records = records }
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            var (status, page) = try await browser.get(client, "/parent/health")
            #expect(status == .ok)
            #expect(try db.plays.lastPlayedAt() == nil)
            #expect(page.contains("<dt>Last play</dt><dd>") && !page.contains("<dt>Last play</dt><dd>none yet</dd>"), "\(page)")
            records.unreadable.withLock { $0 = true }
            (status, page) = try await browser.get(client, "/parent/health")
            #expect(status == .ok)
            #expect(page.contains("<dt>Last play</dt><dd>none yet</dd>"), "\(page)")
            let (home, _) = try await browser.get(client, "/parent")
            #expect(home == .ok, "the parent's home too")
        }
    }
}
