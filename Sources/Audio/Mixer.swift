/// Sums the playing voices into one period of output: per-voice gain, master volume, mute,
/// saturating 16-bit results. Pure state; the engine's audio thread owns one.
public struct Mixer: Sendable {
    struct Voice: Sendable {
        let clip: SoundClip
        let gain: Int32  // Q16: 65536 = unity
        var frame = 0
        let token: Int
        var started = false
        /// Frames of silence before it: a sentence's pause after the piece before (#48).
        var lead = 0
    }

    public let outputChannels: Int
    private var voices: [Voice] = []
    /// #35: the box's voice: one utterance at a time, in pieces played one after another. It
    /// waits while a sound plays (a reveal's sound, then its words) and, once started, plays
    /// on beside any sound. A piece that comes after the one before it ended starts at once.
    private var speech: [Voice] = []
    /// The pieces queued are being said: the next goes on after the one before, sound or not.
    private var saying = false
    /// #48: the pause between two pieces (sentences) of one utterance. eSpeak NG ends a clip
    /// a few milliseconds after its last word, so pieces played back to back ran sentences
    /// together ("Close!Getting dialed in.It took…"); its own pause between sentences is
    /// about 390 ms at the box's rate.
    public let sentencePauseFrames: Int
    public static let sentencePauseMs = 350
    /// Frames since the voice last ended a piece (a late piece's pause counts them).
    private var quietFrames = Int.max / 2
    /// Reused every period so the audio thread does not allocate while playing.
    private var accumulator: [Int32] = []
    /// A period of samples read from a clip's file, reused the same way.
    private var scratch: [Int16] = []
    /// Q16 master gain from volume (0…100 %) and mute.
    private var master: Int32 = 1 << 16
    public private(set) var volumePercent = 100
    public private(set) var muted = false

    /// Any channel count the device asks for (a `hw:` device may insist on 4, 6 or 8): a mono
    /// clip plays on every channel, a stereo clip on the first two and silence on the rest
    /// (SPEC §6: a sound device never stops the game).
    public init(outputChannels: Int, sentencePauseFrames: Int = Mixer.sentencePauseMs * SoundClip.sampleRate / 1000) {
        self.outputChannels = max(1, outputChannels)
        self.sentencePauseFrames = max(0, sentencePauseFrames)
    }

    /// Sounds playing, and the voice speaking or waiting to.
    public var activeVoices: Int { voices.count + speech.count }

    /// Starts a clip. `gain` is linear, 0…1. `token` comes back from `render` when the
    /// voice's first frame goes out (how the engine measures latency).
    public mutating func play(_ clip: SoundClip, gain: Double = 1, token: Int = 0) {
        guard clip.frameCount > 0 else { return }
        voices.append(Voice(clip: clip, gain: Int32((min(max(gain, 0), 1) * 65_536).rounded()), token: token))
    }

    public mutating func setVolume(percent: Int) {
        volumePercent = min(max(percent, 0), 100)
        updateMaster()
    }

    public mutating func setMuted(_ muted: Bool) {
        self.muted = muted
        updateMaster()
    }

    /// #35: says `clip` instead of whatever the voice was saying (or, `continuing`, after the
    /// pieces already queued), once no sound plays. Returns the tokens of pieces dropped before
    /// they started (they never will).
    @discardableResult
    public mutating func speak(_ clip: SoundClip, gain: Double = 1, token: Int = 0, continuing: Bool = false) -> [Int] {
        let unsaid = continuing ? [] : cutSpeech()
        guard clip.frameCount > 0 else { return unsaid }
        var voice = Voice(clip: clip, gain: Int32((min(max(gain, 0), 1) * 65_536).rounded()), token: token)
        // A piece after another of the same utterance: the sentence's pause, less the quiet
        // since the one before ended when it came late.
        if continuing { voice.lead = speech.isEmpty ? max(0, sentencePauseFrames - quietFrames) : sentencePauseFrames }
        speech.append(voice)
        return unsaid
    }

    /// #35: the voice stops mid-word. Returns the tokens of pieces that had not started.
    @discardableResult
    public mutating func cutSpeech() -> [Int] {
        defer {
            speech.removeAll()
            saying = false
        }
        return speech.filter { !$0.started }.map(\.token)
    }

    public mutating func stopAll() {
        voices.removeAll()
        speech.removeAll()
        saying = false
    }

    /// Volume as perceived: a percentage maps onto −50 dB…0 dB, 0 % is silence.
    private mutating func updateMaster() {
        if muted || volumePercent == 0 {
            master = 0
        } else {
            let db = -50 * (1 - Double(volumePercent) / 100)
            master = Int32((pow(10, db / 20) * 65_536).rounded())
        }
    }

