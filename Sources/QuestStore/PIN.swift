import Crypto
import _CryptoExtras
import Foundation
import GRDB

/// PAR-1: the parent area's PIN, kept as a salted scrypt hash with rate-limited attempts.
public enum PINCheck: Equatable, Sendable {
    case accepted
    case rejected(attemptsLeft: Int)
    case lockedOut(until: Date)
    case notSet
}

public enum PINHasher {
    /// scrypt N = 2^14, r = 8, p = 1 (16 MiB; about 0.1 s on a Pi 4), 32-byte key, 16-byte salt.
    static let rounds = 1 << 14, blockSize = 8, parallelism = 1, keyBytes = 32

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

    public static func verify(_ pin: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let n = Int(parts[1]), let r = Int(parts[2]), let p = Int(parts[3]),
              let salt = Data(base64Encoded: parts[4]), let expected = Data(base64Encoded: parts[5]),
              let key = try? derive(pin, salt: [UInt8](salt), rounds: n, blockSize: r, parallelism: p)
        else { return false }
        // Constant-time comparison.
        guard key.count == expected.count else { return false }
        return zip(key, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func derive(_ pin: String, salt: [UInt8], rounds: Int, blockSize: Int, parallelism: Int) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(pin.utf8), salt: salt, outputByteCount: keyBytes, rounds: rounds, blockSize: blockSize,
            parallelism: parallelism)
        return key.withUnsafeBytes { Data($0) }
    }
}

extension QuestDatabase {
    /// Five wrong PINs in a row lock the parent area for five minutes.
    public static let pinAttemptsBeforeLockout = 5
    public static let pinLockout: TimeInterval = 5 * 60

    public func setPIN(_ pin: String) throws {
        let hashed = try PINHasher.hash(pin)
        try pool.write { db in
            try Self.ensureSettingsRow(db)
            try db.execute(sql: "UPDATE settings SET pinHash = ?, pinFailedAttempts = 0, pinLockedUntil = NULL WHERE id = 1", arguments: [hashed])
        }
    }

    public func verifyPIN(_ pin: String, now: Date) throws -> PINCheck {
        try pool.write { db in
            try Self.ensureSettingsRow(db)
            guard let row = try Row.fetchOne(db, sql: "SELECT pinHash, pinFailedAttempts, pinLockedUntil FROM settings WHERE id = 1"),
                  let hash = row[0] as String?
            else { return .notSet }
            if let until = (row[2] as Double?).map(Date.init(timeIntervalSince1970:)), until > now { return .lockedOut(until: until) }
            if PINHasher.verify(pin, against: hash) {
                try db.execute(sql: "UPDATE settings SET pinFailedAttempts = 0, pinLockedUntil = NULL WHERE id = 1")
                return .accepted
            }
            let failures = (row[1] as Int) + 1
            if failures >= Self.pinAttemptsBeforeLockout {
                let until = now.addingTimeInterval(Self.pinLockout)
                try db.execute(sql: "UPDATE settings SET pinFailedAttempts = 0, pinLockedUntil = ? WHERE id = 1", arguments: [until.timeIntervalSince1970])
                return .lockedOut(until: until)
            }
            try db.execute(sql: "UPDATE settings SET pinFailedAttempts = ? WHERE id = 1", arguments: [failures])
            return .rejected(attemptsLeft: Self.pinAttemptsBeforeLockout - failures)
        }
    }
}
