/// #35: durations as people say them, for the box's voice: "two minutes thirty", "one minute
/// forty-five", "twenty minutes", "an hour and a quarter"; never "2:30", which a speech
/// engine reads as a time of day. The screens keep their clocks (`DurationText`).
public enum SpokenDuration: Sendable {
    /// Whole seconds (an estimate, a difference). Above an hour, to the nearest minute.
    public static func words(seconds: Int) -> String {
        let s = max(0, seconds)
        switch s {
        case ..<60:
            return SpokenNumber.counted(s, "second")
        case ..<3600:
            let minutes = s / 60, rest = s % 60
            let said = SpokenNumber.counted(minutes, "minute")
            switch rest {
            case 0: return said
            // "three minutes and five seconds": "three minutes five" is heard as 3:05 only by some.
            case 1..<10: return said + " and " + SpokenNumber.counted(rest, "second")
            default: return said + " " + SpokenNumber.words(rest)
            }
        default:
            var hours = s / 3600
            var minutes = (s % 3600 + 30) / 60
            if minutes == 60 { hours += 1; minutes = 0 }
            let oneHour = hours == 1
            switch minutes {
            case 0: return oneHour ? "an hour" : SpokenNumber.counted(hours, "hour")
            case 15: return oneHour ? "an hour and a quarter" : "\(SpokenNumber.words(hours)) and a quarter hours"
            case 30: return oneHour ? "an hour and a half" : "\(SpokenNumber.words(hours)) and a half hours"
            case 45: return oneHour ? "an hour and three quarters" : "\(SpokenNumber.words(hours)) and three quarter hours"
            default: return (oneHour ? "an hour" : SpokenNumber.counted(hours, "hour")) + " and " + SpokenNumber.counted(minutes, "minute")
            }
        }
    }

    /// A measured duration (s), to the whole second: what the reveal says it took.
    public static func words(measured seconds: Double) -> String {
        guard seconds.isFinite else { return words(seconds: 0) }
        return words(seconds: Int(min(max(seconds, 0), 86_400 * 7).rounded()))
    }
}

/// Whole numbers in English words, for what the voice says (0 … 9,999; larger ones as digits,
/// which the speech engine reads as a number).
public enum SpokenNumber: Sendable {
    static let ones = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                       "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
    static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

    public static func words(_ n: Int) -> String {
        switch n {
        case ..<0: return "minus " + words(n == Int.min ? Int.max : -n)
        case ..<20: return ones[n]
        case ..<100: return tens[n / 10] + (n % 10 == 0 ? "" : "-" + ones[n % 10])
        case ..<1000: return ones[n / 100] + " hundred" + (n % 100 == 0 ? "" : " and " + words(n % 100))
        case ..<10_000: return ones[n / 1000] + " thousand" + (n % 1000 == 0 ? "" : (n % 1000 < 100 ? " and " : " ") + words(n % 1000))
        default: return String(n)
        }
    }

    /// "one minute", "forty seconds".
    public static func counted(_ n: Int, _ unit: String) -> String {
        "\(words(n)) \(unit)\(n == 1 ? "" : "s")"
    }
}

/// #35: what the voice says when a screen appears, from the same words the screens use
/// (`ScreenPhrases`), with durations in words. GAME-2: the running task says "Go!" at lock-in
/// and nothing after; nothing here grows with time.
extension Screen {
    public var spoken: String? {
        typealias P = ScreenPhrases
        let sentence = VoicePhrases.sentence
        switch self {
        case .idle(let s):
            guard let selected = s.selectedIndex.flatMap({ s.quests.indices.contains($0) ? s.quests[$0] : nil }) ?? s.quests.first else {
                return sentence(P.noQuests)
            }
            return selected.reminded == true ? VoicePhrases.reminder(questName: selected.name) : sentence(SpokenText.name(selected.name))
        case .estimating(let s):
            return VoicePhrases.offer(taskName: s.taskName, estimateSeconds: s.estimateSeconds)
        case .active:
            return "Go!"
        case .reveal(let s):
            return VoicePhrases.reveal(s)
        case .summary(let s):
            return VoicePhrases.summary(s)
        case .reflection(let r):
            return VoicePhrases.week(r)
        case .claim(let c):
            return c.holding ? "Keep holding for three seconds." : VoicePhrases.claim(reset: c.reset, match: c.match)
        case .pairing(let p):
            return VoicePhrases.pairing(code: p.code)
        case .intro(let s):
            return VoicePhrases.intro(s)
        }
    }
}

/// The voice's sentences (#35), each built from the screens' own phrases where they have one.
public enum VoicePhrases: Sendable {
    /// The task offered and the guess: "Tidy Desk. Your guess: two minutes thirty."
    public static func offer(taskName: String, estimateSeconds: Int) -> String {
        sentence(SpokenText.name(taskName)) + " " + guess(estimateSeconds)
    }

    /// Said once after a run of steps settles: "Your guess: one minute forty-five."
    public static func guess(_ seconds: Int) -> String {
        "Your guess: \(SpokenDuration.words(seconds: seconds))."
    }

