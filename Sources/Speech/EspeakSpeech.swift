import Audio
import CEspeakNG
import QuestCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// #35: eSpeak NG (libespeak-ng) rendering phrases into clips, never playing them itself: the
/// box's mixer plays them beside its sounds. eSpeak NG is one engine per process with global
/// state, so every use goes through one lock; rendering takes tens of milliseconds, so it runs
/// on a worker or ahead of time (never on the event loop).
public final class EspeakSpeech: SpeechRenderer {
    public struct Voice: Equatable, Sendable {
        /// An eSpeak NG voice name ("en-us", "en-gb-x-rp", "de", …), optionally with a variant
        /// ("en-us+f3").
        public var name: String
        /// Words per minute (eSpeak NG takes 80–450; 150 is unhurried for a 13-year-old).
        public var rate: Int

        public init(name: String = "en-us", rate: Int = 150) {
            self.name = name
            self.rate = rate
        }

        public static let rateRange = VoiceChoice.rateRange
    }

    /// The voice it speaks in: the one asked for, or the first of its fall-backs eSpeak NG
    /// has (`VoiceChoice.fallbacks`).
    public let voice: Voice
    /// The voice asked for, when eSpeak NG had no such voice and `voice` is its fall-back.
    public let replaced: String?
    /// The engine's own rate (22,050 Hz for eSpeak NG's voices).
    public let engineRate: Int
    public let identity: String

    private static let engine = Mutex(Engine())
    private struct Engine {
        var ready: Int?
        var path: String?
    }

