import Testing
@testable import QuestStore

/// #49: one way for random text: tokens as hex, codes as digits.
@Suite("#49: RandomText, every token and code")
struct RandomTextTests {
    @Test("hex: 2 × bytes lower-case hex digits, never the same twice; digits: that many decimal digits, leading zeros kept")
    func shapes() {
        let tokens = (0..<200).map { _ in RandomText.hex(bytes: 32) }
        #expect(tokens.allSatisfy { $0.utf8.count == 64 && $0.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) } })
        #expect(Set(tokens).count == tokens.count)
        let codes = (0..<2_000).map { _ in RandomText.digits(6) }
        #expect(codes.allSatisfy { $0.utf8.count == 6 && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } })
        // Every digit turns up in every position (a code of fixed digits would not).
        for position in 0..<6 {
            #expect(Set(codes.map { Array($0)[position] }).count == 10, "position \(position)")
        }
        #expect(RandomText.digits(3).count == 3 && RandomText.hex(bytes: 0).isEmpty)
    }
}
