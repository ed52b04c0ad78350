import Foundation
import Hashing
import GRDB
import QuestCore

/// #33: a browser a parent paired as the box's touch kiosk: its buttons press the box. The
/// browser keeps a random token (a cookie); the store keeps only the token's SHA-256, so a
/// backup or a stolen database pairs nobody.
public struct PairedKiosk: Equatable, Sendable {
    public var id: Int64
    public var name: String
    public var pairedAt: Date
    /// A kiosk presses the box's buttons; a phone paired for the player's pages does not.
    public var canPress: Bool

    public init(id: Int64, name: String, pairedAt: Date, canPress: Bool) {
        self.id = id
        self.name = name
        self.pairedAt = pairedAt
        self.canPress = canPress
    }
}

extension QuestDatabase {
    /// The paired browsers' records, over the store's one writer.
    public var kiosks: KioskPairingStore { KioskPairingStore(pool: pool) }
}

/// #33, PRIV-1: the browsers paired to the box (touch kiosks, her phone): an area of the store
/// with its own records, over the one writer.
public struct KioskPairingStore: Sendable {
    let pool: any DatabaseWriter

    /// A family has a display or two; a long list would only hide a stranger's pairing.
    public static let maximumPaired = 8
    public static let maximumNameCharacters = 40

    /// A new token for a browser to keep: 256 random bits as 64 hex digits.
    public static func newToken() -> String { RandomText.hex(bytes: 32) }

    /// Pairs the browser that keeps `token` (from `newToken`) as a kiosk named `name`.
    public func pair(name: String, token: String, now: Date, canPress: Bool = true) throws {
        guard Self.isToken(token) else { throw StoreError.invalid("kiosk token: not one this box made") }
        let name = name.trimmingCharacters(in: .whitespaces)
        guard (1...Self.maximumNameCharacters).contains(name.count) else {
            throw StoreError.invalid("kiosk name: 1 to \(Self.maximumNameCharacters) characters")
        }
        if let problem = DisplayText.nameProblem(name) { throw StoreError.invalid("kiosk name: \(problem)") }
        try pool.write { db in
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pairedKiosk") ?? 0
            guard count < Self.maximumPaired else {
                throw StoreError.invalid("kiosks: \(Self.maximumPaired) are paired already; unpair one first")
            }
            try db.execute(
                sql: "INSERT INTO pairedKiosk (name, tokenHash, pairedAt, canPress) VALUES (?, ?, ?, ?)",
                arguments: [name, try Self.tokenHash(token), now.timeIntervalSince1970, canPress])
        }
    }

    public func all() throws -> [PairedKiosk] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, name, pairedAt, canPress FROM pairedKiosk WHERE \(RowRules.valid("pairedKiosk")) ORDER BY id")
                .map(Self.pairedKiosk(row:))
        }
    }

    /// The kiosk this token pairs, or nil (a token of another shape is never looked up).
    public func paired(token: String) throws -> PairedKiosk? {
        guard Self.isToken(token) else { return nil }
        return try pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT id, name, pairedAt, canPress FROM pairedKiosk WHERE tokenHash = ? AND \(RowRules.valid("pairedKiosk"))",
                arguments: [try Self.tokenHash(token)])
            .map(Self.pairedKiosk(row:))
        }
    }

    /// True when a kiosk was unpaired (its browser's buttons stop at once).
    public func unpair(id: Int64) throws -> Bool {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM pairedKiosk WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    private static func pairedKiosk(row: Row) -> PairedKiosk {
        PairedKiosk(id: row[0], name: row[1], pairedAt: Date(timeIntervalSince1970: row[2]), canPress: row[3])
    }

    /// A token of the shape `newToken` makes (64 lower-case hex digits).
    public static func isToken(_ token: String) -> Bool {
        token.utf8.count == 64 && token.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    static func tokenHash(_ token: String) throws -> String {
        do { return Hashing.hex(try Hashing.sha256(Array(token.utf8))) } catch { throw StoreError.io("kiosk token: \(error)") }
    }
}