    /// Fills `out` (frames × outputChannels samples) and advances every voice. Returns the
    /// tokens of voices that started in this period. Silence when nothing plays.
    @discardableResult
    public mutating func render(into out: UnsafeMutableBufferPointer<Int16>) -> [Int] {
        let frames = out.count / outputChannels
        var started: [Int] = []
        if speech.isEmpty { quietFrames = min(quietFrames + frames, Int.max / 2) }
        // The voice starts in the first period with no sound playing.
        let speaking = !speech.isEmpty && (saying || voices.isEmpty)
        guard !voices.isEmpty || speaking else {
            out.update(repeating: 0)
            return started
        }
        if accumulator.count != frames * outputChannels {
            accumulator = [Int32](repeating: 0, count: frames * outputChannels)
        } else {
            for i in accumulator.indices { accumulator[i] = 0 }
        }
        for v in voices.indices {
            if !voices[v].started {
                voices[v].started = true
                started.append(voices[v].token)
            }
            Self.mix(&voices[v], frames: frames, offset: 0, master: master, outputs: outputChannels, into: &accumulator, scratch: &scratch)
        }
        voices.removeAll { $0.frame >= $0.clip.frameCount }
        // Piece after piece, back to back within the period, even past a sound that started
        // meanwhile.
        var filled = 0
        while speaking, filled < frames, var voice = speech.first {
            if voice.lead > 0 {
                // The pause before this sentence: silence from the voice, sounds play on.
                let n = min(voice.lead, frames - filled)
                speech[0].lead -= n
                filled += n
                saying = true
                continue
            }
            if !voice.started {
                voice.started = true
                started.append(voice.token)
            }
            saying = true
            filled += Self.mix(&voice, frames: frames - filled, offset: filled, master: master, outputs: outputChannels, into: &accumulator, scratch: &scratch)
            guard voice.frame >= voice.clip.frameCount else {
                speech[0] = voice
                break
            }
            speech.removeFirst()
            saying = !speech.isEmpty
            if speech.isEmpty { quietFrames = frames - filled }
        }
        for i in 0..<accumulator.count {
            out[i] = Int16(clamping: accumulator[i])
        }
        return started
    }

    /// Adds up to `frames` frames of `voice` to `acc` from frame `offset` and moves it on;
    /// returns the frames it had.
    @discardableResult
    private static func mix(
        _ voice: inout Voice, frames: Int, offset: Int, master: Int32, outputs: Int, into acc: inout [Int32], scratch: inout [Int16]
    ) -> Int {
        let gain = (Int64(voice.gain) * Int64(master)) >> 16
        let n = min(frames, voice.clip.frameCount - voice.frame)
        let clipChannels = voice.clip.channels, range = voice.frame * clipChannels..<(voice.frame + n) * clipChannels
        switch voice.clip.storage {
        case .memory(let samples):
            samples.withUnsafeBufferPointer { all in
                acc.withUnsafeMutableBufferPointer { acc in
                    add(UnsafeBufferPointer(rebasing: all[range]), frames: n, channels: clipChannels, gain: gain,
                        to: UnsafeMutableBufferPointer(rebasing: acc[(offset * outputs)...]), outputs: outputs)
                }
            }
        case .file(let file):
            if scratch.count < range.count { scratch = [Int16](repeating: 0, count: range.count) }
            let read = scratch.withUnsafeMutableBufferPointer { buffer in
                let part = UnsafeMutableBufferPointer(rebasing: buffer[0..<range.count])
                let read = file.read(from: range.lowerBound, into: part)
                for i in read..<range.count { part[i] = 0 }
                return read
            }
            scratch.withUnsafeBufferPointer { buffer in
                acc.withUnsafeMutableBufferPointer { acc in
                    add(UnsafeBufferPointer(rebasing: buffer[0..<range.count]), frames: n, channels: clipChannels, gain: gain,
                        to: UnsafeMutableBufferPointer(rebasing: acc[(offset * outputs)...]), outputs: outputs)
                }
            }
            // Cut short since it was opened: what is gone is silence, and the voice ends.
            if read < range.count {
                voice.frame = voice.clip.frameCount
                return n
            }
        }
        voice.frame = min(voice.frame + n, voice.clip.frameCount)
        return n
    }

    /// Adds `frames` frames of `source` (the clip's own channel layout) to `acc`, scaled by the
    /// Q16 `gain`. The channel mapping is chosen once per voice, not per sample: the audio
    /// thread must stay cheap even in a debug build under emulation (the HIL rig).
    private static func add(
        _ source: UnsafeBufferPointer<Int16>, frames: Int, channels: Int, gain: Int64, to acc: UnsafeMutableBufferPointer<Int32>, outputs: Int
    ) {
        func add(_ sample: Int16, _ index: Int) {
            acc[index] &+= Int32(truncatingIfNeeded: (Int64(sample) * gain) >> 16)
        }
        if channels == 1 {
            // Mono: every output channel.
            for f in 0..<frames {
                let sample = source[f]
                for c in 0..<outputs { add(sample, f * outputs + c) }
            }
        } else if outputs == 1 {
            // Stereo on a mono device: the average.
            for f in 0..<frames {
                add(Int16(truncatingIfNeeded: (Int32(source[2 * f]) + Int32(source[2 * f + 1])) / 2), f)
            }
        } else {
            // Stereo: the first two channels; any others stay silent.
            for f in 0..<frames {
                add(source[2 * f], f * outputs)
                add(source[2 * f + 1], f * outputs + 1)
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