    /// The data folder a process is told to use (`QUESTBOX_ESPEAK_DATA`; tests and the HIL
    /// rig point it elsewhere), or nil for eSpeak NG's own.
    public static func dataPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        environment["QUESTBOX_ESPEAK_DATA"]
    }

    /// Starts eSpeak NG on its data folder (nil: the one it was built with, Debian's
    /// /usr/lib/<arch>/espeak-ng-data; by default the one `dataPath()` names) and checks the
    /// voice. A missing or damaged data folder or an unknown voice is a `SpeechError`, never a crash.
    public init(voice: Voice = Voice(), dataPath: String? = EspeakSpeech.dataPath()) throws(SpeechError) {
        guard Voice.rateRange.contains(voice.rate) else {
            throw SpeechError("voice.rate: \(voice.rate) is not \(Voice.rateRange.lowerBound)–\(Voice.rateRange.upperBound) words per minute")
        }
        guard VoiceChoice.isVoiceName(voice.name) else { throw SpeechError("voice.language: \"\(SpeakableText.cleaned(voice.name))\" is not an eSpeak NG voice name") }
        let rate = try Self.start(dataPath: dataPath)
        engineRate = rate
        let (version, name) = try Self.engine.withLock { _ throws(SpeechError) -> (String, String) in
            var refused: SpeechError?
            for candidate in VoiceChoice.fallbacks(for: voice.name) {
                do throws(SpeechError) {
                    try Self.select(Voice(name: candidate, rate: voice.rate))
                } catch {
                    refused = refused ?? error
                    continue
                }
                var path: UnsafePointer<CChar>? = nil
                return (qb_espeak_Info(&path).map { String(cString: $0) } ?? "?", candidate)
            }
            throw refused ?? SpeechError("voice.language: eSpeak NG has no voice \"\(voice.name)\"")
        }
        self.voice = Voice(name: name, rate: voice.rate)
        replaced = name == voice.name ? nil : voice.name
        identity = "espeak-ng \(version) \(name) \(voice.rate)"
    }

    /// eSpeak NG started once per process on `dataPath`; its own sample rate.
    private static func start(dataPath: String?) throws(SpeechError) -> Int {
        try Self.engine.withLock { engine throws(SpeechError) -> Int in
            if let rate = engine.ready {
                guard engine.path == dataPath else { throw SpeechError("eSpeak NG already runs on \(engine.path ?? "its own data folder")") }
                return rate
            }
            guard qb_espeak_load() == 0 else { throw SpeechError(String(cString: qb_espeak_load_error())) }
            // eSpeak NG falls back to its own folder when the one given is missing, and may
            // stop the process on a folder without its phoneme tables: the folder it settled on
            // is checked here first, so a missing one is one line.
            qb_espeak_ng_InitializePath(dataPath)
            var settled: UnsafePointer<CChar>? = nil
            _ = qb_espeak_Info(&settled)
            let folder = settled.map { String(cString: $0) } ?? ""
            if let dataPath, folder != dataPath {
                throw SpeechError("eSpeak NG data \(dataPath): no such folder with eSpeak NG's data (phontab)")
            }
            guard access(folder + "/phontab", R_OK) == 0 else {
                throw SpeechError("eSpeak NG data \(folder.isEmpty ? "(its own folder)" : folder): no phontab (is espeak-ng-data installed?)")
            }
            var context: espeak_ng_ERROR_CONTEXT? = nil
            let status = qb_espeak_ng_Initialize(&context)
            qb_espeak_ng_ClearErrorContext(&context)
            guard status == ENS_OK else {
                throw SpeechError("eSpeak NG data \(dataPath ?? "(its own folder)"): \(Self.message(status))")
            }
            let output = qb_espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, nil)
            guard output == ENS_OK else { throw SpeechError("eSpeak NG output: \(Self.message(output))") }
            qb_espeak_SetSynthCallback(collect)
            let rate = Int(qb_espeak_ng_GetSampleRate())
            guard rate > 0 else { throw SpeechError("eSpeak NG gave no sample rate") }
            engine.ready = rate
            engine.path = dataPath
            return rate
        }
    }

    /// The phrase in this voice at the mixer's rate (48 kHz, mono). Text in any script,
    /// emoji and control characters never crash it: control characters are dropped, the text
    /// is cut at `SpeakableText.maximumCharacters`, and what the voice cannot say is skipped.
    public func render(_ text: String) throws(SpeechError) -> SoundClip {
        let cleaned = SpeakableText.cleaned(text)
        let samples = try Self.engine.withLock { _ throws(SpeechError) -> [Int16] in
            try Self.select(voice)
            let collector = Collector(engineRate: engineRate)
            let status = cleaned.withCString { pointer in
                qb_espeak_ng_Synthesize(pointer, cleaned.utf8.count + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil,
                                     Unmanaged.passUnretained(collector).toOpaque())
            }
            guard status == ENS_OK else { throw SpeechError("eSpeak NG could not say \"\(cleaned.prefix(40))\": \(Self.message(status))") }
            return collector.samples
        }
        return SoundClip(samples: Resample.toMixerRate(samples, from: engineRate), channels: 1)
    }

    private static func select(_ voice: Voice) throws(SpeechError) {
        let chosen = qb_espeak_ng_SetVoiceByName(voice.name)
        guard chosen == ENS_OK else { throw SpeechError("voice.language: eSpeak NG has no voice \"\(voice.name)\" (\(message(chosen)))") }
        _ = qb_espeak_ng_SetParameter(espeakRATE, Int32(voice.rate), 0)
    }

    static func message(_ status: espeak_ng_STATUS) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        qb_espeak_ng_GetStatusCodeMessage(status, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "status \(status.rawValue)" : text
    }
}

/// Where one synthesis's samples gather (reached through the callback's user data; used only
/// under the engine's lock).
private final class Collector {
    var samples: [Int16] = []
    /// 60 s at eSpeak NG's rate: a phrase is a few seconds; more is cut.
    let maximumSamples: Int
    init(engineRate: Int) { maximumSamples = 60 * engineRate }
}

/// eSpeak NG calls this with each piece of a synthesis (NULL and 0 at the end). 0 goes on.
private func collect(_ wav: UnsafeMutablePointer<Int16>?, _ count: Int32, _ events: UnsafeMutablePointer<espeak_EVENT>?) -> Int32 {
    guard let wav, count > 0, let data = events?.pointee.user_data else { return 0 }
    let collector = Unmanaged<Collector>.fromOpaque(data).takeUnretainedValue()
    let room = collector.maximumSamples - collector.samples.count
    guard room > 0 else { return 1 }
    collector.samples.append(contentsOf: UnsafeBufferPointer(start: wav, count: min(Int(count), room)))
    return 0
}
