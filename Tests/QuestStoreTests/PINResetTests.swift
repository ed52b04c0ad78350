import Foundation
@testable import QuestStore
import TestSupport
import Testing

@Suite("PAR-2: a new PIN over an existing one waits 24 hours; the act at the box lets a try past a lockout (#47)")
struct PINResetTests {
    static let s: Int64 = 1_000_000_000
    static let day = 24 * 3600 * s
    static let asked = Date(timeIntervalSince1970: 1_800_000_000)

    static func clock(_ mono: Int64, boot: String = "b", wall: Date? = nil, trusted: Bool = true) -> PINResetClock {
        PINResetClock(monotonicNanos: mono, bootID: boot, wall: wall ?? asked.addingTimeInterval(Double(mono / s)), wallTrusted: trusted)
    }

    @Test("PAR-2: the old PIN signs in for 24 hours on the monotonic clock, the new one from then on; the state and the asker's address are kept")
    func waitsADay() throws {
        let (db, _) = try freshDatabase()
        #expect(throws: StoreError.invalid("PIN: none is set yet, so there is nothing to reset")) {
            try db.parentPIN.askPINReset("1357", from: "192.168.1.23", clock: Self.clock(0))
        }
        try db.parentPIN.setPIN("2468")
        try db.parentPIN.askPINReset("1357", from: "192.168.1.23", clock: Self.clock(0))
        let first = try db.parentPIN.pinReset()
        var reset = try #require(first)
        #expect(reset.state == .waiting && reset.from == "192.168.1.23" && reset.askedAt == Self.asked && !reset.pushed && !reset.shown)
        #expect(reset.takesEffectAt == Self.asked.addingTimeInterval(86_400))
        // A wall clock jumped a day ahead changes nothing within the boot.
        try db.parentPIN.settlePINReset(clock: Self.clock(Self.day - Self.s, wall: Self.asked.addingTimeInterval(2 * 86_400)))
        #expect(try db.parentPIN.verifyPIN("2468", monotonicNanos: 0, bootID: "b") == .accepted)
        #expect(try db.parentPIN.verifyPIN("1357", monotonicNanos: 0, bootID: "b") == .rejected(attemptsLeft: 19))
        let settled = try db.parentPIN.settlePINReset(clock: Self.clock(Self.day))
        reset = try #require(settled)
        #expect(reset.state == .applied && reset.settledAt == Self.asked.addingTimeInterval(86_400))
        #expect(try db.parentPIN.verifyPIN("1357", monotonicNanos: 0, bootID: "b") == .accepted)
        #expect(try db.parentPIN.verifyPIN("2468", monotonicNanos: 0, bootID: "b") == .rejected(attemptsLeft: 19))
        #expect(try db.pool.read { try String.fetchOne($0, sql: "SELECT pinHash FROM pinReset") } == nil, "the hash is not kept twice")
        try db.parentPIN.markPINResetShown(at: Self.asked)
        #expect(try db.parentPIN.pinReset()?.shown == true)
    }

    @Test("PAR-2: the old PIN's holder cancels it; `pin set` (the box's own group) cancels it; asked again, the wait starts again")
    func cancelled() throws {
        let (db, _) = try freshDatabase()
        try db.parentPIN.setPIN("2468")
        try db.parentPIN.askPINReset("1357", from: "a", clock: Self.clock(0))
        #expect(try db.parentPIN.cancelPINReset(at: Self.asked))
        #expect(try !db.parentPIN.cancelPINReset(at: Self.asked), "nothing waits any more")
        #expect(try db.parentPIN.settlePINReset(clock: Self.clock(2 * Self.day))?.state == .cancelled)
        #expect(try db.parentPIN.verifyPIN("2468", monotonicNanos: 0, bootID: "b") == .accepted)
        try db.parentPIN.askPINReset("1357", from: "a", clock: Self.clock(0))
        try db.parentPIN.askPINReset("9999", from: "b", clock: Self.clock(Self.day / 2))
        #expect(try db.parentPIN.settlePINReset(clock: Self.clock(Self.day))?.state == .waiting, "the second ask restarted the wait")
        #expect(try db.parentPIN.settlePINReset(clock: Self.clock(Self.day / 2 + Self.day))?.state == .applied)
        #expect(try db.parentPIN.verifyPIN("9999", monotonicNanos: 0, bootID: "b") == .accepted)
        try db.parentPIN.askPINReset("1357", from: "a", clock: Self.clock(0))
        try db.parentPIN.setPIN("4444")
        #expect(try db.parentPIN.pinReset()?.state == .cancelled)
        #expect(try db.parentPIN.settlePINReset(clock: Self.clock(2 * Self.day))?.state == .cancelled)
        #expect(try db.parentPIN.verifyPIN("4444", monotonicNanos: 0, bootID: "b") == .accepted)
    }

    @Test("PAR-2: after a reboot the synchronized wall clock judges the wait; an unsynchronized one (a Pi with no RTC) restarts it on the new boot")
    func acrossBoots() throws {
        let (db, _) = try freshDatabase()
        try db.parentPIN.setPIN("2468")
        try db.parentPIN.askPINReset("1357", from: "a", clock: Self.clock(0))
        let later = Self.asked.addingTimeInterval(86_400 + 60)
        #expect(try db.parentPIN.settlePINReset(clock: Self.clock(5 * Self.s, boot: "c", wall: later, trusted: false))?.state == .waiting)
        #expect(try db.parentPIN.settlePINReset(clock: Self.clock(5 * Self.s + Self.day - Self.s, boot: "c", wall: later, trusted: false))?.state == .waiting)
        #expect(try db.parentPIN.settlePINReset(clock: Self.clock(5 * Self.s + Self.day, boot: "c", wall: later, trusted: false))?.state == .applied)
        try db.parentPIN.askPINReset("2468", from: "a", clock: Self.clock(0))
        #expect(try db.parentPIN.settlePINReset(clock: Self.clock(0, boot: "d", wall: Self.asked.addingTimeInterval(86_399), trusted: true))?.state == .waiting)
        #expect(try db.parentPIN.settlePINReset(clock: Self.clock(0, boot: "d", wall: later, trusted: true))?.state == .applied)
        #expect(try db.parentPIN.verifyPIN("2468", monotonicNanos: 0, bootID: "d") == .accepted)
    }

    @Test("#47: a try from the page the act at the box confirmed goes past the lockout and counts, without locking again; the right one clears it")
    func atTheBoxPastTheLockout() throws {
        let (db, _) = try freshDatabase()
        try db.parentPIN.setPIN("2468")
        for _ in 0..<ParentPINRecords.pinAttemptsBeforeLockout { _ = try db.parentPIN.verifyPIN("0000", monotonicNanos: 0, bootID: "b") }
        #expect(try db.parentPIN.verifyPIN("2468", monotonicNanos: Self.s, bootID: "b") == .lockedOut(seconds: 299))
        #expect(try db.parentPIN.verifyPIN("0000", monotonicNanos: Self.s, bootID: "b", atTheBox: true) == .rejected(attemptsLeft: 19))
        for _ in 0..<ParentPINRecords.pinAttemptsBeforeLockout {
            #expect(try db.parentPIN.verifyPIN("0000", monotonicNanos: Self.s, bootID: "b", atTheBox: true) != .lockedOut(seconds: 300))
        }
        #expect(try db.parentPIN.verifyPIN("0000", monotonicNanos: Self.s, bootID: "b", atTheBox: true) == .rejected(attemptsLeft: 1))
        #expect(try db.parentPIN.verifyPIN("2468", monotonicNanos: 2 * Self.s, bootID: "b") == .lockedOut(seconds: 298), "the lockout stays for others")
        // After a reboot too.
        #expect(try db.parentPIN.verifyPIN("2468", monotonicNanos: Self.s, bootID: "other", atTheBox: true) == .accepted)
        #expect(try db.parentPIN.verifyPIN("2468", monotonicNanos: 2 * Self.s, bootID: "other") == .accepted, "the right PIN lifted the lockout")
    }

    @Test("a damaged reset row is skipped, never decoded into a crash")
    func damagedRow() throws {
        let (db, _) = try freshDatabase()
        try db.parentPIN.setPIN("2468")
        try db.parentPIN.askPINReset("1357", from: "a", clock: Self.clock(0))
        try db.pool.write { try $0.execute(sql: "UPDATE pinReset SET state = 'sideways'") }
        #expect(try db.parentPIN.pinReset() == nil)
        #expect(try db.parentPIN.settlePINReset(clock: Self.clock(2 * Self.day)) == nil)
        #expect(try db.parentPIN.verifyPIN("2468", monotonicNanos: 0, bootID: "b") == .accepted)
    }
}
