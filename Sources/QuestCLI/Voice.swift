import ArgumentParser
import Audio
import BoardProfile
import CEventLoop
import Foundation
import QuestCore
import Logging
import Speech

/// `questbox voice`: the box's voice (#35), for a parent checking the speaker or the words.
struct VoiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voice", abstract: "The box's voice (eSpeak NG): say a phrase on the speaker, or render it to a WAV file.",
        subcommands: [Say.self, Prepare.self, Serve.self])

    struct Say: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say TEXT through the board's sound card, or render it to a WAV file (48 kHz, mono).",
            discussion: """
                Examples: questbox voice say "Tidy Desk. Your guess: two minutes thirty."
                          questbox voice say "Time for Morning Quest." --to reminder.wav
                """)
        @Argument(help: "What to say (at most \(SpeakableText.maximumCharacters) characters are said).") var text: String
        @Option(name: .long, help: "Write the speech to this WAV file instead of playing it.") var to: String?
        @Option(name: .long, help: "The eSpeak NG voice (en-us, en, en-gb-x-rp, de, … ; a variant as en-us+f3; default: the box's, en-us+m3).") var voice = "en-us+\(VoiceChoice.defaultVariant)"
        @Option(name: .long, help: "Words per minute (\(EspeakSpeech.Voice.rateRange.lowerBound)–\(EspeakSpeech.Voice.rateRange.upperBound)).") var rate = 150
        @Option(name: .long, help: "Board profile whose sound card plays it (default: $QUESTBOX_BOARD).") var board: String?
        @Option(name: .long, help: "ALSA PCM to play on instead of the board's card (default: $QUESTBOX_SOUND).") var sound: String?

        func validate() throws {
            guard EspeakSpeech.Voice.rateRange.contains(rate) else {
                throw ValidationError("--rate \(rate) is not \(EspeakSpeech.Voice.rateRange.lowerBound)–\(EspeakSpeech.Voice.rateRange.upperBound) words per minute")
            }
            guard !SpeakableText.cleaned(text).trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("nothing to say") }
        }

        func run() throws {
            let clip: SoundClip
            do {
                let speech = try EspeakSpeech(voice: .init(name: voice, rate: rate))
                if let asked = speech.replaced {
                    FileHandle.standardError.write(Data("questbox: eSpeak NG has no voice \"\(asked)\"; speaking \(speech.voice.name)\n".utf8))
                }
                clip = try speech.render(text)
            } catch {
                throw CLIError("\(error)")
            }
            let length = String(format: "%.1f", clip.durationSeconds)
            if let to {
                do {
                    try Data(WAVFile.encode(clip)).write(to: URL(fileURLWithPath: to), options: .atomic)
                } catch {
                    throw CLIError("\(to): cannot write: \(error.localizedDescription)")
                }
                print("said in \(length) s, written to \(to) (48 kHz, mono)")
                return
            }
            var card = "default", latencyMs = 40
            if let name = RunCommand.chosen(board, orVariable: "QUESTBOX_BOARD") {
                let profile = try BoardCatalog.resolve(name, in: BoardCatalog.searchDirectories())
                card = profile.audioCard
                latencyMs = profile.audioLatencyMs
            }
            ALSAPCM.quietLibraryErrors()
            let device = RunCommand.chosen(sound, orVariable: "QUESTBOX_SOUND")
            let candidates = device.map { [$0] } ?? [AudioEngine.pcmName(forCard: card), "default"]
            let engine = AudioEngine(candidates: candidates, latencyMs: latencyMs, logger: Logger(label: "voice"))
            engine.start()
            defer { engine.stop() }
            _ = engine.play(clip)
            Thread.sleep(forTimeInterval: clip.durationSeconds + Double(latencyMs) / 1000 + 0.2)
            let statistics = engine.statistics
            guard let played = statistics.device else { throw CLIError("no sound device would open (\(candidates.joined(separator: ", "))): see questbox doctor") }
            print("said in \(length) s on \(played)")
        }
    }
}

