import Audio
import BoxRuntime
import Foundation
import Logging
import QuestCore
import Speech
import TestSupport
import Testing

/// #35: the box's voice in a process of its own (`questbox voice serve`), rendering into the
/// clip cache: what it says is read back from the cache, a missing data folder is one error,
/// hostile words never end it, and it ends when the box closes its input.
@Suite("The voice process", .serialized)
struct VoiceProcessTests {
    let questbox = productPath("questbox")

    func cache() -> PhraseCache { PhraseCache(directory: temporaryDirectory() + "/voice") }

    @Test("a phrase said is rendered into the cache and read back; said again it is read, not rendered")
    func says() throws {
        let phrases = cache()
        let voice = try VoiceProcess(voice: "en-us", rate: 150, cache: phrases, executable: questbox)
        #expect(voice.identity.hasPrefix("espeak-ng ") && voice.identity.hasSuffix(" en-us 150"))
        let clip = try voice.render("Tooth Time.")
        #expect(clip.durationSeconds > 0.3 && clip.durationSeconds < 3)
        #expect(clip.peakDBFS > -20, "speech, not silence")
        let key = PhraseCache.Key(voice: voice.identity, text: "Tooth Time.")
        let modified = try FileManager.default.attributesOfItem(atPath: phrases.path(for: key))[.modificationDate] as? Date
        usleep(20_000)
        #expect(try voice.render("Tooth Time.").samples == clip.samples, "the kept clip, not a new rendering")
        let after = try FileManager.default.attributesOfItem(atPath: phrases.path(for: key))[.creationDate] as? Date
        #expect(modified != nil && after != nil)
        try voice.prepare("Go!")
        #expect(phrases.has(PhraseCache.Key(voice: voice.identity, text: "Go!")))
    }

    @Test("it renders at nice 10 on the normal scheduler: below the house's work, never starved by it (#49)")
    func priority() throws {
        let voice = try VoiceProcess(voice: "en-us", rate: 150, cache: cache(), executable: questbox)
        let stat = try String(contentsOfFile: "/proc/\(voice.processID)/stat", encoding: .utf8)
        // The fields after the program's name (in brackets): the 19th of the line is the nice
        // value, the 41st the scheduling policy (0 SCHED_OTHER, 5 SCHED_IDLE).
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        #expect(fields.count > 38)
        // -1 is a nice value too: only errno, cleared first, tells getpriority's failure.
        errno = 0
        let ownNice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #expect(ownNice != -1 || errno == 0, "getpriority failed: errno \(errno)")
        if ownNice <= 10 { #expect(fields[16] == "10", "nice \(fields[16])") }
        #expect(fields[38] == "0", "policy \(fields[38])")
    }

    @Test("hostile words: other scripts, emoji, 80 characters, control characters, brackets never end it")
    func hostile() throws {
        let voice = try VoiceProcess(voice: "en-us", rate: 150, cache: cache(), executable: questbox)
        for words in ["Zähne putzen", "歯を磨く", "🦷🪥✨", String(repeating: "Tidy the whole desk ", count: 4), "tab\there\nnew line\u{7}", "<speak>[[h@'loU]]</speak>"] {
            let clip = try voice.render(words)
            #expect(clip.frameCount >= 0, "\(words)")
        }
        #expect(try voice.render("Go!").frameCount > 0, "still answering")
    }

    @Test("a missing eSpeak NG data folder: one SpeechError naming it; #48: an unknown voice speaks the box's own")
    func refusals() throws {
        // The data folder comes from the environment the box was started with.
        var environment = ProcessInfo.processInfo.environment
        environment["QUESTBOX_ESPEAK_DATA"] = "/nowhere/espeak-ng-data"
        do {
            _ = try VoiceProcess(voice: "en-us", rate: 150, cache: cache(), executable: questbox, environment: environment)
            Issue.record("started without its data")
        } catch {
            #expect(error.description.contains("/nowhere/espeak-ng-data"), "\(error)")
        }
        // #48: a voice eSpeak NG lacks starts the box's own instead of leaving the box mute.
        let fallen = try VoiceProcess(voice: "xx-nolanguage", rate: 150, cache: cache(), executable: questbox)
        #expect(fallen.identity.contains(" en-us+m3 "), "\(fallen.identity)")
        #expect(throws: SpeechError.self) { try VoiceProcess(voice: "en-us", rate: 150, cache: cache(), executable: "/nonexistent/questbox") }
    }

    @Test("the box's voice with its process: said from the cache; a killed process is started again for the next phrase, the box never ends")
    func restarted() throws {
        let directory = temporaryDirectory() + "/voice"
        let engine = AudioEngine(candidates: ["null"], latencyMs: 20, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        engine.start()
        defer { engine.stop() }
        let voice = RenderedSpeech.espeak(engine: engine, choice: VoiceChoice(), cache: PhraseCache(directory: directory), executable: questbox,
                                          logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        voice.say("Tooth Time. Your guess: two minutes.")
        voice.settle()
        #expect(voice.phrasesSaid == 1 && voice.statistics.piecesRendered == 2)
        // The process, found by its cache folder, killed.
        let killed = Self.processes(containing: directory)
        #expect(killed.count == 1)
        for pid in killed { kill(pid, SIGKILL) }
        usleep(100_000)
        voice.say("Go!")
        voice.settle()
        voice.say("Go!")
        voice.settle()
        #expect(voice.phrasesSaid == 2, "said again with a new process (\(voice.statistics))")
        #expect(Self.processes(containing: directory).count == 1)
    }

    static func processes(containing text: String) -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { name in
            guard let pid = Int32(name), let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline") else { return nil }
            let line = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            return line.contains("voice serve") && line.contains(text) ? pid : nil
        }
    }

    @Test("the box gone mid-request (its end of the pipe closed): the process ends quietly, exit 0, nothing on stderr")
    func boxGone() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: questbox)
        process.arguments = ["voice", "serve", "--cache", temporaryDirectory() + "/voice"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        try output.fileHandleForReading.close()
        try input.fileHandleForWriting.write(contentsOf: Data("say\tGo!\nsay\tTooth Time.\n".utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(said.isEmpty, "\(said.prefix(300))")
    }
}
