import Foundation
import TestSupport
@testable import QuestCLI
import BoxProtocol
import QuestCore
import Testing
@testable import QuestStore

@Suite("questbox simulate --events")
struct SimulateTests {
    let questbox = productPath("questbox")

    static let routine = """
        {"name": "School Morning", "displayName": "Morning Quest", "activeDays": [2,3,4,5,6], "tasks": [
         {"name": "Brush teeth", "displayName": "Tooth Time"}, {"name": "Get dressed", "displayName": "Get Dressed"},
         {"name": "Pack bag", "displayName": "Pack Bag"}]}
        """

    static func script(_ tasks: [(ups: Int, takesMs: Int64)], bounce: Bool = false) -> String {
        EventScripts.quest(tasks, bounce: bounce)
    }

    func prepared() throws -> (data: String, dir: String) {
        let dir = temporaryDirectory()
        let data = (dir as NSString).appendingPathComponent("data")
        let routine = (dir as NSString).appendingPathComponent("routine.json")
        #expect(FileManager.default.createFile(atPath: routine, contents: Data(Self.routine.utf8)))
        #expect(try runProcess(questbox, ["routine", "import", routine, "--data", data]).status == 0)
        try skipFirstQuestIntro(data: data)
        return (data, dir)
    }

    @Test("a 3-task quest → three estimations with exactly the scripted durations and ratings; XP in stats")
    func threeTasks() throws {
        let (data, dir) = try prepared()
        let events = (dir as NSString).appendingPathComponent("quest.events")
        #expect(FileManager.default.createFile(atPath: events, contents: Data(Self.script([(0, 121_500), (1, 240_000), (0, 110_000)], bounce: true).utf8)))
        let run = try runProcess(questbox, ["simulate", "--events", events, "--now", "2026-11-23T07:00:00Z", "--data", data])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasSuffix("3 estimations saved\n"))

        let history = try runProcess(questbox, ["history", "--json", "--data", data])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
        #expect(entries.map { $0["taskDisplayName"] as? String } == ["Tooth Time", "Get Dressed", "Pack Bag"])
        #expect(entries.map { $0["actualSeconds"] as? Double } == [121.5, 240, 110])
        #expect(entries.map { $0["estimatedSeconds"] as? Double } == [120, 150, 120])
        #expect(entries.map { $0["rating"] as? String } == ["spot_on", "off", "spot_on"])
        #expect(entries.allSatisfy { ($0["recordedAt"] as? String)?.hasPrefix("2026-11-23T07:") == true })

