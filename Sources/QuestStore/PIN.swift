import Foundation
import GRDB
import Hashing

/// PAR-1: the parent area's PIN, kept as a salted scrypt hash with rate-limited attempts.
public enum PINCheck: Equatable, Sendable {
    case accepted
    case rejected(attemptsLeft: Int)
    /// Locked for this many more seconds (what an HTTP 429 says in Retry-After).
    case lockedOut(seconds: Int)
    case notSet
}

public enum PINHasher {
    /// scrypt N = 2^14, r = 8, p = 1 (16 MiB; about 0.1 s on a Pi 4), 32-byte key, 16-byte salt.
    static let rounds = 1 << 14, blockSize = 8, parallelism = 1, keyBytes = 32

    /// What `verify` accepts from a stored hash. A hash comes from the database, and a
    /// restored backup is a file someone may have crafted: its cost must not let one PIN
    /// check take gigabytes or minutes (N·r·128 bytes of memory, N·r·p work).
    static let roundsRange = (1 << 10)...(1 << 16), blockSizeRange = 1...16, parallelismRange = 1...4
    static let maximumMemoryBytes = 64 << 20
    static let saltBytes = 8...64, keyBytesRange = 16...64

    /// 4 to 8 digits.
    public static func validate(_ pin: String) throws {
        guard (4...8).contains(pin.count), pin.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw StoreError.invalid("PIN: must be 4 to 8 digits")
        }
    }

    /// "scrypt$N$r$p$<salt base64>$<key base64>".
    public static func hash(_ pin: String) throws -> String {
        try validate(pin)
        var salt = [UInt8](repeating: 0, count: 16)
        var rng = SystemRandomNumberGenerator()
        for i in salt.indices { salt[i] = UInt8.random(in: 0...255, using: &rng) }
        let key = try derive(pin, salt: salt, rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        return "scrypt$\(rounds)$\(blockSize)$\(parallelism)$\(Data(salt).base64EncodedString())$\(key.base64EncodedString())"
    }

    /// The cost parameters of a stored hash, if they are ones this box will compute.
    static func parameters(_ stored: String) -> (n: Int, r: Int, p: Int, salt: Data, key: Data)? {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let n = Int(parts[1]), let r = Int(parts[2]), let p = Int(parts[3]),
              roundsRange.contains(n), n & (n - 1) == 0, blockSizeRange.contains(r), parallelismRange.contains(p),
              n * r * 128 <= maximumMemoryBytes,
              let salt = Data(base64Encoded: parts[4]), saltBytes.contains(salt.count),
              let key = Data(base64Encoded: parts[5]), keyBytesRange.contains(key.count)
        else { return nil }
        return (n, r, p, salt, key)
    }

    /// False for a wrong PIN and for a stored hash outside the accepted costs. Throws when the
    /// hash cannot be computed at all (libcrypto missing): that is no try, and counts as none.
    static func verify(_ pin: String, against stored: String) throws -> Bool {
        guard let h = parameters(stored) else { return false }
        let key = try derive(pin, salt: [UInt8](h.salt), rounds: h.n, blockSize: h.r, parallelism: h.p, keyBytes: h.key.count)
        // Constant-time comparison.
        guard key.count == h.key.count else { return false }
        return zip(key, h.key).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func derive(_ pin: String, salt: [UInt8], rounds: Int, blockSize: Int, parallelism: Int, keyBytes: Int = keyBytes) throws -> Data {
        // The bound leaves room for scrypt's own buffers beside N·r·128 (`parameters` keeps that ≤ 64 MiB).
        let key = try Hashing.scrypt(
            password: Array(pin.utf8), salt: salt, rounds: rounds, blockSize: blockSize, parallelism: parallelism, keyBytes: keyBytes,
            maximumMemoryBytes: maximumMemoryBytes + (1 << 20))
        return Data(key)
    }
}

extension QuestDatabase {
    /// The parent's PIN, its lockouts and PAR-2's reset, over the store's one writer.
    public var parentPIN: ParentPINRecords { ParentPINRecords(pool: pool) }
}

/// PAR-1, PAR-2: the parent's PIN (a hash in the settings row, with its wrong tries and
/// lockouts) and the reset waiting to replace it: an area of the store with its own records.
public struct ParentPINRecords: Sendable {
    let pool: any DatabaseWriter

    /// Twenty wrong PINs in a row, from anywhere, lock the parent area for everyone: 5
    /// minutes, then twice as long at each further lockout, up to a day (20 guesses a day: a
    /// 4-digit PIN would take more than a year on average), until the right PIN is entered.
    /// #47: one address is paused after its own five by the web app (`PINChecks`), so a
    /// stranger's five no longer keep the parent out.
    public static let pinAttemptsBeforeLockout = 20
    public static let pinFirstLockoutSeconds: Int64 = 5 * 60
    public static let pinLongestLockoutSeconds: Int64 = 24 * 3600

    /// The length of the lockout after `count` earlier ones (the web app's per-address pauses
    /// follow the same doubling).
    public static func lockoutSeconds(afterLockouts count: Int) -> Int64 {
        let doubled = pinFirstLockoutSeconds << Int64(min(max(count, 0), 20))
        return min(doubled, pinLongestLockoutSeconds)
    }

    /// Whole seconds from `now` to `until` (nanoseconds), rounded up: never "0 s" while locked.
    static func secondsLeft(until: Int64, now: Int64) -> Int { Int((until - now + 999_999_999) / 1_000_000_000) }

    /// Sets the PIN at once (the first PIN, or `questbox pin set` by the box's own group): a
    /// reset waiting its 24 hours (PAR-2) is cancelled by it.
    public func setPIN(_ pin: String, at now: Date = Date()) throws {
        let hashed = try PINHasher.hash(pin)
        try pool.write { db in
            try SettingsRecords.ensureSettingsRow(db)
            try Self.replacePINHash(db, with: hashed)
            try db.execute(
                sql: "UPDATE pinReset SET state = 'cancelled', pinHash = NULL, settledAt = ? WHERE id = 1 AND state = 'waiting'",
                arguments: [now.timeIntervalSince1970])
        }
    }

    /// The PIN is `hash` from now on, with no wrong tries and no lockout (a new PIN starts clean).
    static func replacePINHash(_ db: Database, with hash: String) throws {
        try db.execute(
            sql: """
                UPDATE settings SET pinHash = ?, pinFailedAttempts = 0, pinLockedUntil = NULL, pinLockouts = 0,
                  pinLockedUntilMonotonic = NULL, pinLockBootId = NULL WHERE id = 1
                """,
            arguments: [hash])
    }

    /// Checks a PIN. Lockouts are timed on CLOCK_MONOTONIC (`monotonicNanos`, `bootID`): a
    /// wall clock that jumps changes nothing, a restarted process sees the same lockout, and
    /// after a reboot (a new boot id) a lockout still in force starts again in full.
    ///
    /// The slow hash (scrypt, about 0.1 s on a Pi) runs between two short transactions, never
    /// inside one: the box's own writes must not wait behind a PIN typed on a phone. The
    /// outcome is applied to the row as it is then, so checks made at once count each try,
    /// and a right PIN that lands after another try locked the area is still locked out.
    ///
    /// `atTheBox` (#47): the try comes from a page the act at the box confirmed, so no
    /// lockout stops it (a stranger's wrong PINs never keep the parent out); it still counts.
    public func verifyPIN(_ pin: String, monotonicNanos now: Int64, bootID: String, atTheBox: Bool = false) throws -> PINCheck {
        let hash: String
        switch try pool.write({ db in try Self.pinGate(db, monotonicNanos: now, bootID: bootID, ignoringLockout: atTheBox) }) {
        case .closed(let verdict): return verdict
        case .open(let stored, _, _): hash = stored
        }
        let right = try PINHasher.verify(pin, against: hash)
        return try pool.write { db in
            let failures: Int, lockouts: Int
            switch try Self.pinGate(db, monotonicNanos: now, bootID: bootID, ignoringLockout: atTheBox) {
            case .closed(let verdict): return verdict
            case .open(let current, let failed, _) where current != hash:
                // The PIN was changed while this one was hashed: it was a try at the old one.
                return .rejected(attemptsLeft: Self.pinAttemptsBeforeLockout - failed)
            case .open(_, let failed, let locked):
                (failures, lockouts) = (failed, locked)
            }
            if right {
                try db.execute(sql: """
                    UPDATE settings SET pinFailedAttempts = 0, pinLockouts = 0, pinLockedUntil = NULL,
                      pinLockedUntilMonotonic = NULL, pinLockBootId = NULL WHERE id = 1
                    """)
                return .accepted
            }
            if failures + 1 >= Self.pinAttemptsBeforeLockout, !atTheBox {
                let seconds = Self.lockoutSeconds(afterLockouts: lockouts)
                try db.execute(
                    sql: "UPDATE settings SET pinFailedAttempts = 0, pinLockouts = ?, pinLockedUntilMonotonic = ?, pinLockBootId = ? WHERE id = 1",
                    arguments: [lockouts + 1, now + seconds * 1_000_000_000, bootID])
                return .lockedOut(seconds: Int(seconds))
            }
            // A try at the box counts, but never locks (the lockout it was let past stays).
            let counted = min(failures + 1, Self.pinAttemptsBeforeLockout - 1)
            try db.execute(sql: "UPDATE settings SET pinFailedAttempts = ? WHERE id = 1", arguments: [counted])
            return .rejected(attemptsLeft: Self.pinAttemptsBeforeLockout - counted)
        }
    }

    enum PINGate {
        /// A try may be made: the stored hash, the wrong tries since the last lockout, and
        /// the lockouts so far (as the row is now).
        case open(hash: String, failures: Int, lockouts: Int)
        case closed(PINCheck)
    }

    /// Whether a PIN may be tried now, with the row's counts, or why not (none set, locked
    /// out). A lockout from another boot starts again in full on this one's clock.
    static func pinGate(_ db: Database, monotonicNanos now: Int64, bootID: String, ignoringLockout: Bool = false) throws -> PINGate {
        try SettingsRecords.ensureSettingsRow(db)
        guard let row = try Row.fetchOne(db, sql: """
                SELECT pinHash, pinLockouts, pinLockedUntilMonotonic, pinLockBootId, pinFailedAttempts FROM settings
                WHERE id = 1 AND \(RowRules.valid("settings", columns: ["pinHash", "pinFailedAttempts", "pinLockouts", "pinLockedUntilMonotonic", "pinLockBootId"]))
                """),
              let hash = row[0] as String?
        else { return .closed(.notSet) }
        let lockouts: Int = row[1]
        if let until = row[2] as Int64? {
            let boot: String? = row[3]
            if boot != bootID {
                // Another boot: the monotonic clock restarted, so the lockout does too.
                let again = now + lockoutSeconds(afterLockouts: max(lockouts - 1, 0)) * 1_000_000_000
                try db.execute(sql: "UPDATE settings SET pinLockedUntilMonotonic = ?, pinLockBootId = ? WHERE id = 1", arguments: [again, bootID])
                if !ignoringLockout { return .closed(.lockedOut(seconds: secondsLeft(until: again, now: now))) }
            }
            if now < until, !ignoringLockout { return .closed(.lockedOut(seconds: secondsLeft(until: until, now: now))) }
        }
        return .open(hash: hash, failures: row[4], lockouts: lockouts)
    }
}
