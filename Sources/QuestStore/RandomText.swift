import Hashing

/// Random text for the box's secrets and codes, one way everywhere (#49): tokens, session
/// ids and pairing names as hex, the codes a person types as digits. From the system's
/// generator (getrandom), never a seeded one.
public enum RandomText {
    /// `bytes` random bytes as 2 × `bytes` lower-case hex digits.
    public static func hex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Hashing.hex((0..<max(bytes, 0)).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// `count` random decimal digits, each equally likely ("004271" for six).
    public static func digits(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<max(count, 0)).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
    }
}
