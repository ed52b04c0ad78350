/// #35: when the box speaks. The machine follows its own screens: each new screen's words
/// (`Screen.spoken`) are said once; a run of estimate steps says the guess once, 600 ms after
/// the last step (each step cuts what was being said); lock-in says "Go!" (within a second,
/// or not at all) and then nothing until the stop (GAME-2); the idle screen speaks only for a
/// reminder (REM-1) or a moved selection. A `.speak` replaces whatever the voice was saying
/// and follows a sound the same step started (the reveal's sound, then its words).
public struct VoiceSchedule: Codable, Equatable, Sendable {
    /// Whether the box speaks: the shell's decision from the `voice` setting, the board (a box
    /// with no screen speaks by default) and a speech engine that started.
    public var speaks: Bool
    /// What the voice said last (or waits to say): a screen drawn again says nothing.
    var topic: Topic?
    /// Words waiting for the player to stop stepping (`QuestTimer.voiceSettle`).
    var settling: String?

    /// How long after the last step the guess is said.
    public static let settleMs: Int64 = 600
    /// How late lock-in's "Go!" may still start: later, it would be words while the task
    /// runs (GAME-2). A voice still starting at boot held one 2.3 s in the HIL rig.
    public static let goMomentMs: Int64 = 1000

    public init(speaks: Bool = false) {
        self.speaks = speaks
    }

    enum Topic: Codable, Equatable, Sendable {
        /// The idle screen with this quest selected.
        case idle(selected: String?)
        /// A task's guess screen at this guess.
        case estimate(quest: String, task: Int, seconds: Int)
        /// A task's running screen: its "Go!", once per task whatever note it shows later.
        case running(quest: String, task: Int)
        /// Any other screen, by its words.
        case screen(kind: String, words: String)
    }
}

extension Reducer {
    /// Called after every step: what the step showed, said when the schedule says so.
    mutating func followVoice() {
        guard state.voice.speaks, !state.world.settings.soundMuted else {
            // Turned off or muted: nothing waits to be said.
            if state.voice.settling != nil { dropSettling() }
            return
        }
        let shown = effects.reversed().lazy.compactMap { effect -> Screen? in
            if case .display(let screen) = effect { return screen } else { return nil }
        }.first
        guard let shown else { return }
        let reminded = effects.lazy.compactMap { effect -> String? in
            if case .persist(.reminderSounded(_, let name, _)) = effect { return name } else { return nil }
        }.first
        let topic = Self.topic(of: shown)
        let previous = state.voice.topic
        guard topic != previous || reminded != nil else { return }
        state.voice.topic = topic
        switch (topic, previous) {
        case (.estimate(let quest, let task, let seconds), .estimate(let quest0, let task0, _)?) where quest == quest0 && task == task0:
            // A step: stop talking, and say the guess once the steps stop.
            emit(.cutSpeech)
            state.voice.settling = VoicePhrases.guess(seconds)
            emit(.scheduleTimer(.voiceSettle, atNanos: now + ms(VoiceSchedule.settleMs)))
        case (.idle(let selected?), .idle(let before)?) where reminded == nil && before != nil:
            // The selection moved: its quest's name once the presses stop.
            emit(.cutSpeech)
            state.voice.settling = VoicePhrases.sentence(selected)
            emit(.scheduleTimer(.voiceSettle, atNanos: now + ms(VoiceSchedule.settleMs)))
        case (.idle, _):
            if let reminded { say(VoicePhrases.reminder(questName: reminded)) } else if state.voice.settling != nil { dropSettling() }
        case (.running, _):
            if let words = shown.spoken { say(words, until: now + ms(VoiceSchedule.goMomentMs)) }
        default:
            if let words = shown.spoken { say(words) }
        }
    }

    /// The settle timer: the words that waited, if the screen they were for still shows.
    mutating func voiceSettled() {
        guard let words = state.voice.settling else { return }
        state.voice.settling = nil
        guard state.voice.speaks, !state.world.settings.soundMuted else { return }
        emit(.speak(words))
    }

    private mutating func say(_ words: String, until: MonotonicNanos? = nil) {
        if state.voice.settling != nil { dropSettling() }
        emit(.speak(words, until: until))
    }

    private mutating func dropSettling() {
        state.voice.settling = nil
        emit(.cancelTimer(.voiceSettle))
    }

    static func topic(of screen: Screen) -> VoiceSchedule.Topic {
        switch screen {
        case .idle(let s):
            let selected = s.selectedIndex.flatMap { s.quests.indices.contains($0) ? s.quests[$0].name : nil } ?? s.quests.first?.name
            return .idle(selected: selected)
        case .estimating(let s):
            return .estimate(quest: s.questName, task: s.taskNumber, seconds: s.estimateSeconds)
        case .active(let s):
            return .running(quest: s.questName, task: s.taskNumber)
        default:
            return .screen(kind: screen.kind, words: screen.spoken ?? "")
        }
    }
}
