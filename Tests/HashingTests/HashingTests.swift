import Foundation
import Hashing
import Testing

/// The published test vectors: whatever library computes them, a stored hash keeps its meaning.
@Suite("Hashing: SHA-256, HMAC-SHA-256 and scrypt from libcrypto")
struct HashingTests {
    private func hex(_ text: String) -> [UInt8] {
        var bytes = [UInt8]()
        var digits = text.filter { !$0.isWhitespace }.makeIterator()
        while let high = digits.next(), let low = digits.next() { bytes.append(UInt8(String([high, low]), radix: 16) ?? 0) }
        return bytes
    }

    @Test("SHA-256: FIPS 180-2's \"abc\" and the empty message")
    func sha256() throws {
        #expect(Hashing.hex(try Hashing.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hashing.hex(try Hashing.sha256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("HMAC-SHA-256: RFC 4231's test cases 1 and 2; an empty key is a key")
    func hmac() throws {
        let one = try Hashing.hmacSHA256(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8))
        #expect(Hashing.hex(one) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        let two = try Hashing.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Hashing.hex(two) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(Hashing.hex(try Hashing.hmacSHA256(key: [], message: [])) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test("scrypt: RFC 7914's vectors, the third with the box's own cost (N 2^14, r 8, p 1)")
    func scrypt() throws {
        let bound = 64 << 20
        let first = try Hashing.scrypt(password: [], salt: [], rounds: 16, blockSize: 1, parallelism: 1, keyBytes: 64, maximumMemoryBytes: bound)
        #expect(first == hex("""
            77 d6 57 62 38 65 7b 20 3b 19 ca 42 c1 8a 04 97 f1 6b 48 44 e3 07 4a e8 df df fa 3f ed e2 14 42
            fc d0 06 9d ed 09 48 f8 32 6a 75 3a 0f c8 1f 17 e8 d3 e0 fb 2e 0d 36 28 cf 35 e2 0c 38 d1 89 06
            """))
        let third = try Hashing.scrypt(
            password: Array("pleaseletmein".utf8), salt: Array("SodiumChloride".utf8), rounds: 16384, blockSize: 8, parallelism: 1,
            keyBytes: 64, maximumMemoryBytes: bound)
        #expect(third == hex("""
            70 23 bd cb 3a fd 73 48 46 1c 06 cd 81 fd 38 eb fd a8 fb ba 90 4f 8e 3e a9 b5 43 f6 54 5d a1 f2
            d5 43 29 55 61 3f 0f cf 62 d4 97 05 24 2a 9a f9 e6 1e 85 dc 0d 65 1e 40 df cf 01 7b 45 57 58 87
            """))
    }

    @Test("scrypt refuses a cost past its memory bound and one that is no cost, in one line, computing nothing")
    func scryptBounds() throws {
        #expect(throws: Hashing.Unavailable.self) {
            try Hashing.scrypt(password: [1], salt: [2], rounds: 1 << 20, blockSize: 8, parallelism: 1, keyBytes: 32, maximumMemoryBytes: 16 << 20)
        }
        for (n, r, p, bytes) in [(1, 8, 1, 32), (1024, 0, 1, 32), (1024, 8, 0, 32), (1024, 8, 1, 0), (1000, 8, 1, 32)] {
            do {
                _ = try Hashing.scrypt(password: [1], salt: [2], rounds: n, blockSize: r, parallelism: p, keyBytes: bytes, maximumMemoryBytes: 16 << 20)
                Issue.record("N \(n) r \(r) p \(p) \(bytes) bytes was computed")
            } catch {
                #expect(!"\(error)".contains("\n"))
                #expect(!"\(error)".isEmpty)
            }
        }
    }
}
