import Audio
import AudioTestSupport
import BoxRuntime
import Foundation
import QuestCore
import Speech
import Synchronization
import SystemClock
import Testing

/// A renderer that says each phrase as a known clip, optionally slowly, and notes what it rendered.
final class ScriptedRenderer: SpeechRenderer, @unchecked Sendable {
    let clip: SoundClip
    let delayMicroseconds: UInt32
    let identity: String
    private let rendered = Mutex<[String]>([])
    var phrases: [String] { rendered.withLock { $0 } }

    init(clip: SoundClip, delayMicroseconds: UInt32 = 0, identity: String = "scripted") {
        self.clip = clip
        self.identity = identity
        self.delayMicroseconds = delayMicroseconds
    }

    func render(_ text: String) throws(SpeechError) -> SoundClip {
        rendered.withLock { $0.append(text) }
        if delayMicroseconds > 0 { usleep(delayMicroseconds) }
        if text == "unsayable" { throw SpeechError("cannot say that") }
        return clip
    }
}

/// #35: the box's voice between the machine and the mixer: rendered on a worker, played
/// after the sound, a superseded or cut phrase never heard, a voice that cannot start is one line.
@Suite("The box's rendered voice", .serialized)
struct RenderedSpeechTests {
    func fileEngine() -> (AudioEngine, String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("voice-\(UUID().uuidString).raw").path
        return (AudioEngine(candidates: ["file:FILE=\(path),FORMAT=raw"], latencyMs: 20, logger: quiet), path)
    }

    @Test("the words come out after the sound, sample for sample, at the voice's loudness beside the sounds")
    func afterTheSound() throws {
        let (engine, path) = fileEngine()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let words = rampClip(frames: 3_000)
        let renderer = ScriptedRenderer(clip: words)
        let voice = RenderedSpeech(engine: engine, choice: VoiceChoice(volumePercent: 50), logger: quiet) { _ throws(SpeechError) in renderer }
        engine.start()
        usleep(30_000)
        let sound = SoundClip(samples: [Int16](repeating: 1_000, count: 2_400), channels: 1)
        engine.play(sound)
        voice.say("Close! It took three minutes ten.")
        voice.settle()
        #expect(voice.phrasesSaid == 1)
        // The sound, then each piece's first sample (the second after its pause).
        #expect(eventually { engine.statistics.handoffs.count == 3 })
        usleep(150_000)
        engine.stop()
        let out = try samples(atPath: path)
        let soundStart = try #require(out.firstIndex { $0 != 0 })
        #expect(out[soundStart..<(soundStart + 2 * 2_400)].allSatisfy { $0 == 1_000 })
        // Stereo frames; the words begin at the first period after the sound's last frame.
        let tail = out[(soundStart + 2 * 2_400)...]
        let wordsStart = try #require(tail.firstIndex { $0 != 0 })
        #expect((wordsStart - soundStart) / 2 - 2_400 < 240, "within a period of the sound's end")
        // Said in two pieces (sentences), with a sentence's pause between them (#48).
        let pause = Mixer.sentencePauseMs * SoundClip.sampleRate / 1000
        try #require(out.count >= wordsStart + 2 * (2 * words.frameCount + pause), "\(out.count) samples written, \(wordsStart) before the words")
        for f in stride(from: 0, to: 2 * words.frameCount + pause, by: 7) {
            let second = f - words.frameCount - pause
            let expected: Int16 = f < words.frameCount ? Int16(truncatingIfNeeded: (Int64(words.samples[f]) * 32_768) >> 16)
                : second < 0 ? 0 : Int16(truncatingIfNeeded: (Int64(words.samples[second]) * 32_768) >> 16)
            #expect(out[wordsStart + 2 * f] == expected, "frame \(f)")
        }
        #expect(renderer.phrases == ["Close!", "It took three minutes ten."])
    }

    @Test("phrases superseded before they are handed over are never heard; a cut stops the last")
    func superseded() {
        let engine = AudioEngine(candidates: ["null"], latencyMs: 20, logger: quiet)
        engine.start()
        defer { engine.stop() }
        let renderer = ScriptedRenderer(clip: rampClip(frames: 480), delayMicroseconds: 100_000)
        let voice = RenderedSpeech(engine: engine, choice: VoiceChoice(), logger: quiet) { _ throws(SpeechError) in renderer }
        voice.say("one")
        usleep(20_000)  // "one" is being rendered
        voice.say("two")
        voice.say("three")
        voice.settle()
        #expect(voice.phrasesSaid == 1, "only the newest is handed over")
        #expect(!renderer.phrases.contains("two"), "superseded while it waited: never rendered")
        #expect(renderer.phrases.last == "three")
        voice.say("four")
        usleep(20_000)
        voice.cut()
        voice.settle()
        #expect(voice.phrasesSaid == 1, "cut while it rendered: not handed over")
    }

