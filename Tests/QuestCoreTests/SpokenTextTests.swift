import Testing
@testable import QuestCore

/// #48: the voice reads names as a person would: no emoji read by name, symbols as words or
/// not at all, sentence punctuation kept for its pauses.
@Suite("#48: names said as a person would say them")
struct SpokenTextTests {
    @Test("#48: emoji and picture symbols are not read; the words around them are", arguments: [
        ("🌙 Bedtime Quest", "Bedtime Quest"),
        ("Tooth Time 🦷✨", "Tooth Time"),
        ("👨‍👩‍👧 Family walk", "Family walk"),
        ("Ready 3️⃣ go", "Ready go"),
        ("🇩🇪 Hausaufgaben", "Hausaufgaben"),
        ("Lego™ tidy ©", "Lego tidy"),
        ("Feed the cat ❤️.", "Feed the cat."),
        ("🌙", ""),
    ])
    func pictographs(_ written: String, _ said: String) {
        #expect(SpokenText.said(written) == said)
    }

    @Test("#48: symbols are said as words or left out, numbers kept as numbers", arguments: [
        ("p.12 / maths #3", "p 12 maths number 3"),
        ("Maths & English", "Maths and English"),
        ("Tidy desk + bag", "Tidy desk plus bag"),
        ("Email @ 4", "Email at 4"),
        ("file_name*draft~", "file name draft"),
        ("#hashtag", "hashtag"),
        ("[Room] <tidy> {now}", "Room tidy now"),
    ])
    func symbols(_ written: String, _ said: String) {
        #expect(SpokenText.said(written) == said)
    }

    @Test("#48: a sentence keeps its punctuation, decimals and times, so the voice pauses where it did")
    func sentencesStay() {
        for text in ["Close! It took three minutes ten. Your guess was forty seconds short.", "Pack Bag. Your guess: two minutes.",
                     "It took 2.5 minutes, or 2:30?", "Level 3!", "Don't stop (yet)."] {
            #expect(SpokenText.said(text) == text, "\(text)")
        }
    }
}
