import Testing
@testable import QuestCore

@Suite("Counts in words")
struct CountTextTests {
    @Test("one is singular; zero and more are plural; an irregular plural is given")
    func counted() {
        #expect(CountText.counted(1, "quest") == "1 quest")
        #expect(CountText.counted(0, "quest") == "0 quests")
        #expect(CountText.counted(2, "day") == "2 days")
        #expect(CountText.counted(1, "more try", plural: "more tries") == "1 more try")
        #expect(CountText.counted(3, "more try", plural: "more tries") == "3 more tries")
    }
}
