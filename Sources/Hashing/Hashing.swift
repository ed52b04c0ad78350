import CLibCrypto

/// SHA-256, HMAC-SHA-256 and scrypt (RFC 7914) from OpenSSL's libcrypto, which is opened at
/// the first call (CLibCrypto). Every call throws `Hashing.Unavailable` with one line when the
/// library cannot be loaded; a caller that must deny (a token check) treats that as "no".
public enum Hashing {
    public struct Unavailable: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Loads the library now: a program that cannot hash says so at its start, not at a request.
    public static func load() throws {
        guard qb_crypto_load() == 0 else { throw Unavailable(description: String(cString: qb_crypto_load_error())) }
    }

    public static func sha256(_ bytes: [UInt8]) throws -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        let status = bytes.withUnsafeBytes { data in
            digest.withUnsafeMutableBufferPointer { qb_crypto_sha256(data.baseAddress, data.count, $0.baseAddress) }
        }
        guard status == 0 else { throw failure("SHA-256") }
        return digest
    }

    public static func hmacSHA256(key: [UInt8], message: [UInt8]) throws -> [UInt8] {
        var code = [UInt8](repeating: 0, count: 32)
        let status = key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                code.withUnsafeMutableBufferPointer {
                    qb_crypto_hmac_sha256(key.baseAddress, key.count, message.baseAddress, message.count, $0.baseAddress)
                }
            }
        }
        guard status == 0 else { throw failure("HMAC-SHA-256") }
        return code
    }

    /// scrypt with cost N (`rounds`, a power of two), block size r and parallelism p.
    /// `maximumMemoryBytes` bounds what one call may take (the library refuses more).
    public static func scrypt(
        password: [UInt8], salt: [UInt8], rounds: Int, blockSize: Int, parallelism: Int, keyBytes: Int, maximumMemoryBytes: Int
    ) throws -> [UInt8] {
        guard rounds > 1, blockSize > 0, parallelism > 0, (1...1024).contains(keyBytes), maximumMemoryBytes > 0 else {
            throw Unavailable(description: "scrypt: N \(rounds), r \(blockSize), p \(parallelism), \(keyBytes) bytes is not a cost to compute")
        }
        var key = [UInt8](repeating: 0, count: keyBytes)
        let status = password.withUnsafeBytes { password in
            salt.withUnsafeBytes { salt in
                key.withUnsafeMutableBufferPointer {
                    qb_crypto_scrypt(
                        password.baseAddress, password.count, salt.baseAddress, salt.count, UInt64(rounds), UInt64(blockSize),
                        UInt64(parallelism), UInt64(maximumMemoryBytes), $0.baseAddress, keyBytes)
                }
            }
        }
        guard status == 0 else { throw failure("scrypt") }
        return key
    }

    /// Lower-case hex, two digits a byte.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func failure(_ what: String) -> Unavailable {
        qb_crypto_load() == 0
            ? Unavailable(description: "\(what): OpenSSL's libcrypto refused the computation")
            : Unavailable(description: String(cString: qb_crypto_load_error()))
    }
}
