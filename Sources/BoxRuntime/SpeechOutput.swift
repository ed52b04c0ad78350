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
    /// Instead of whatever the voice was saying, after a sound now playing; with `notAfter`
    /// (CLOCK_MONOTONIC ns), not at all unless they are handed to the sound by then.
    func say(_ words: String, notAfter: Int64?)
    /// The voice stops mid-word.
    func cut()
    /// The parent's settings: voice, rate, loudness beside the sounds, and whether the box
    /// speaks at all (a voice that will speak gets ready now, not at its first phrase).
    func apply(_ choice: VoiceChoice, speaking: Bool)
    /// Phrases the box will say (`VoicePhrases.knownAhead`): rendered into the cache in the
    /// background, so saying them later reads a clip.
    func prepare(_ phrases: [String])
}

extension SpeechOutput {
    public func say(_ words: String) { say(words, notAfter: nil) }
}

/// The box's voice: each phrase put together on a worker thread, never on the event loop (in
/// the box the rendering itself happens in the voice process, `VoiceProcess`), and handed to
/// the engine's speech lane. A phrase superseded (by a newer one or a cut) before it is
/// rendered or handed over is dropped.
/// A phrase is said in pieces (`VoicePhrases.pieces`), each read from the `PhraseCache` when
/// it is there and rendered (and kept) when not; `prepare` fills the cache ahead.
/// The renderer is made on the worker when the box first needs it (a box that does not speak
/// never loads eSpeak NG's data); one that cannot be made (no data folder, an unknown voice)
/// is one log line, and the box plays on with sounds only.
public final class RenderedSpeech: SpeechOutput, @unchecked Sendable {
    /// Makes the renderer for a choice of voice (eSpeak NG in the box; a fake in tests).
    public typealias MakeRenderer = @Sendable (VoiceChoice) throws(SpeechError) -> any SpeechRenderer

    private let engine: AudioEngine
    private let logger: Logger
    private let makeRenderer: MakeRenderer
    private let cache: PhraseCache?
    private let worker = DispatchQueue(label: "questbox-voice", qos: .utility)
    /// Fills the cache; a phrase to say never waits behind it (only for one render at most:
    /// eSpeak NG is one engine).
    private let filler = DispatchQueue(label: "questbox-voice-cache", qos: .background)
    /// The latest list asked for, and for which voice: the same list again (every store
    /// change re-reads the world) is not worked through again.
    private let filling = Mutex((generation: 0, phrases: [String](), voice: ""))
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
    /// Phrases handed over, those that could not be said, those whose moment passed before
    /// they were ready, and pieces read from the cache or rendered (for saying or for the
    /// cache), for tests and figures.
    private let counts = Mutex(Counts())
    public struct Counts: Sendable, Equatable {
        public var said = 0, failed = 0, late = 0, piecesRead = 0, piecesRendered = 0, piecesPrepared = 0
    }

    public init(engine: AudioEngine, choice: VoiceChoice, cache: PhraseCache? = nil, logger: Logger, makeRenderer: @escaping MakeRenderer) {
        self.engine = engine
        self.cache = cache
        self.logger = logger
        self.makeRenderer = makeRenderer
        current = Mutex(Current(choice: choice, gain: Self.gain(choice)))
    }