    /// REM-1's reminder: "Time for Morning Quest."
    public static func reminder(questName: String) -> String { "Time for \(SpokenText.name(questName))." }

    /// "Close! It took three minutes ten. Your guess was forty seconds short."
    public static func reveal(_ s: RevealScreen) -> String {
        let took = "It took \(SpokenDuration.words(measured: s.actualSeconds))."
        if s.isCalibration { return "Noted. \(took) Learning your timing." }
        let rounded = s.differenceSeconds.isFinite ? s.differenceSeconds.rounded() : 0
        let off = rounded == 0 ? "Your guess was exactly right."
            : "Your guess was \(SpokenDuration.words(measured: abs(rounded))) \(rounded > 0 ? "long" : "short")."
        let kind = ScreenPhrases.kindLine(s.rating).map { " " + sentence($0) } ?? ""
        let pattern = s.pattern.map { " " + self.pattern(taskName: s.taskName, bias: $0) } ?? ""
        return "\(ScreenPhrases.ratingWords(s.rating))\(kind) \(took) \(off)\(pattern)"
    }

    /// GAME-6's pattern line said: "Pack Bag usually takes about one minute longer than you
    /// think." (the stats page's words, the amount as people say it).
    public static func pattern(taskName written: String, bias: BiasInsight) -> String {
        let taskName = SpokenText.name(written)
        let amount = SpokenDuration.words(measured: DurationText.approximatelyRounded(abs(bias.meanDifferenceSeconds)))
        switch bias.direction {
        case .underestimates: return sentence("\(taskName) usually takes about \(amount) longer than you think")
        case .overestimates: return sentence("\(taskName) usually takes about \(amount) less than you think")
        case .balanced: return sentence(InsightEngine.biasText(name: taskName, bias: bias))
        }
    }

    /// "Morning Quest done! Plus forty XP. Level three! Seven-day streak!"
    public static func summary(_ s: SummaryScreen) -> String {
        var parts = ["\(SpokenText.name(s.questName)) done!", "Plus \(SpokenNumber.words(s.sessionXP)) XP."]
        parts.append(s.leveledUp ? "Level \(SpokenNumber.words(s.level))!" : "You are on level \(SpokenNumber.words(s.level)).")
        if let days = s.streakMilestone { parts.append("\(SpokenNumber.words(days))-day streak!".capitalizedFirst) }
        if s.personalBests.count == 1, let best = s.personalBests.first { parts.append("New best: \(SpokenText.name(best)).") }
        if s.personalBests.count > 1 { parts.append("\(SpokenNumber.words(s.personalBests.count)) new bests!".capitalizedFirst) }
        return parts.joined(separator: " ")
    }

    /// The weekly card in two sentences: what was done, then how the guesses went.
    public static func week(_ r: WeeklyReflection) -> String {
        let quests = SpokenNumber.counted(r.questsCompleted, "quest")
        var first = "Your week: \(quests) on \(SpokenNumber.words(r.daysPlayedThisWeek)) of \(SpokenNumber.words(r.totalDaysInWeek)) days."
        if let streak = r.streak, streak > 0 { first += " Your streak: \(SpokenNumber.counted(streak, "day"))." }
        guard r.totalEstimations > 0, r.averageAccuracy.isFinite else { return first + " The box is still learning your timing." }
        return first + " Your guesses were \(SpokenNumber.words(Int(r.averageAccuracy.rounded()))) percent on target."
    }

    /// PAR-2's claim, as the screen asks it: whose (#47: the asking phone's code, a digit at
    /// a time), who may allow it and how.
    public static func claim(reset: Bool, match: String) -> String {
        let digits = match.compactMap { $0.wholeNumberValue.map(SpokenNumber.words) }.joined(separator: " ")
        return "Someone asks to set \(reset ? "a new" : "the") parent PIN. If their phone shows \(digits), hold STOP and DOWN for three seconds to allow it. If not, or nobody asked, press UP."
    }

    /// PRIV-1: a box with no screen says the phone's code (in two halves, as it shows).
    public static func pairing(code: String) -> String {
        let digits = code.compactMap { $0.wholeNumberValue.map(SpokenNumber.words) }
        let halves = [digits.prefix(3), digits.dropFirst(3)].map { $0.joined(separator: " ") }.joined(separator: ", ")
        return "A phone asks to show your pages. Type this code on it: \(halves). If nobody asked, press UP."
    }
}

