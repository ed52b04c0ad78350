import Foundation
import GRDB

/// PAR-2 (#47): a new PIN asked for over an existing one (the forgotten-PIN act at the box)
/// waits 24 hours before it replaces the PIN, as account recovery does: the player is always
/// at the box, so the act alone proves nothing against her. Meanwhile the old PIN still
/// signs in and can cancel it, the parent's phone is told at once, and the parent area says
/// when and from where. The first PIN of a fresh box needs no wait; `questbox pin set` (the
/// box's own group) replaces the PIN at once and cancels a waiting reset.
public struct PINReset: Equatable, Sendable {
    public enum State: String, CaseIterable, Sendable {
        case waiting, applied, cancelled
    }

    public var state: State
    /// When it was asked for (a calendar fact for the words; the wait itself is timed on
    /// CLOCK_MONOTONIC, `PINResetClock`).
    public var askedAt: Date
    /// The address of the page that asked, as the web app names its clients.
    public var from: String
    /// When it took effect or was cancelled.
    public var settledAt: Date?
    /// Whether the parent's phone was told of it.
    public var pushed: Bool
    /// Whether the parent area has said it was applied (shown once after).
    public var shown: Bool

    /// When it takes effect if nothing cancels it (later after a reboot with no trusted
    /// wall clock: the wait then starts again).
    public var takesEffectAt: Date { askedAt.addingTimeInterval(ParentPINRecords.pinResetWaitSeconds) }

    /// Longest address kept.
    static let maximumFromBytes = 64
}

/// The clocks a reset's wait is judged on: monotonic within a boot; across boots the wall
/// clock, but only once the kernel says it is synchronized (a Pi with no RTC may start at
/// any date), else the wait starts again in full.
public struct PINResetClock: Sendable {
    public var monotonicNanos: Int64
    public var bootID: String
    public var wall: Date
    public var wallTrusted: Bool

    public init(monotonicNanos: Int64, bootID: String, wall: Date, wallTrusted: Bool) {
        self.monotonicNanos = monotonicNanos
        self.bootID = bootID
        self.wall = wall
        self.wallTrusted = wallTrusted
    }
}

extension ParentPINRecords {
    public static let pinResetWaitSeconds: TimeInterval = 24 * 3600

    /// Keeps `pin` (hashed) as the PIN to come in 24 hours, asked from `from`. A reset asked
    /// again replaces the one waiting, and its wait starts again. Throws for a PIN outside
    /// the rule or when no PIN is set (the first PIN needs no wait: `setPIN`).
    public func askPINReset(_ pin: String, from: String, clock: PINResetClock) throws {
        let hashed = try PINHasher.hash(pin)
        try pool.write { db in
            try SettingsRecords.ensureSettingsRow(db)
            guard try Bool.fetchOne(db, sql: "SELECT pinHash IS NOT NULL FROM settings WHERE id = 1") == true else {
                throw StoreError.invalid("PIN: none is set yet, so there is nothing to reset")
            }
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO pinReset (id, state, askedAt, fromAddress, pinHash, askedMonotonic, askedBootId, settledAt, pushedAt, shownAt)
                    VALUES (1, 'waiting', ?, ?, ?, ?, ?, NULL, NULL, NULL)
                    """,
                arguments: [
                    clock.wall.timeIntervalSince1970, QuestDatabase.storable(from, bytes: PINReset.maximumFromBytes), hashed, clock.monotonicNanos, clock.bootID,
                ])
        }
    }

    /// The last reset asked for (waiting, applied or cancelled), or nil.
    public func pinReset() throws -> PINReset? {
        try pool.read { db in try Self.readPINReset(db) }
    }

    /// Applies a waiting reset whose 24 hours are over, in one transaction with the PIN
    /// itself; returns the reset as it is now. Every PIN check calls it first.
    @discardableResult
    public func settlePINReset(clock: PINResetClock) throws -> PINReset? {
        try pool.write { db in
            try Self.settlePINReset(db, clock: clock)
            return try Self.readPINReset(db)
        }
    }

    /// Cancels a waiting reset (the parent, signed in with the old PIN); false when none waits.
    public func cancelPINReset(at now: Date) throws -> Bool {
        try pool.write { db in
            try db.execute(
                sql: "UPDATE pinReset SET state = 'cancelled', pinHash = NULL, settledAt = ? WHERE id = 1 AND state = 'waiting'",
                arguments: [now.timeIntervalSince1970])
            return db.changesCount > 0
        }
    }

    /// The parent's phone was told of the waiting reset.
    public func markPINResetPushed(at now: Date) throws {
        try pool.write { db in
            try db.execute(sql: "UPDATE pinReset SET pushedAt = ? WHERE id = 1 AND pushedAt IS NULL", arguments: [now.timeIntervalSince1970])
        }
    }

    /// The parent area said the applied reset.
    public func markPINResetShown(at now: Date) throws {
        try pool.write { db in
            try db.execute(
                sql: "UPDATE pinReset SET shownAt = ? WHERE id = 1 AND state = 'applied' AND shownAt IS NULL", arguments: [now.timeIntervalSince1970])
        }
    }

    static func readPINReset(_ db: Database) throws -> PINReset? {
        guard try db.tableExists("pinReset"),
              let row = try Row.fetchOne(db, sql: "SELECT * FROM pinReset WHERE id = 1 AND \(RowRules.valid("pinReset"))"),
              let state = PINReset.State(rawValue: row["state"])
        else { return nil }
        return PINReset(
            state: state, askedAt: Date(timeIntervalSince1970: row["askedAt"]), from: row["fromAddress"],
            settledAt: (row["settledAt"] as Double?).map(Date.init(timeIntervalSince1970:)),
            pushed: (row["pushedAt"] as Double?) != nil, shown: (row["shownAt"] as Double?) != nil)
    }

    /// Within a boot: 24 hours of CLOCK_MONOTONIC. From another boot: the synchronized wall
    /// clock 24 hours past the asking; an unsynchronized one restarts the wait on this boot.
    static func settlePINReset(_ db: Database, clock: PINResetClock) throws {
        guard try db.tableExists("pinReset"),
              let row = try Row.fetchOne(db, sql: """
                SELECT askedAt, askedMonotonic, askedBootId, pinHash FROM pinReset
                WHERE id = 1 AND state = 'waiting' AND pinHash IS NOT NULL AND \(RowRules.valid("pinReset"))
                """)
        else { return }
        let askedAt: Double = row[0], askedMonotonic: Int64 = row[1], boot: String = row[2], hash: String = row[3]
        let wait = Int64(pinResetWaitSeconds) * 1_000_000_000
        let due: Bool
        if boot == clock.bootID {
            due = clock.monotonicNanos - askedMonotonic >= wait
        } else if clock.wallTrusted {
            due = clock.wall.timeIntervalSince1970 - askedAt >= pinResetWaitSeconds
        } else {
            try db.execute(
                sql: "UPDATE pinReset SET askedMonotonic = ?, askedBootId = ? WHERE id = 1", arguments: [clock.monotonicNanos, clock.bootID])
            due = false
        }
        guard due else { return }
        try replacePINHash(db, with: hash)
        try db.execute(
            sql: "UPDATE pinReset SET state = 'applied', pinHash = NULL, settledAt = ? WHERE id = 1",
            arguments: [clock.wall.timeIntervalSince1970])
    }
}
