import ConfusableNames
import Testing

@Suite("#47: names that read the same are one name (TR39 skeleton after NFKC_Casefold)")
struct ConfusableNamesTests {
    @Test("look-alikes of \"Morning Quest\" share its key", arguments: [
        "Morning Quest", "morning quest", "MORNING QUEST", "Morning  Quest", " Morning Quest ", "Morning\u{00A0}Quest",
        "M\u{03BF}rning Quest", "Morning\u{200B} Quest", "Ｍｏｒｎｉｎｇ Ｑｕｅｓｔ",
        "M\u{043E}rning Qu\u{0435}st", "rnorning Quest",
    ])
    func lookAlikes(_ name: String) {
        #expect(ConfusableNames.same(name, "Morning Quest"), "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test("names a reader tells apart stay apart", arguments: ["Evening Quest", "Morning Quests", "Morning Quest 2", "Mourning Quest", "Morning"])
    func different(_ name: String) {
        #expect(!ConfusableNames.same(name, "Morning Quest"))
    }

    @Test("text ICU cannot take (over 1 KB) has no key and reads only as itself")
    func tooLong() {
        let long = String(repeating: "a", count: 2_000)
        #expect(ConfusableNames.key(long) == nil)
        #expect(ConfusableNames.same(long, long) && !ConfusableNames.same(long, long + "b"))
        #expect(ConfusableNames.key("") == "")
    }
}
