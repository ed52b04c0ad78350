import Audio
import AudioTestSupport
import Testing

/// #35: the mixer's speech lane: the voice waits for a sound that plays (a reveal's sound,
/// then its words), is replaced by newer words, stops at a cut, and sounds beside it once started.
@Suite("The mixer's voice")
struct MixerSpeechTests {
    @Test("with nothing playing the words start at once, sample for sample, at their gain")
    func atOnce() {
        var m = Mixer(outputChannels: 1)
        let words = rampClip(frames: 100)
        m.speak(words, token: 3)
        let (out, started) = render(&m, frames: 100)
        #expect(started == [3])
        #expect(out == words.samples)
        #expect(m.activeVoices == 0)
        m.speak(SoundClip(samples: [10_000, -10_000], channels: 1), gain: 0.5)
        #expect(render(&m, frames: 2).0 == [5_000, -5_000])
    }

    @Test("a sound playing first: the words wait for the period after its end, then play whole")
    func afterTheSound() {
        var m = Mixer(outputChannels: 1)
        let sound = SoundClip(samples: [Int16](repeating: 1, count: 150), channels: 1)
        let words = rampClip(frames: 64)
        m.play(sound, token: 1)
        m.speak(words, token: 2)
        let (first, s1) = render(&m, frames: 100)
        #expect(s1 == [1], "the sound starts, the words wait")
        #expect(first.allSatisfy { $0 == 1 })
        let (second, s2) = render(&m, frames: 100)
        #expect(s2.isEmpty, "the sound still plays in this period")
        #expect(second[..<50].allSatisfy { $0 == 1 } && second[50...].allSatisfy { $0 == 0 })
        let (third, s3) = render(&m, frames: 100)
        #expect(s3 == [2])
        #expect(Array(third[..<64]) == words.samples)
    }

    @Test("once speaking, a new sound plays beside the words; it does not hold them back")
    func besideASound() {
        var m = Mixer(outputChannels: 1)
        m.speak(SoundClip(samples: [Int16](repeating: 100, count: 20), channels: 1), token: 1)
        _ = render(&m, frames: 10)
        m.play(SoundClip(samples: [Int16](repeating: 7, count: 10), channels: 1), token: 2)
        #expect(render(&m, frames: 10).0 == [Int16](repeating: 107, count: 10))
    }

    @Test("new words replace the old mid-word; a cut stops them; an unstarted utterance's token comes back")
    func replaceAndCut() {
        var m = Mixer(outputChannels: 1)
        m.speak(SoundClip(samples: [Int16](repeating: 5, count: 40), channels: 1), token: 1)
        _ = render(&m, frames: 10)
        #expect(m.speak(SoundClip(samples: [Int16](repeating: 9, count: 40), channels: 1), token: 2) == [], "the first had started")
        #expect(render(&m, frames: 10).0 == [Int16](repeating: 9, count: 10))
        m.cutSpeech()
        #expect(render(&m, frames: 10).0 == [Int16](repeating: 0, count: 10))
        #expect(m.activeVoices == 0)
        m.play(SoundClip(samples: [Int16](repeating: 1, count: 40), channels: 1))
        m.speak(SoundClip(samples: [Int16](repeating: 2, count: 40), channels: 1), token: 5)
        #expect(m.cutSpeech() == [5], "cut before its first word: no hand-off will come")
    }

    @Test("mute and volume apply to the voice as to the sounds")
    func muted() {
        var m = Mixer(outputChannels: 1)
        m.setMuted(true)
        m.speak(SoundClip(samples: [1_000, 1_000], channels: 1))
        #expect(render(&m, frames: 2).0 == [0, 0])
    }

    @Test("pieces follow one another back to back, even past a sound that started meanwhile; a piece after the last ended waits for sounds again")
    func pieces() {
        var m = Mixer(outputChannels: 1, sentencePauseFrames: 0)
        m.speak(SoundClip(samples: [Int16](repeating: 10, count: 6), channels: 1), token: 1)
        m.speak(SoundClip(samples: [Int16](repeating: 20, count: 14), channels: 1), token: 2, continuing: true)
        #expect(render(&m, frames: 10) == ([Int16](repeating: 10, count: 6) + [Int16](repeating: 20, count: 4), [1, 2]), "back to back")
        m.play(SoundClip(samples: [Int16](repeating: 1, count: 20), channels: 1), token: 3)
        #expect(render(&m, frames: 10) == ([Int16](repeating: 21, count: 10), [3]), "the second piece goes on beside the new sound")
        m.speak(SoundClip(samples: [Int16](repeating: 40, count: 10), channels: 1), token: 4, continuing: true)
        #expect(render(&m, frames: 10).0 == [Int16](repeating: 1, count: 10), "the voice had ended: the new piece waits for the sound")
        #expect(render(&m, frames: 10) == ([Int16](repeating: 40, count: 10), [4]))
    }

    @Test("#48: a sentence's pause between the pieces of one utterance, silence for the voice while sounds play on; none before the first")
    func sentencePause() {
        var m = Mixer(outputChannels: 1, sentencePauseFrames: 5)
        m.speak(SoundClip(samples: [Int16](repeating: 10, count: 4), channels: 1), token: 1)
        m.speak(SoundClip(samples: [Int16](repeating: 20, count: 4), channels: 1), token: 2, continuing: true)
        let (out, started) = render(&m, frames: 16)
        #expect(out == [Int16](repeating: 10, count: 4) + [Int16](repeating: 0, count: 5) + [Int16](repeating: 20, count: 4) + [0, 0, 0])
        #expect(started == [1, 2], "the second piece's hand-off is its first sample, after the pause")
        // A pause across periods, a sound starting in it: the sound plays, the voice keeps its pause.
        m.speak(SoundClip(samples: [Int16](repeating: 30, count: 3), channels: 1), token: 3)
        m.speak(SoundClip(samples: [Int16](repeating: 40, count: 3), channels: 1), token: 4, continuing: true)
        #expect(render(&m, frames: 5).0 == [30, 30, 30, 0, 0])
        m.play(SoundClip(samples: [Int16](repeating: 1, count: 6), channels: 1), token: 5)
        #expect(render(&m, frames: 6).0 == [1, 1, 1, 41, 41, 41])
        // The default: 350 ms at 48 kHz.
        #expect(Mixer(outputChannels: 2).sentencePauseFrames == 16_800)
    }

    @Test("#48: a piece that comes late (rendered after the one before ended) waits only for what is left of the pause")
    func latePiece() {
        var m = Mixer(outputChannels: 1, sentencePauseFrames: 6)
        m.speak(SoundClip(samples: [Int16](repeating: 10, count: 2), channels: 1), token: 1)
        _ = render(&m, frames: 4)   // the piece, then 2 quiet frames
        m.speak(SoundClip(samples: [Int16](repeating: 20, count: 2), channels: 1), token: 2, continuing: true)
        #expect(render(&m, frames: 8).0 == [0, 0, 0, 0, 20, 20, 0, 0], "6 − 2 frames of pause left")
        _ = render(&m, frames: 10)
        m.speak(SoundClip(samples: [Int16](repeating: 30, count: 2), channels: 1), token: 3, continuing: true)
        #expect(render(&m, frames: 2).0 == [30, 30], "the pause is long over")
    }
}
