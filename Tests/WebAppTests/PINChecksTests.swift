import Foundation
@testable import QuestStore
import SystemClock
import TestSupport
import Testing
@testable import WebApp

/// #47: "A stranger keeps the parent out: 5 wrong PINs → the right PIN 429 for 5 min,
/// repeatable forever." Wrong PINs now pause the address they came from; the store's count of
/// every wrong PIN closes the area for everyone only after 20 in a row.
@Suite("#47: PIN pauses per client address")
struct PINChecksTests {
    static func checks() throws -> (PINChecks, FakeSystemClock, QuestDatabase) {
        let (db, _) = try freshDatabase()
        try db.parentPIN.setPIN("2468")
        let clock = FakeSystemClock(wall: Date())
        return (PINChecks(database: db, clock: clock), clock, db)
    }

    @Test("#47: a stranger's five wrong PINs pause his address only: the parent on her phone gets in at once; his right PIN still waits")
    func strangerPausesOnlyHimself() async throws {
        let (checks, clock, db) = try Self.checks()
        for left in (1...4).reversed() { #expect(try await checks.check("0000", client: "192.168.1.66") == .rejected(attemptsLeft: left)) }
        #expect(try await checks.check("0000", client: "192.168.1.66") == .addressPaused(seconds: 300))
        #expect(try await checks.check("2468", client: "192.168.1.66") == .addressPaused(seconds: 300), "the paused address waits even with the right PIN")
        #expect(try await checks.check("2468", client: "192.168.1.20") == .accepted, "the parent was kept out by a stranger")
        // His pause stands after her sign-in; it ends on the monotonic clock.
        clock.advance(seconds: 299)
        #expect(try await checks.check("2468", client: "192.168.1.66") == .addressPaused(seconds: 1))
        clock.advance(seconds: 1)
        #expect(checks.pausedSeconds(client: "192.168.1.66") == nil)
        let storeLockouts = try await db.pool.read { try Int.fetchOne($0, sql: "SELECT pinLockouts FROM settings") }
        #expect(storeLockouts == 0, "five wrong tries from one address never close the area")
    }

    @Test("#47: an address's pauses double (5, 10, 20 minutes); its right PIN ends them")
    func pausesDouble() async throws {
        let (checks, clock, _) = try Self.checks()
        var pauses: [Int] = []
        for _ in 0..<3 {
            for _ in 0..<4 { _ = try await checks.check("0000", client: "10.0.0.5") }
            guard case .addressPaused(let seconds) = try await checks.check("0000", client: "10.0.0.5") else { Issue.record("no pause"); return }
            pauses.append(seconds / 60)
            clock.advance(seconds: Double(seconds))
        }
        #expect(pauses == [5, 10, 20])
        #expect(try await checks.check("2468", client: "10.0.0.5") == .accepted)
        #expect(try await checks.check("0000", client: "10.0.0.5") == .rejected(attemptsLeft: 4), "the right PIN starts the address afresh")
    }

    @Test("#47: twenty wrong PINs in a row from many addresses close the area for everyone (the store's count), a fresh address too")
    func manyAddressesCloseTheArea() async throws {
        let (checks, _, db) = try Self.checks()
        var last: PINChecks.Verdict?
        for i in 0..<ParentPINRecords.pinAttemptsBeforeLockout {
            last = try await checks.check("0000", client: "10.0.1.\(i / 4)")  // four each: no address paused
        }
        #expect(last == .areaClosed(seconds: 300))
        #expect(try await checks.check("2468", client: "10.0.2.1") == .areaClosed(seconds: 300))
                let lockouts = try await db.pool.read { try Int.fetchOne($0, sql: "SELECT pinLockouts FROM settings") }
        #expect(lockouts == 1)
    }

    @Test("#47: at most 512 addresses are remembered; a flood of new ones drops the longest unseen, never a paused one while others may go")
    func boundedTable() {
        var table: [String: PINChecks.ClientTries] = [:]
        let now: Int64 = 1_000_000_000_000
        table["paused"] = PINChecks.ClientTries(failures: 0, pauses: 1, pausedUntil: now + 300_000_000_000, lastSeen: 0)
        for i in 0..<(PINChecks.maximumClients + 100) {
            table["10.1.\(i / 256).\(i % 256)"] = PINChecks.ClientTries(failures: 1, lastSeen: Int64(i + 1))
            PINChecks.bound(&table, now: now)
        }
        #expect(table.count == PINChecks.maximumClients)
        #expect(table["paused"] != nil, "a flood freed a paused address")
        #expect(table["10.1.0.0"] == nil && table["10.1.2.99"] != nil, "the longest unseen go first")
    }
}