extension VoiceCommand {
    /// The box's voice process (`VoiceProcess` starts it): renders phrases into the clip cache
    /// at nice 10, one request per line on standard input, until it closes.
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The running box's voice renderer (started by `questbox run`; not for people).", shouldDisplay: false)
        @Option(name: .long) var voice = "en-us"
        @Option(name: .long) var rate = 150
        @Option(name: .long) var cache: String
        /// The renderer's nice value (the link's unit runs at 10, the web app's at 5).
        static let nice: Int32 = 10

        func run() throws {
            // Below the house's normal work, never starved by it: the words are the reveal's
            // (#49: at SCHED_IDLE the HIL house's link and broker kept it from starting for
            // 34 s and two reveals went unsaid). The box's loop and audio thread are real-time.
            _ = qb_nice_this_thread(Self.nice)
            // The box closing the pipe is the end of the work, not a signal: see `answer`.
            signal(SIGPIPE, SIG_IGN)
            let speech: EspeakSpeech
            do {
                speech = try EspeakSpeech(voice: .init(name: voice, rate: rate))
            } catch {
                Self.answer("error\t\(error)")
                throw ExitCode(1)
            }
            let phrases = PhraseCache(directory: cache)
            Self.answer("ready\t\(speech.identity)")
            while let line = Swift.readLine(strippingNewline: true) {
                let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, parts[0] == "say" || parts[0] == "keep" else {
                    Self.answer("error\tnot a request: \"\(SpeakableText.cleaned(String(line.prefix(40))))\"")
                    continue
                }
                let words = String(parts[1].prefix(4 * SpeakableText.maximumCharacters))
                let key = PhraseCache.Key(voice: speech.identity, text: words)
                // `say`: a clip the box can read now (a damaged one is rendered again);
                // `keep`: one kept already stays.
                let kept = parts[0] == "say" ? phrases.clip(for: key) != nil : phrases.has(key)
                if kept {
                    Self.answer("ok")
                    continue
                }
                do {
                    try phrases.store(try speech.render(words), for: key, replacing: parts[0] == "say")
                    Self.answer("ok")
                } catch {
                    Self.answer("error\t\(error)")
                }
            }
        }

        /// One answer line; the box gone (its end of the pipe closed) ends this process quietly.
        static func answer(_ line: String) {
            do {
                try FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
            } catch {
                Foundation.exit(0)
            }
        }
    }
}

extension VoiceCommand {
    /// The clips the box will say, rendered now (the running box does the same in the
    /// background at start and when routines or the voice change).
    struct Prepare: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render what the box can say ahead (quest and task names, every guess, the ratings) into its voice cache.",
            discussion: "The running box fills the cache by itself, in the background; this does it now, e.g. after importing routines on a slow Pi.")
        @OptionGroup var options: DataOptions

        func run() throws {
            let db = try options.open(access: .readOnly)
            let world = try db.loadWorld(calendar: Calendar.current, bootID: "voice-prepare", taskMemory: true)
            let choice = try db.settings.current().voice
            try db.close()
            // Background work beside a running box (rendering happens on this thread): the box's timing comes first.
            _ = qb_nice_this_thread(19)
            let speech: EspeakSpeech
            do {
                speech = try EspeakSpeech(voice: .init(name: choice.voiceName(environment: ProcessInfo.processInfo.environment), rate: choice.rate))
            } catch {
                throw CLIError("\(error)")
            }
            let cache = PhraseCache(dataDirectory: options.directory)
            let pieces = Set(VoicePhrases.knownAhead(world: world).flatMap(VoicePhrases.pieces))
            var rendered = 0
            for piece in cache.missing(Array(pieces), voice: speech.identity, reading: true) {
                let key = PhraseCache.Key(voice: speech.identity, text: piece)
                do {
                    try cache.store(try speech.render(piece), for: key)
                } catch let error as PhraseCache.CacheError {
                    throw CLIError(error.description)
                } catch {
                    throw CLIError("\(cache.directory): \(error)")
                }
                rendered += 1
            }
            let usage = cache.usage
            print("\(pieces.count) phrases in \(speech.voice.name) at \(speech.voice.rate) words a minute: \(rendered) rendered, \(pieces.count - rendered) kept already; \(usage.files) clips, \(usage.bytes / 1024) kB in \(cache.directory)")
        }
    }
}