        let stats = try runProcess(questbox, ["stats", "--json", "--data", data])
        let s = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        #expect(s["totalXP"] as? Int == 100 + 25 + 100 + 20)
        #expect(s["sessionsCompleted"] as? Int == 1)
        #expect(s["currentStreak"] as? Int == 1)
    }

    @Test("--trace prints every effect as one flat JSON line, the persist before the reveal")
    func trace() throws {
        let (data, dir) = try prepared()
        let events = (dir as NSString).appendingPathComponent("quest.events")
        #expect(FileManager.default.createFile(atPath: events, contents: Data(Self.script([(0, 60_000), (0, 70_000), (0, 80_000)]).utf8)))
        let run = try runProcess(questbox, ["simulate", "--events", events, "--now", "2026-11-23T07:00:00Z", "--trace", "--data", data])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.allSatisfy { $0["effect"] is String && $0["atMs"] is Int })
        let persisted = try #require(objects.firstIndex { $0["kind"] as? String == "estimationCompleted" })
        let revealSound = try #require(objects.firstIndex { ($0["sound"] as? String)?.hasPrefix("reveal_") == true })
        #expect(persisted < revealSound)
        #expect(objects[persisted]["actualSeconds"] as? Double == 60)
        #expect(objects.contains { $0["effect"] as? String == "display" && $0["screen"] as? String == "summary" })
        // The timers ran until the box was idle again.
        #expect(objects.last { $0["effect"] as? String == "display" }?["screen"] as? String == "idle")
    }

    @Test("bad event lines are one error naming the file and line; nothing is stored")
    func badScripts() throws {
        let (data, dir) = try prepared()
        let cases: [(String, String)] = [
            ("100 sideways down", ":1: \"sideways\" is not a button (lock, stop, up, down)"),
            ("# comment\n100 lock pressed", ":2: \"pressed\" is not down or up"),
            ("soon lock down", ":1: \"soon\" is not a time in milliseconds"),
            ("200 lock down\n100 lock up", ":2: 100 ms is before the previous line (200 ms)"),
            ("100 lock", ":1: expected \"<ms> <lock|stop|up|down> <down|up>\""),
        ]
        for (text, expected) in cases {
            let file = (dir as NSString).appendingPathComponent("bad.events")
            #expect(FileManager.default.createFile(atPath: file, contents: Data(text.utf8)))
            let r = try runProcess(questbox, ["simulate", "--events", file, "--data", data])
            #expect(r.status != 0 && r.stderr.hasPrefix("questbox: \(file)\(expected)"), "\(text) → \(r.stderr)")
        }
        let badNow = try runProcess(questbox, ["simulate", "--events", (dir as NSString).appendingPathComponent("bad.events"), "--now", "tomorrow", "--data", data])
        #expect(badNow.stderr == "questbox: --now: \"tomorrow\" is not an ISO 8601 time (e.g. 2026-11-23T07:00:00Z)\n")
        #expect(try runProcess(questbox, ["history", "--json", "--data", data]).stdout == "[]\n")
    }

    @Test("the events parser keeps order, comments and blank lines out")
    func parser() throws {
        let s = try EventScript.parse("# start\n\n0 lock down  # press\n5\tlock up\n", file: "e")
        #expect(s.presses == [.init(atMs: 0, button: .lock, pressed: true), .init(atMs: 5, button: .lock, pressed: false)])
    }
}