extension VoicePhrases {
    /// A phrase ending as a sentence ends ("Tidy Desk" → "Tidy Desk."), never doubled.
    static func sentence(_ text: String) -> String {
        guard let last = text.last else { return text }
        return ".!?…".contains(last) ? text : text + "."
    }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

extension VoicePhrases {
    /// The pieces a phrase is said in, each a sentence ("Tooth Time. Your guess: two
    /// minutes." → "Tooth Time.", "Your guess: two minutes."): the unit the voice's clips are
    /// kept in, so a phrase known ahead is put together from pieces rendered before.
    public static func pieces(_ words: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        var previous: Character?
        for ch in words {
            if ch == " ", let p = previous, ".!?".contains(p) {
                pieces.append(current)
                current = ""
            } else if !(current.isEmpty && ch == " ") {
                current.append(ch)
            }
            previous = ch
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }

    /// Every phrase the box can know before it says it (#35): each quest's and task's name, its
    /// reminder, every guess the steps can reach (and each task's remembered one), "Go!", the
    /// reveal's fixed words. Said later, their pieces are read, not rendered.
    public static func knownAhead(world: QuestWorld, rules: GameRules = .standard) -> [String] {
        var phrases: [String] = ["Go!", "Your guess was exactly right.", "Noted.", "Learning your timing."]
        for rating in AccuracyRating.allCases {
            phrases.append(ScreenPhrases.ratingWords(rating))
            if let kind = ScreenPhrases.kindLine(rating) { phrases.append(sentence(kind)) }
        }
        for (position, routine) in world.routines.enumerated() where routine.isActive && !routine.tasks.isEmpty {
            let name = routine.playerFacingName(position: position + 1)
            phrases += [sentence(SpokenText.name(name)), reminder(questName: name)]
            for (index, task) in routine.tasks.enumerated() { phrases.append(sentence(SpokenText.name(task.playerFacingName(position: index + 1)))) }
        }
        var guesses: [Int] = []
        var seconds = rules.minimumEstimateSeconds
        while guesses.last != seconds {
            guesses.append(seconds)
            seconds = EstimateStepper.up(seconds, rules: rules)
        }
        let remembered = world.taskMemory.values.compactMap(\.lastEstimateSeconds).map { EstimateStepper.clamp($0, rules: rules) }
        for s in [rules.defaultEstimateSeconds] + remembered where !guesses.contains(s) { guesses.append(s) }
        phrases += guesses.map(guess)
        var seen = Set<String>()
        return phrases.flatMap(pieces).filter { seen.insert($0).inserted }
    }
}

/// #48: what the voice reads, as a person would read it aloud: an emoji or a pictograph is
/// not read at all (eSpeak NG said "crescent moon" for 🌙), and the symbols a name may hold
/// are said as words or left out ("p.12 / maths #3" → "p 12 maths number 3", not "p dot one
/// two slash maths hash three"). Sentence punctuation stays: it is where the voice pauses.
public enum SpokenText: Sendable {
    public static func said(_ text: String) -> String {
        var out = ""
        let characters = Array(text)
        for (i, ch) in characters.enumerated() {
            if isPictograph(ch) {
                out.append(" ")
                continue
            }
            let before = i > 0 ? characters[i - 1] : nil, after = i + 1 < characters.count ? characters[i + 1] : nil
            switch ch {
            case "&": out += " and "
            case "+": out += " plus "
            case "@": out += " at "
            // "#3": a number; a lone # is not read.
            case "#": out += after?.isNumber == true ? " number " : " "
            case "/", "\\", "|", "_", "*", "~", "^", "<", ">", "=", "[", "]", "{", "}", "`", "•", "·":
                out.append(" ")
            // "p.12": a letter's dot before a number is not a decimal point ("p dot one two").
            case "." where before?.isLetter == true && after?.isNumber == true:
                out.append(" ")
            default:
                out.append(ch)
            }
        }
        // One space where several were left, none at the ends or before a sentence's stop.
        var collapsed = ""
        for ch in out {
            if ch == " ", collapsed.last == " " || collapsed.isEmpty { continue }
            if ".,!?;:".contains(ch), collapsed.last == " " { collapsed.removeLast() }
            collapsed.append(ch)
        }
        while collapsed.last == " " { collapsed.removeLast() }
        return collapsed
    }

    /// #47: a name as the voice says it, bounded: at most `nameWords` words and
    /// `nameCharacters` characters, cut at a word, and a run of digits at most `nameDigits`
    /// long (an 80-digit name took 24 s to say). A name a stranger typed never holds the
    /// voice for long; the screens show it whole.
    public static let nameWords = 6, nameCharacters = 40, nameDigits = 6

    public static func name(_ text: String) -> String {
        var words: [String] = []
        var length = 0
        for raw in said(text).split(separator: " ") {
            var word = "", digits = 0
            for ch in raw {
                digits = ch.isNumber ? digits + 1 : 0
                if digits <= nameDigits { word.append(ch) }
            }
            guard words.count < nameWords, length + word.count + (words.isEmpty ? 0 : 1) <= nameCharacters else { break }
            length += word.count + (words.isEmpty ? 0 : 1)
            words.append(word)
        }
        // A name longer than one word's room is cut inside it rather than said as nothing.
        if words.isEmpty, let first = said(text).split(separator: " ").first { return String(first.prefix(nameCharacters)) }
        return words.joined(separator: " ")
    }

    /// An emoji or another picture symbol (a keycap, a flag, a ZWJ family, ™, ©, arrows).
    static func isPictograph(_ ch: Character) -> Bool {
        ch.unicodeScalars.contains { s in
            let p = s.properties
            return p.isEmojiPresentation || s.value == 0xFE0F || s.value == 0x20E3 || p.generalCategory == .otherSymbol
                || (p.isEmoji && s.value >= 0x2000)
        }
    }
}
