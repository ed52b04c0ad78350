/// Random text for the box's secrets and codes, one way everywhere (#49): tokens, session
/// ids and pairing names as hex, the codes a person types as digits. From the system's
/// generator (getrandom), never a seeded one.
public enum RandomText {
    /// `bytes` random bytes as 2 × `bytes` lower-case hex digits.
    public static func hex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes * 2)
        for _ in 0..<max(bytes, 0) {
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `count` random decimal digits, each equally likely ("004271" for six).
    public static func digits(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<max(count, 0)).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
    }
}
