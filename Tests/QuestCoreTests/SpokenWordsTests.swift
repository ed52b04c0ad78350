import Testing
@testable import QuestCore

/// #35: what the voice says, in words: durations as people say them, and each screen's
/// sentence from the screens' own phrases.
@Suite("VOICE-1 (#35): the voice's words")
struct SpokenWordsTests {
    @Test("durations as people say them, never a clock", arguments: [
        (1, "one second"), (15, "fifteen seconds"), (45, "forty-five seconds"), (60, "one minute"),
        (105, "one minute forty-five"), (150, "two minutes thirty"), (190, "three minutes ten"),
        (185, "three minutes and five seconds"), (1200, "twenty minutes"), (3599, "fifty-nine minutes fifty-nine"),
        (3600, "an hour"), (3629, "an hour"), (3900, "an hour and five minutes"), (4500, "an hour and a quarter"),
        (5400, "an hour and a half"), (6300, "an hour and three quarters"), (7170, "two hours"), (7200, "two hours"),
        (8100, "two and a quarter hours"), (9000, "two and a half hours"), (0, "zero seconds"), (-5, "zero seconds"),
    ])
    func durations(_ seconds: Int, _ said: String) {
        #expect(SpokenDuration.words(seconds: seconds) == said)
    }

    @Test("SPEC §2: every estimate step from the shortest to the longest reads as words, each one different")
    func everyStep() {
        let rules = GameRules.standard
        var seconds = rules.minimumEstimateSeconds
        var said: [String] = []
        while true {
            said.append(SpokenDuration.words(seconds: seconds))
            let next = EstimateStepper.up(seconds, rules: rules)
            if next == seconds { break }
            seconds = next
        }
        #expect(said.count > 40)
        #expect(Set(said).count == said.count, "two steps read the same: \(said)")
        #expect(said.allSatisfy { !$0.contains(where: \.isNumber) && !$0.contains(":") }, "\(said)")
    }

    @Test("a measured time to the whole second; a time that is not a number reads as none")
    func measured() {
        #expect(SpokenDuration.words(measured: 190.4) == "three minutes ten")
        #expect(SpokenDuration.words(measured: 189.6) == "three minutes ten")
        #expect(SpokenDuration.words(measured: .nan) == "zero seconds")
        #expect(SpokenDuration.words(measured: .infinity) == "zero seconds")
        #expect(SpokenDuration.words(measured: 1e300).hasSuffix("hours"))
    }

    @Test("numbers in words up to 9,999, digits above", arguments: [
        (0, "zero"), (13, "thirteen"), (21, "twenty-one"), (90, "ninety"), (100, "one hundred"), (115, "one hundred and fifteen"),
        (1250, "one thousand two hundred and fifty"), (2005, "two thousand and five"), (12_000, "12000"), (-3, "minus three"),
    ])
    func numbers(_ n: Int, _ said: String) {
        #expect(SpokenNumber.words(n) == said)
    }

    static func reveal(_ rating: AccuracyRating, estimated: Double = 150, actual: Double = 190, calibration: Bool = false) -> RevealScreen {
        let result = TimeEstimationScorer.score(estimated: estimated, actual: actual)
        return RevealScreen(
            taskName: "Tidy Desk", estimatedSeconds: estimated, actualSeconds: actual, differenceSeconds: estimated - actual,
            accuracyPercent: result.accuracyPercent, rating: rating, feedback: FeedbackGenerator.feedback(for: result, isCalibration: calibration),
            xpGained: 10, isPersonalBest: false, isCalibration: calibration, isLastTask: false)
    }

    @Test("FEED-1 aloud: each rating's words, its kind line, the time it took and the guess's error in words", arguments: AccuracyRating.allCases)
    func revealAloud(_ rating: AccuracyRating) {
        let said = Screen.reveal(Self.reveal(rating)).spoken ?? ""
        #expect(said.hasPrefix(ScreenPhrases.ratingWords(rating)))
        if let kind = ScreenPhrases.kindLine(rating) {
            let kindSaid = said.contains(kind + ".")
            #expect(kindSaid, "\(said)")
        }
        #expect(said.hasSuffix("It took three minutes ten. Your guess was forty seconds short."), "\(said)")
        let digits = said.filter { $0.isNumber }
        #expect(digits.isEmpty, "\(said)")
    }