    @Test("GAME-2: words for a moment that passed while the voice started (a Go! at boot) are not said late")
    func momentPassed() {
        let engine = AudioEngine(candidates: ["null"], latencyMs: 20, logger: quiet)
        engine.start()
        defer { engine.stop() }
        let logs = LogLines()
        let renderer = ScriptedRenderer(clip: rampClip(frames: 480))
        // The voice process takes 150 ms to start, as eSpeak NG's does at boot (8 s under emulation).
        let voice = RenderedSpeech(engine: engine, choice: VoiceChoice(), logger: logs.logger) { _ throws(SpeechError) in
            usleep(150_000)
            return renderer
        }
        voice.say("Go!", notAfter: LiveSystemClock().monotonicNanos() + 50_000_000)
        voice.settle()
        #expect(voice.phrasesSaid == 0, "a Go! 100 ms past its moment is not handed over")
        #expect(voice.statistics.late == 1)
        #expect(engine.statistics.handoffs.isEmpty)
        let lines = logs.all.filter { $0.contains("their moment had passed") }
        #expect(lines.count == 1 && lines.first?.contains("Go!") == true, "\(logs.all)")
        // Ready now: the same words in their moment are said, and words with no moment always.
        voice.say("Go!", notAfter: LiveSystemClock().monotonicNanos() + 5_000_000_000)
        voice.settle()
        #expect(voice.phrasesSaid == 1 && voice.statistics.late == 1)
        voice.say("Noted.")
        voice.settle()
        #expect(voice.phrasesSaid == 2)
    }

    @Test("a voice that cannot start is one log line, once; nothing is said and nothing stops")
    func noVoice() {
        let engine = AudioEngine(candidates: ["null"], latencyMs: 20, logger: quiet)
        engine.start()
        defer { engine.stop() }
        let logs = LogLines()
        let voice = RenderedSpeech(engine: engine, choice: VoiceChoice(), logger: logs.logger) { _ throws(SpeechError) in
            throw SpeechError("eSpeak NG data /nowhere: no such folder with eSpeak NG's data (phontab)")
        }
        voice.apply(VoiceChoice(), speaking: true)
        voice.say("Go!")
        voice.say("Your guess: two minutes.")
        voice.settle()
        #expect(voice.phrasesSaid == 0)
        let lines = logs.all.filter { $0.contains("no voice") }
        #expect(lines.count == 1, "\(logs.all)")
        #expect(lines.first?.contains("/nowhere") == true)
    }

    @Test("a phrase the renderer refuses is one line; the next is said")
    func refusedPhrase() {
        let engine = AudioEngine(candidates: ["null"], latencyMs: 20, logger: quiet)
        engine.start()
        defer { engine.stop() }
        let logs = LogLines()
        let renderer = ScriptedRenderer(clip: rampClip(frames: 480))
        let voice = RenderedSpeech(engine: engine, choice: VoiceChoice(), logger: logs.logger) { _ throws(SpeechError) in renderer }
        voice.say("unsayable")
        voice.settle()
        voice.say("Go!")
        voice.settle()
        #expect(voice.phrasesFailed == 1 && voice.phrasesSaid == 1)
        #expect(logs.all.filter { $0.contains("could not be said") }.count == 1)
    }

    @Test("a new voice or rate makes a new renderer; loudness alone does not")
    func newVoice() {
        let engine = AudioEngine(candidates: ["null"], latencyMs: 20, logger: quiet)
        let made = Mutex<[VoiceChoice]>([])
        let voice = RenderedSpeech(engine: engine, choice: VoiceChoice(), logger: quiet) { choice throws(SpeechError) in
            made.withLock { $0.append(choice) }
            return ScriptedRenderer(clip: rampClip(frames: 10))
        }
        voice.apply(VoiceChoice(), speaking: false)
        voice.settle()
        #expect(made.withLock { $0.isEmpty }, "a box that does not speak never loads a voice")
        voice.apply(VoiceChoice(), speaking: true)
        voice.settle()
        voice.apply(VoiceChoice(volumePercent: 40), speaking: true)
        voice.settle()
        voice.apply(VoiceChoice(language: "de", volumePercent: 40), speaking: true)
        voice.settle()
        #expect(made.withLock { $0.map { $0.language ?? "locale" } } == ["locale", "de"])
    }

    @Test("with a cache: a phrase is said from the clips kept, piece by piece; prepared pieces are read, not rendered")
    func cached() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("voice-cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let engine = AudioEngine(candidates: ["null"], latencyMs: 20, logger: quiet)
        engine.start()
        defer { engine.stop() }
        let renderer = ScriptedRenderer(clip: rampClip(frames: 480))
        let voice = RenderedSpeech(engine: engine, choice: VoiceChoice(), cache: PhraseCache(directory: directory), logger: quiet) { _ throws(SpeechError) in renderer }
        voice.prepare(["Tooth Time.", "Your guess: two minutes.", "Go!"])
        voice.settle()
        #expect(voice.statistics.piecesPrepared == 3)
        voice.say("Tooth Time. Your guess: two minutes.")
        voice.settle()
        #expect(voice.statistics.piecesRead == 2 && voice.statistics.piecesRendered == 0)
        #expect(renderer.phrases.sorted() == ["Go!", "Tooth Time.", "Your guess: two minutes."])
        // The same list again (every store change re-reads the world) does nothing.
        voice.prepare(["Tooth Time.", "Your guess: two minutes.", "Go!"])
        voice.settle()
        #expect(voice.statistics.piecesPrepared == 3)
        // A renamed task: only its new name is rendered.
        voice.prepare(["Tidy Desk.", "Your guess: two minutes.", "Go!"])
        voice.settle()
        #expect(voice.statistics.piecesPrepared == 4 && renderer.phrases.last == "Tidy Desk.")
        // A piece not known ahead is rendered when said, then kept.
        voice.say("Close! It took three minutes ten.")
        voice.settle()
        #expect(voice.statistics.piecesRendered == 2)
        #expect(PhraseCache(directory: directory).usage.files == 6)
    }
}
