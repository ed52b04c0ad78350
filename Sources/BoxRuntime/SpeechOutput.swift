import Audio
import CSystemClock
import Dispatch
import Foundation
import Logging
import QuestCore
import Speech
import Synchronization

/// Where the machine's words go (#35): the mixer's speech lane through a renderer on a worker
/// (`RenderedSpeech`), and a terminal's note of them in `simulate`.
public protocol SpeechOutput: AnyObject {
    /// Instead of whatever the voice was saying, after a sound now playing.
    func say(_ words: String)
    /// The voice stops mid-word.
    func cut()
    /// The parent's settings: voice, rate, loudness beside the sounds, and whether the box
    /// speaks at all (a voice that will speak gets ready now, not at its first phrase).
    func apply(_ choice: VoiceChoice, speaking: Bool)
}

/// The box's voice: each phrase rendered on a worker thread (eSpeak NG takes tens of
/// milliseconds, never on the event loop) and handed to the engine's speech lane. A phrase
/// superseded (by a newer one or a cut) before it is rendered or handed over is dropped.
/// The renderer is made on the worker when the box first needs it (a box that does not speak
/// never loads eSpeak NG's data); one that cannot be made (no data folder, an unknown voice)
/// is one log line, and the box plays on with sounds only.
public final class RenderedSpeech: SpeechOutput, @unchecked Sendable {
    /// Makes the renderer for a choice of voice (eSpeak NG in the box; a fake in tests).
    public typealias MakeRenderer = @Sendable (VoiceChoice) throws(SpeechError) -> any SpeechRenderer

    private let engine: AudioEngine
    private let logger: Logger
    private let makeRenderer: MakeRenderer
    private let worker = DispatchQueue(label: "questbox-voice", qos: .utility)
    private struct Current {
        var generation = 0
        var choice: VoiceChoice
        var gain: Double
        /// Made on the worker; nil until then, or after a change of voice.
        var renderer: (any SpeechRenderer)?
        /// Making it failed for this choice (logged once; tried again after a change).
        var unavailable = false
    }
    private let current: Mutex<Current>
    /// Phrases handed over, and those that could not be said, for tests and figures.
    private let counts = Mutex((said: 0, failed: 0))

    public init(engine: AudioEngine, choice: VoiceChoice, logger: Logger, makeRenderer: @escaping MakeRenderer) {
        self.engine = engine
        self.logger = logger
        self.makeRenderer = makeRenderer
        current = Mutex(Current(choice: choice, gain: Self.gain(choice)))
    }

    public func say(_ words: String) {
        let requested = questbox_monotonic_nanos()
        let generation = current.withLock { c in
            c.generation += 1
            return c.generation
        }
        engine.cutSpeech()
        worker.async { [self] in
            // Superseded while it waited its turn: not rendered at all.
            guard current.withLock({ $0.generation }) == generation, let renderer = readyRenderer() else { return }
            let clip: SoundClip
            do {
                clip = try renderer.render(words)
            } catch {
                counts.withLock { $0.failed += 1 }
                logger.warning("a phrase could not be said", metadata: ["error": "\(error)"])
                return
            }
            // Handed over under the lock a cut takes: a cut after this point comes after it.
            let handed = current.withLock { c -> Bool in
                guard c.generation == generation else { return false }
                engine.speak(clip, gain: c.gain, requestedAt: requested)
                return true
            }
            if handed { counts.withLock { $0.said += 1 } }
        }
    }

    public func cut() {
        current.withLock { $0.generation += 1 }
        engine.cutSpeech()
    }

    public func apply(_ choice: VoiceChoice, speaking: Bool) {
        current.withLock { c in
            c.gain = Self.gain(choice)
            if c.choice.language != choice.language || c.choice.rate != choice.rate {
                c.renderer = nil
                c.unavailable = false
            }
            c.choice = choice
        }
        if speaking { worker.async { [self] in _ = readyRenderer() } }
    }

    /// On the worker: the renderer for the current choice, made if need be.
    private func readyRenderer() -> (any SpeechRenderer)? {
        let (renderer, unavailable, choice) = current.withLock { ($0.renderer, $0.unavailable, $0.choice) }
        if let renderer { return renderer }
        guard !unavailable else { return nil }
        do {
            let made = try makeRenderer(choice)
            current.withLock { c in if c.choice == choice { c.renderer = made } }
            logger.info("voice ready", metadata: ["rate": "\(choice.rate)"])
            return made
        } catch {
            current.withLock { c in if c.choice == choice { c.unavailable = true } }
            logger.warning("no voice: the box goes on with sounds only", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Waits until every phrase asked for so far is rendered and handed over (tests).
    public func settle() { worker.sync {} }

    public var phrasesSaid: Int { counts.withLock { $0.said } }
    public var phrasesFailed: Int { counts.withLock { $0.failed } }

    static func gain(_ choice: VoiceChoice) -> Double { Double(min(max(choice.volumePercent, 0), 100)) / 100 }
}

extension RenderedSpeech {
    /// The box's voice as `run` starts it: eSpeak NG on `$QUESTBOX_ESPEAK_DATA` (or its own
    /// data folder), the voice for the box's locale unless the parent chose one.
    public static func espeak(
        engine: AudioEngine, choice: VoiceChoice, environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger
    ) -> RenderedSpeech {
        let dataPath = environment["QUESTBOX_ESPEAK_DATA"].flatMap { $0.isEmpty ? nil : $0 }
        let locale = environment["LC_ALL"] ?? environment["LANG"] ?? "C"
        return RenderedSpeech(engine: engine, choice: choice, logger: logger) { choice throws(SpeechError) in
            try EspeakSpeech(voice: .init(name: choice.voiceName(locale: locale), rate: choice.rate), dataPath: dataPath)
        }
    }
}

/// Several voices at once (the terminal's note of the words and the rendered voice).
public final class SpeechOutputs: SpeechOutput {
    let outputs: [SpeechOutput]
    public init(_ outputs: [SpeechOutput]) { self.outputs = outputs }
    public func say(_ words: String) { for o in outputs { o.say(words) } }
    public func cut() { for o in outputs { o.cut() } }
    public func apply(_ choice: VoiceChoice, speaking: Bool) { for o in outputs { o.apply(choice, speaking: speaking) } }
}