    @Test("the reveal of a guess too long, one exactly right, and a learning quest's")
    func revealKinds() {
        #expect(Screen.reveal(Self.reveal(.close, estimated: 200, actual: 190)).spoken == "Close! Getting dialed in. It took three minutes ten. Your guess was ten seconds long.")
        #expect(Screen.reveal(Self.reveal(.spotOn, estimated: 190, actual: 190.3)).spoken == "Nailed it! It took three minutes ten. Your guess was exactly right.")
        #expect(Screen.reveal(Self.reveal(.wayOff, calibration: true)).spoken == "Noted. It took three minutes ten. Learning your timing.")
    }

    @Test("the offer says the task and the guess; GAME-2: the running task says only Go!, whatever its guess")
    func offerAndGo() {
        let estimating = EstimatingScreen(questName: "Morning Quest", taskName: "Tidy Desk", taskNumber: 1, taskCount: 3, estimateSeconds: 150, hint: nil)
        #expect(Screen.estimating(estimating).spoken == "Tidy Desk. Your guess: two minutes thirty.")
        #expect(VoicePhrases.guess(105) == "Your guess: one minute forty-five.")
        for seconds in [15, 150, 3600] {
            let active = ActiveScreen(questName: "Morning Quest", taskName: "Tidy Desk", taskNumber: 1, taskCount: 3, estimateSeconds: seconds)
            #expect(Screen.active(active).spoken == "Go!")
        }
        #expect(VoicePhrases.offer(taskName: "Done?", estimateSeconds: 60) == "Done? Your guess: one minute.", "a name's own ending is kept")
    }

    @Test("the summary, a reminder and the PIN claim aloud")
    func summaryReminderClaim() {
        let summary = SummaryScreen(questName: "Morning Quest", sessionXP: 40, totalXP: 400, level: 3, levelProgress: 0.1, leveledUp: true,
                                    personalBests: ["Tidy Desk"], streakText: "7-day streak", streakMilestone: 7, calibrationSessionsLeft: 0)
        #expect(VoicePhrases.summary(summary) == "Morning Quest done! Plus forty XP. Level three! Seven-day streak! New best: Tidy Desk.")
        #expect(VoicePhrases.reminder(questName: "Morning Quest") == "Time for Morning Quest.")
        #expect(Screen.claim(ClaimScreen(reset: false, holding: false, match: "471")).spoken?.contains("hold STOP and DOWN for three seconds") == true)
    }
}

@Suite("#35 the voice's pieces and what is known ahead")
struct VoicePiecesTests {
    @Test("a phrase is said in sentences; a name's own full stop inside a word stays")
    func pieces() {
        #expect(VoicePhrases.pieces("Tooth Time. Your guess: two minutes.") == ["Tooth Time.", "Your guess: two minutes."])
        #expect(VoicePhrases.pieces("Close! Getting dialed in. It took three minutes ten. Your guess was forty seconds short.").count == 4)
        #expect(VoicePhrases.pieces("Go!") == ["Go!"])
        #expect(VoicePhrases.pieces("v1.2 update") == ["v1.2 update"])
        #expect(VoicePhrases.pieces("") == [])
    }

    @Test("known ahead: every quest's and task's name, reminders, every guess the steps reach, Go! and the ratings")
    func knownAhead() {
        let world = QuestWorld(routines: [Box.morning], calendar: Box.cal, bootID: "b")
        let known = VoicePhrases.knownAhead(world: world)
        for piece in ["Morning Quest.", "Time for Morning Quest.", "Tooth Time.", "Get Dressed.", "Pack Bag.", "Go!", "Close!", "Getting dialed in.",
                      "Your guess: fifteen seconds.", "Your guess: two minutes thirty.", "Your guess: three hours."] {
            #expect(known.contains(piece), "\(piece)")
        }
        #expect(Set(known).count == known.count, "each once")
        // Every offer and guess the machine can say is made of pieces known ahead.
        var seconds = 15
        while true {
            for piece in VoicePhrases.pieces(VoicePhrases.offer(taskName: "Tooth Time", estimateSeconds: seconds)) {
                #expect(known.contains(piece), "\(piece)")
            }
            let next = EstimateStepper.up(seconds)
            if next == seconds { break }
            seconds = next
        }
        var renamed = Box.morning
        renamed.tasks[0].displayName = "Tidy Desk"
        #expect(VoicePhrases.knownAhead(world: QuestWorld(routines: [renamed], calendar: Box.cal, bootID: "b")).contains("Tidy Desk."))
    }
}
