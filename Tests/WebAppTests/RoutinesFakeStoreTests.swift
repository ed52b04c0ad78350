import Foundation
import Hummingbird
import HummingbirdTesting
import QuestCore
import QuestStore
import Synchronization
import Testing
@testable import WebApp

/// #49: the routine pages run on a fake of their store area (`RoutineLibrary`), as the kiosk
/// pages do: a failing disk and a routine changed between two requests, on demand.
@Suite("The routine pages on a fake store")
struct RoutinesFakeStoreTests {
    final class FakeLibrary: RoutineLibrary {
        let stored: Mutex<[Routine]>
        let failing = Mutex(false)
        struct DiskFailed: Error {}

        init(_ routines: [Routine]) { stored = Mutex(routines) }

        func all() throws -> [Routine] { stored.withLock { $0 } }
        func withID(_ id: UUID) throws -> Routine? { stored.withLock { $0.first { $0.id == id } } }
        func named(_ name: String) throws -> Routine? { stored.withLock { $0.first { $0.name == name } } }
        func save(_ routine: Routine, ifStillAt revision: String?) throws {
            try write { list in
                if let revision, list.first(where: { $0.id == routine.id }).map(RoutineStore.revision(of:)) != revision {
                    throw StoreError.changedElsewhere("this routine was changed meanwhile (in the fake)")
                }
                list.removeAll { $0.id == routine.id }
                list.append(routine)
                return true
            }
        }
        func setActive(_ isActive: Bool, id: UUID) throws -> Bool {
            try write { list in
                guard let i = list.firstIndex(where: { $0.id == id }) else { return false }
                list[i].isActive = isActive
                return true
            }
        }
        func remove(id: UUID) throws -> Bool {
            try write { list in
                let before = list.count
                list.removeAll { $0.id == id }
                return list.count < before
            }
        }
        func completedPlayCounts(since: Date) throws -> [UUID: Int] { [:] }

        @discardableResult
        private func write(_ change: (inout [Routine]) throws -> Bool) throws -> Bool {
            if failing.withLock({ $0 }) { throw DiskFailed() }
            return try stored.withLock { try change(&$0) }
        }
    }

    static let fakeMorning = Routine(
        id: UUID(), name: "fake-morning", displayName: "Fake Morning", activeDays: Array(1...7),
        tasks: [RoutineTask(id: UUID(), name: "teeth", displayName: "Teeth")])

    @Test("PAR-1: the parent's list, a pause and a stale save go to the fake; a failing store removes nothing and says so; an unknown routine is a 404")
    func onAFake() async throws {
        let (args, db) = try TestArguments.fresh(routines: [everyDay])
        try db.parentPIN.setPIN("2468")
        let fake = FakeLibrary([Self.fakeMorning])
        let app = try await application(args) { $0.routines = fake }
        let id = Self.fakeMorning.id.uuidString
        try await app.test(.router) { client in
            var browser = try await signedInParent(client)
            let (_, home) = try await browser.get(client, "/parent")
            #expect(home.contains("/parent/routines/\(id)") && home.contains("Fake Morning"), "the list is the fake's")
            #expect(!home.contains("/parent/routines/\(everyDay.id.uuidString)"), "the store's own routine is not listed")

            _ = try await browser.get(client, "/parent/routines/\(id)")
            let paused = try await browser.post(client, "/parent/routines/\(id)/active", [("active", "false")])
            #expect(paused.status == .seeOther)
            #expect(try fake.withID(Self.fakeMorning.id)?.isActive == false)
            #expect(try db.routines.withID(everyDay.id)?.isActive == true, "the real store was never asked")

            // Changed between the page and its save: refused, the changes kept on the page.
            let (_, editor) = try await browser.get(client, "/parent/routines/\(id)")
            let revision = String(try #require(editor.firstMatch(of: /name="revision" value="([0-9a-f]+)"/)?.1))
            _ = try fake.setActive(true, id: Self.fakeMorning.id)
            let rows = [(Self.fakeMorning.tasks[0].id.uuidString, "teeth", "Teeth", "2:00")]
            let stale = try await browser.post(client, "/parent/routines/\(id)", routineFields(
                name: "fake-morning", displayName: "Fake Morning!", days: Array(1...7), revision: revision, rows: rows))
            #expect(stale.status == .conflict)
            #expect(String(buffer: stale.body).contains("Not saved: this routine was changed meanwhile (in the fake)"))
            #expect(try fake.withID(Self.fakeMorning.id)?.displayName == "Fake Morning")

            fake.failing.withLock { $0 = true }
            _ = try await browser.get(client, "/parent/routines/\(id)/remove")
            let failed = try await browser.post(client, "/parent/routines/\(id)/remove", [])
            #expect(failed.status == .internalServerError, "\(failed.status)")
            #expect(failed.headers[.location] == nil, "no redirect claiming it was removed")
            #expect(try fake.all().count == 1)

            let (unknown, _) = try await browser.get(client, "/parent/routines/\(UUID().uuidString)")
            #expect(unknown == .notFound)
        }
    }
}