    public func say(_ words: String, notAfter deadline: Int64?) {
        let requested = questbox_monotonic_nanos()
        let generation = current.withLock { c in
            c.generation += 1
            return c.generation
        }
        engine.cutSpeech()
        worker.async { [self] in
            // Superseded while it waited its turn: not rendered at all.
            guard current.withLock({ $0.generation }) == generation, let renderer = readyRenderer() else { return }
            // Each piece is handed over as soon as it is ready: a cached first sentence is
            // not held back by a later one being rendered.
            for (index, piece) in VoicePhrases.pieces(words).enumerated() {
                let clip: SoundClip
                do {
                    clip = SoundClip(samples: try self.samples(of: piece, renderer: renderer), channels: 1)
                } catch {
                    counts.withLock { $0.failed += 1 }
                    logger.warning("a phrase could not be said", metadata: ["error": "\(error)"])
                    dropIfUnusable(renderer)
                    return
                }
                // Words for a moment that has passed (a "Go!" held while the voice process
                // started) would be heard out of place: not said at all.
                if index == 0, let deadline, case let now = questbox_monotonic_nanos(), now > deadline {
                    counts.withLock { $0.late += 1 }
                    logger.info("words not said: their moment had passed", metadata: [
                        "words": "\(piece)", "lateMs": "\((now - deadline) / 1_000_000)",
                    ])
                    return
                }
                // Handed over under the lock a cut takes: a cut after this point comes after
                // it; a newer phrase came meanwhile: this one goes no further.
                let handed = current.withLock { c -> Bool in
                    guard c.generation == generation else { return false }
                    engine.speak(clip, gain: c.gain, continuing: index > 0, requestedAt: index == 0 ? requested : nil)
                    return true
                }
                guard handed else { return }
            }
            counts.withLock { $0.said += 1 }
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

    /// A renderer that can say nothing more (its process was killed) is made again for the
    /// next phrase; if that fails, the voice is unavailable (one line) until settings change.
    private func dropIfUnusable(_ renderer: any SpeechRenderer) {
        guard !renderer.isUsable else { return }
        current.withLock { c in if c.renderer.map({ $0 as AnyObject }) === (renderer as AnyObject) { c.renderer = nil } }
    }

    /// Made once at a time (the worker and the cache filler both ask).
    private let making = NSLock()

    /// On the worker or the filler: the renderer for the current choice, made if need be.
    private func readyRenderer() -> (any SpeechRenderer)? {
        making.lock()
        defer { making.unlock() }
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

    /// One piece's samples: from the cache, else rendered and kept there.
    private func samples(of piece: String, renderer: any SpeechRenderer) throws(SpeechError) -> [Int16] {
        let key = PhraseCache.Key(voice: renderer.identity, text: piece)
        if let cached = cache?.clip(for: key) {
            counts.withLock { $0.piecesRead += 1 }
            return cached.samples
        }
        let clip = try renderer.render(piece)
        counts.withLock { $0.piecesRendered += 1 }
        // The clip said is the one kept (it replaces a damaged one, or one the cache filler
        // rendered meanwhile), so what was heard is what the cache holds.
        if !renderer.keepsClips { keep(clip, key, replacing: true) }
        return clip.samples
    }

    private func keep(_ clip: SoundClip, _ key: PhraseCache.Key, replacing: Bool) {
        do {
            try cache?.store(clip, for: key, replacing: replacing)
        } catch {
            logger.warning("a phrase could not be kept", metadata: ["cache": "\(cache?.directory ?? "")", "error": "\(error)"])
        }
    }

    /// Renders the pieces of `phrases` the cache lacks, in the background; a newer list
    /// replaces one still being worked through. One log line when done.
    public func prepare(_ phrases: [String]) {
        guard cache != nil else { return }
        let voice = current.withLock { "\($0.choice)" }
        let generation = filling.withLock { f -> Int? in
            guard f.phrases != phrases || f.voice != voice else { return nil }
            f = (f.generation + 1, phrases, voice)
            return f.generation
        }
        guard let generation else { return }
        filler.async { [self] in
            let started = questbox_monotonic_nanos()
            var rendered = 0
            let pieces = phrases.flatMap(VoicePhrases.pieces)
            guard !pieces.isEmpty, let cache, let voice = readyRenderer()?.identity else { return }
            for piece in cache.missing(pieces, voice: voice) {
                // A respawned renderer (its process killed) has the same identity.
                guard filling.withLock({ $0.generation }) == generation, let renderer = readyRenderer() else { return }
                let key = PhraseCache.Key(voice: renderer.identity, text: piece)
                // Said (and kept) meanwhile.
                guard !cache.has(key) else { continue }
                do {
                    if renderer.keepsClips {
                        try renderer.prepare(piece)
                    } else {
                        keep(try renderer.render(piece), key, replacing: false)
                    }
                    rendered += 1
                    counts.withLock { $0.piecesPrepared += 1 }
                } catch {
                    logger.warning("a phrase could not be prepared", metadata: ["error": "\(error)"])
                    dropIfUnusable(renderer)
                }
            }
            let usage = cache.usage
            logger.info("voice cache ready", metadata: [
                "rendered": "\(rendered)", "ms": "\((questbox_monotonic_nanos() - started) / 1_000_000)",
                "clips": "\(usage.files)", "kB": "\(usage.bytes / 1024)",
            ])
        }
    }

    /// Waits until every phrase asked for so far is rendered and handed over, and the cache
    /// filled (tests).
    public func settle() {
        worker.sync {}
        filler.sync {}
    }

    public var statistics: Counts { counts.withLock { $0 } }
    public var phrasesSaid: Int { statistics.said }
    public var phrasesFailed: Int { statistics.failed }

    static func gain(_ choice: VoiceChoice) -> Double { Double(min(max(choice.volumePercent, 0), 100)) / 100 }
}

extension RenderedSpeech {
    /// The box's voice as `run` starts it: eSpeak NG in its own process (`questbox voice
    /// serve`, at nice 10: its heap and page faults never touch the box's threads, and its
    /// CPU time gives way to theirs), keeping clips in `cache`; eSpeak NG's data from
    /// `$QUESTBOX_ESPEAK_DATA` (or its own folder); the voice for the box's locale unless the
    /// parent chose one.
    public static func espeak(
        engine: AudioEngine, choice: VoiceChoice, cache: PhraseCache, executable: String = VoiceProcess.thisProgram(),
        environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger
    ) -> RenderedSpeech {
        RenderedSpeech(engine: engine, choice: choice, cache: cache, logger: logger) { choice throws(SpeechError) in
            try VoiceProcess(voice: choice.voiceName(environment: environment), rate: choice.rate, cache: cache, executable: executable)
        }
    }
}

/// Several voices at once (the terminal's note of the words and the rendered voice).
public final class SpeechOutputs: SpeechOutput {
    let outputs: [SpeechOutput]
    public init(_ outputs: [SpeechOutput]) { self.outputs = outputs }
    public func say(_ words: String, notAfter: Int64?) { for o in outputs { o.say(words, notAfter: notAfter) } }
    public func cut() { for o in outputs { o.cut() } }
    public func apply(_ choice: VoiceChoice, speaking: Bool) { for o in outputs { o.apply(choice, speaking: speaking) } }
    public func prepare(_ phrases: [String]) { for o in outputs { o.prepare(phrases) } }
}