@Suite("questbox simulate (interactive)")
struct InteractiveSimulateTests {
    @Test("keys drive the real loop: tap, hold with accelerating repeat, lock in, stop; the play is stored")
    func keys() throws {
        let dir = try dataWithEverydayRoutine()
        do {
            let db = try QuestDatabase(path: DataDirectory.databasePath(in: dir))
            try db.settings.update {
                $0.volumePercent = 100  // unity gain: the output is the WAV's samples
                $0.game.remindersEnabled = false  // no REM-1 chime, whatever the time of day
            }
            try db.close()
        }
        let captured = (dir as NSString).appendingPathComponent("sound.raw")

        let (p, input, output) = try launchInteractive(["--data", dir, "--sound", "file:FILE=\(captured),FORMAT=raw"])
        let drain = OutputDrain(output)
        // Each key once the box shows the screen it answers: a busy machine (CI builds beside
        // the tests) only slows the quest down. A key is a press and its release 40 ms later:
        // the next key waits past both.
        let screens = try ScreenWatch(data: dir)
        #expect(screens.waitFor("Morning Quest"), "no quest offered")
        usleep(300_000)
        send("l", to: input)  // start the quest
        #expect(screens.screen("estimating"), "no guess screen")
        usleep(300_000)
        send("U", to: input)  // hold up …
        usleep(1_500_000)
        send("U", to: input)  // … and let go
        usleep(300_000)
        let lockSent = ContinuousClock.now
        send("l", to: input)  // lock in
        #expect(screens.screen("active"), "no running task")
        usleep(2_300_000)  // past GAME-4's 2 s stop guard, counted from when the box showed the task
        send("s", to: input)  // stop
        #expect(screens.screen("reveal"), "no reveal")
        let revealSeen = ContinuousClock.now
        usleep(400_000)
        send("q", to: input)
        try input.fileHandleForWriting.close()
        let text = drain.text
        p.waitUntilExit()
        _ = try screens.finish()
        #expect(p.terminationStatus == 0, "\(text)")
        #expect(text.contains(TerminalGPIOHelp.text))
        #expect(text.contains("♪ reveal_"))
        #expect(text.contains("LED"))

        let db = try QuestDatabase(path: DataDirectory.databasePath(in: dir))
        let saved = try db.plays.estimations()
        #expect(saved.count == 1)
        let e = try #require(saved.first)
        #expect(e.estimatedSeconds > 180, "held up accelerated the estimate: \(e.estimatedSeconds)")
        // GAME-3: the keys' own read times, so between the stop sent 2.3 s after the task
        // showed and the reveal seen, however slow the machine.
        let upper = (revealSeen - lockSent) / .seconds(1)
        #expect(e.actualSeconds >= 2.3 && e.actualSeconds <= upper, "\(e.actualSeconds) s, not within 2.3…\(upper)")

        // The sound went through the real ALSA engine (a file-backed PCM): the lock-in chime
        // is in it sample for sample, on both channels, between silence.
        let out = try Data(contentsOf: URL(fileURLWithPath: captured)).withUnsafeBytes { raw in
            (0..<(raw.count / 2)).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * $0, as: Int16.self)) }
        }
        let lockIn = try WAVFile.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: "\(packageRoot)/Sounds/lock_in.wav"))), file: "lock_in.wav")
        let probe = Array(lockIn.samples[1..<200].flatMap { [$0, $0] })
        let at = try #require(firstIndex(of: probe, in: out), "lock_in.wav not found in the engine's output (\(out.count) samples)")
        #expect(Array(out[(at - 2)..<(at - 2 + 2 * lockIn.frameCount)]) == lockIn.samples.flatMap { [$0, $0] })
        #expect(out.prefix(2 * 4_800).allSatisfy { $0 == 0 }, "silence while idle at start")
    }

    @Test("#14 in a terminal (a pty): one view redrawn in place on the alternate screen — the frame, the LED row rewritten where it stands, the play stored; the shell's screen back at the end")
    func fullScreenInATerminal() throws {
        let questbox = productPath("questbox")
        let dir = try dataWithEverydayRoutine()
        #expect(try runProcess(questbox, ["settings", "set", "reminders", "false", "--data", dir]).status == 0)
        // util-linux's script gives the box a real terminal of 140×45 (bsdutils is essential in Debian).
        let (p, input, output) = try launch(
            "/usr/bin/script", ["-qfec", "stty cols 140 rows 45; exec '\(questbox)' simulate --data '\(dir)'", "/dev/null"],
            environment: ["TERM": "xterm"])
        let drain = OutputDrain(output)
        let screens = try ScreenWatch(data: dir)
        #expect(screens.waitFor("Morning Quest"), "no quest offered")
        playFirstTask(input, watching: screens)
        usleep(600_000)
        send("q", to: input)
        let text = drain.text
        p.waitUntilExit()
        try? input.fileHandleForWriting.close()
        _ = try screens.finish()
        #expect(p.terminationStatus == 0, "\(text.suffix(400))")
        #expect(text.contains("\u{1B}[?1049h") && text.contains("\u{1B}[?1049l"), "the alternate screen, entered and left")
        #expect(text.components(separatedBy: "\u{1B}[2J").count == 2, "cleared once: everything after is redrawn in place")
        // Every LED/buzzer/sound row was written at the same row: nothing scrolls.
        let statusRows = Set(text.components(separatedBy: "\u{1B}[").compactMap { piece -> Substring? in
            guard let h = piece.firstIndex(of: "H"), piece[piece.index(after: h)...].hasPrefix("  LED ") else { return nil }
            return piece[..<h]
        })
        #expect(statusRows == ["36;1"], "\(statusRows)")
        #expect(text.components(separatedBy: "  LED ").count > 3, "the LED row was redrawn as it changed")
        #expect(text.contains("┌" + String(repeating: "─", count: 128) + "┐"), "the frame in half blocks, 128 columns")
        #expect(text.contains("sound ♪ reveal_"), "the reveal's sound on the status row")
        #expect(!text.contains("│ TimeQuest · Level"), "no line-per-event output in a terminal")
        let db = try QuestDatabase(path: DataDirectory.databasePath(in: dir))
        #expect(try db.plays.estimations().count == 1)
    }

    @Test("SIGTERM reaches the loop, not the audio thread: outputs off, exit 0")
    func sigterm() throws {
        let (p, input, output) = try launchInteractive(["--data", temporaryDirectory()])
        usleep(1_000_000)  // up and idle, the audio thread writing silence
        kill(p.processIdentifier, SIGTERM)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit && p.terminationStatus == 0, "\(p.terminationReason) \(p.terminationStatus): \(text)")
        #expect(text.hasSuffix("bye\n"))
        try input.fileHandleForWriting.close()
    }

    @Test("#12: watch --json sees every screen of a quest played in the simulator; routine import and settings set reach the running box")
    func watchAndLiveChanges() throws {
        let questbox = productPath("questbox")
        let dir = temporaryDirectory()
        // No REM-1 chime whatever the time of day.
        #expect(try runProcess(questbox, ["settings", "set", "reminders", "false", "--data", dir]).status == 0)
        let (p, input, output) = try launchInteractive(["--data", dir])
        var terminal = ""
        defer {
            send("q", to: input)
            try? input.fileHandleForWriting.close()
            terminal = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            // Muted without a restart: the reveal's sound is told as muted in the terminal.
            #expect(terminal.contains("reveal_") && terminal.contains("(muted)"), "\(terminal)")
        }
        let screens = try ScreenWatch(data: dir)
        // A routine imported while the box runs is offered without a restart.
        let routine = (dir as NSString).appendingPathComponent("daily.json")
        #expect(FileManager.default.createFile(atPath: routine, contents: Data(SimulateTests.routine.replacingOccurrences(of: "[2,3,4,5,6]", with: "[1,2,3,4,5,6,7]").utf8)))
        #expect(try runProcess(questbox, ["routine", "import", routine, "--data", dir]).status == 0)
        #expect(try runProcess(questbox, ["settings", "set", "sound.mute", "true", "--data", dir]).status == 0)
        #expect(try runProcess(questbox, ["settings", "set", "intro", "false", "--data", dir]).status == 0)
        #expect(screens.waitFor("Morning Quest"), "the import never reached the box")
        playFirstTask(input, watching: screens)
        usleep(200_000)
        let messages = try screens.finish()
        #expect(messages.first?.type == "hello")
        let kinds = messages.compactMap { $0.type == "event" ? $0.screen?.kind : nil }
        #expect(kinds.suffix(3) == ["estimating", "active", "reveal"], "\(kinds)")
        let offered = messages.contains { m in
            if case .idle(let s)? = m.screen?.screen { s.quests.map(\.name).contains("Morning Quest") } else { false }
        }
        #expect(offered, "the imported routine never showed on the box")
        #expect(messages.contains { $0.event == "box" && ($0.box?.dataVersion ?? 0) >= 2 })
        #expect(messages.contains { $0.event == "sound" && $0.sound?.hasPrefix("reveal_") == true })
    }

    /// Starts the offered quest and plays its first task, each key once the box shows the
    /// screen it answers (a busy machine may take seconds): the stop 2.3 s after the task
    /// showed, past GAME-4's 2 s guard. A key is a press and its release 40 ms later: the next
    /// key waits past both.
    func playFirstTask(_ input: Pipe, watching screens: ScreenWatch) {
        for (key, answer, pause) in [("l", "estimating", 0.3), ("l", "active", 0.3), ("s", "reveal", 2.3)] {
            usleep(UInt32(pause * 1e6))
            send(key, to: input)
            #expect(screens.screen(answer), "no \(answer) screen after \(key)")
        }
    }

    /// A fresh data directory with the test routine imported, active every day.
    func dataWithEverydayRoutine() throws -> String {
        let dir = temporaryDirectory()
        let routine = (dir as NSString).appendingPathComponent("daily.json")
        #expect(FileManager.default.createFile(atPath: routine, contents: Data(SimulateTests.routine.replacingOccurrences(of: "[2,3,4,5,6]", with: "[1,2,3,4,5,6,7]").utf8)))
        #expect(try runProcess(productPath("questbox"), ["routine", "import", routine, "--data", dir]).status == 0)
        try skipFirstQuestIntro(data: dir)
        return dir
    }

    /// `questbox simulate ARGUMENTS` running with keys on a pipe and output (both streams) on another.
    func launchInteractive(_ arguments: [String]) throws -> (process: Process, input: Pipe, output: Pipe) {
        try launch(productPath("questbox"), ["simulate"] + arguments)
    }

    /// `executable ARGUMENTS` with the checkout's boards, keys on a pipe and output (both
    /// streams) on another.
    func launch(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> (process: Process, input: Pipe, output: Pipe) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["QUESTBOX_BOARDS"] = "\(packageRoot)/Boards"
        env.merge(extra) { $1 }
        p.environment = env
        let input = Pipe(), output = Pipe()
        ignoreBrokenPipes()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = output
        try p.run()
        return (p, input, output)
    }

    func firstIndex(of needle: [Int16], in haystack: [Int16]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var i = 0
        while i + needle.count <= haystack.count {
            if haystack[i] == needle[0], Array(haystack[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }
}

/// `questbox watch --json` beside a running box, so a test presses each key once the box shows
/// the screen that key answers: a busy machine (CI builds beside the tests) only slows the
/// quest down, where fixed pauses let a late screen take a key meant for the next one.
final class ScreenWatch {
    private let process = Process()
    private let pipe = Pipe()
    private var seen = Data()
    /// Where the last wait's match ended: each wait looks only at what came after it.
    private var matchedTo = 0

    init(data dir: String, seconds: Double = 30) throws {
        let socket = (dir as NSString).appendingPathComponent("questbox.sock")
        let deadline = Date().addingTimeInterval(seconds)
        while !FileManager.default.fileExists(atPath: socket) && Date() < deadline { usleep(50_000) }
        process.executableURL = URL(fileURLWithPath: productPath("questbox"))
        process.arguments = ["watch", "--json", "--data", dir]
        process.standardOutput = pipe
        try process.run()
        // Subscribed once the reply to its subscribe came: every event after is seen. That
        // reply holds the screen shown then, so the next wait starts from the beginning again.
        try #require(waitFor("\"id\":\"watch\"", seconds: seconds), "questbox watch never subscribed to the box in \(dir)")
        matchedTo = 0
    }

    /// Waits until `text` comes after the last match (true), or `seconds` pass.
    func waitFor(_ text: String, seconds: Double = 30) -> Bool {
        let needle = Data(text.utf8)
        let fd = pipe.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let found = seen.range(of: needle, in: matchedTo..<seen.count) {
                matchedTo = found.upperBound
                return true
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(min(left, 1) * 1000)) > 0 else { continue }
            let n = Glibc.read(fd, &buffer, buffer.count)
            guard n > 0 else { return false }
            seen.append(contentsOf: buffer[0..<n])
        }
    }

    /// Waits for a screen of this kind (`estimating`, `active`, `reveal` …).
    func screen(_ kind: String) -> Bool { waitFor("\"kind\":\"\(kind)\"") }

    /// Ends the watch: every message it saw.
    func finish() throws -> [BoxMessage] {
        kill(process.processIdentifier, SIGKILL)  // the test runner's threads block SIGTERM, and children inherit it
        process.waitUntilExit()
        seen.append(pipe.fileHandleForReading.readDataToEndOfFile())
        return try String(decoding: seen, as: UTF8.self).split(separator: "\n").map { try BoxMessage.decode(Data($0.utf8)) }
    }
}

/// Reads a child's output on a thread of its own while the test drives it, so a full pipe
/// never holds the box up; `text` is everything once the child closed it.
final class OutputDrain: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    /// Waits for the end of the output; the semaphore orders the thread's write before this read.
    var text: String {
        done.wait()
        done.signal()
        return String(decoding: data, as: UTF8.self)
    }
}

import Audio
import BoxProtocol
import BoxRuntime
enum TerminalGPIOHelp { static let text = TerminalGPIO.help }

@Suite("#35: watch's lines for the voice")
struct WatchVoiceLineTests {
    @Test("what the box says is a line of its own, escaped; a cut says so")
    func speakLines() {
        let said = WatchText.line(for: .event("speak") { $0.words = "Tidy Desk. Your guess: two minutes.\u{1B}[2J" })
        #expect(said.contains("say    Tidy Desk. Your guess: two minutes."))
        #expect(!said.contains("\u{1B}"))
        #expect(WatchText.line(for: .event("speech-cut")).hasSuffix(" say    (cut)\n"))
    }
}
