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

    @Test("#47: a name is said bounded: 6 words, 40 characters, a run of digits at most 6 (an 80-digit name took 24 s)", arguments: [
        (String(repeating: "7", count: 80), "777777"),
        ("You are a lazy idiot and you never finish anything ever", "You are a lazy idiot and"),
        ("Supercalifragilisticexpialidocious homework time", "Supercalifragilisticexpialidocious"),
        (String(repeating: "x", count: 60), String(repeating: "x", count: 40)),
        ("Room 12345678 tidy", "Room 123456 tidy"),
        ("Morning Quest", "Morning Quest"),
    ])
    func boundedName(_ written: String, _ said: String) {
        #expect(SpokenText.name(written) == said)
    }

    @Test("#47: every screen says a name at most once, and only in its bounded form")
    func nameOncePerScreen() {
        let long = "Pack " + String(repeating: "9", count: 30) + " bag now please quickly today"
        let said = SpokenText.name(long)
        let result = TimeEstimationScorer.score(estimated: 100, actual: 160)
        var reveal = RevealScreen(
            taskName: long, estimatedSeconds: 100, actualSeconds: 160, differenceSeconds: -60, accuracyPercent: result.accuracyPercent,
            rating: result.rating, feedback: FeedbackGenerator.feedback(for: result, isCalibration: false), xpGained: 10, isPersonalBest: false,
            isCalibration: false, isLastTask: false)
        reveal.pattern = BiasInsight(direction: .underestimates, meanDifferenceSeconds: -60, relativeBias: -0.4)
        let screens: [Screen] = [
            .estimating(EstimatingScreen(questName: long, taskName: long, taskNumber: 1, taskCount: 3, estimateSeconds: 150, hint: nil)),
            .reveal(reveal),
            .summary(SummaryScreen(questName: long, sessionXP: 40, totalXP: 400, level: 3, levelProgress: 0.1, leveledUp: false,
                                   personalBests: [long], streakText: "", streakMilestone: nil, calibrationSessionsLeft: 0)),
        ]
        for screen in screens {
            let words = screen.spoken ?? ""
            #expect(!words.contains(String(repeating: "9", count: 7)), "\(words)")
            #expect(words.components(separatedBy: said).count - 1 <= (screen.kind == "summary" ? 2 : 1), "\(words)")
        }
        #expect(VoicePhrases.reminder(questName: long) == "Time for \(said).")
    }
}
