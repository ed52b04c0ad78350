import BoxProtocol
import ArgumentParser
import BoardProfile
import BoxRuntime
import Foundation
import GPIO
import InputFiles
import Logging
import QuestCore
import Speech
import QuestStore
import SystemClock

/// A scripted run of the box: `<ms> <lock|stop|up|down> <down|up>` per line, `#` comments.
public struct EventScript: Equatable, Sendable {
    public struct Press: Equatable, Sendable {
        public var atMs: Int64
        public var button: ButtonRole
        public var pressed: Bool

        public init(atMs: Int64, button: ButtonRole, pressed: Bool) {
            self.atMs = atMs
            self.button = button
            self.pressed = pressed
        }
    }

    public var presses: [Press]

    /// Limits that keep a hostile script from costing minutes and gigabytes (a real one has
    /// dozens of lines): the file's size, the number of edges, and the latest time (31 days,
    /// far past the 3 h task limit, far below where nanoseconds overflow).
    public static let maximumBytes = 256 << 10
    public static let maximumPresses = 10_000
    public static let maximumMs: Int64 = 31 * 24 * 3_600 * 1_000

    /// Lines end in LF, CRLF or CR (a script written on Windows reads the same).
    public static func parse(_ text: String, file: String) throws -> EventScript {
        var presses: [Press] = []
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            if words.isEmpty { continue }
            let at = "\(file):\(index + 1)"
            guard words.count == 3 else {
                throw CLIError("\(at): expected \"<ms> <lock|stop|up|down> <down|up>\", found \"\(DisplayText.escaped(String(line.trimmingCharacters(in: .whitespaces).prefix(80))))\"")
            }
            guard let ms = Int64(words[0]), ms >= 0 else { throw CLIError("\(at): \"\(DisplayText.escaped(words[0]))\" is not a time in milliseconds") }
            guard ms <= maximumMs else { throw CLIError("\(at): \(ms) ms is later than a script may go (\(maximumMs) ms, 31 days)") }
            guard let button = ButtonRole(rawValue: words[1]) else { throw CLIError("\(at): \"\(DisplayText.escaped(words[1]))\" is not a button (lock, stop, up, down)") }
            guard words[2] == "down" || words[2] == "up" else { throw CLIError("\(at): \"\(DisplayText.escaped(words[2]))\" is not down or up") }
            guard presses.count < maximumPresses else { throw CLIError("\(at): more than \(maximumPresses) button edges in one script") }
            if let last = presses.last, ms < last.atMs { throw CLIError("\(at): \(ms) ms is before the previous line (\(last.atMs) ms)") }
            presses.append(Press(atMs: ms, button: button, pressed: words[2] == "down"))
        }
        return EventScript(presses: presses)
    }
}

struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Play the box on a virtual clock from a script of button presses.",
        discussion: """
            Each line of the events file is "<ms> <lock|stop|up|down> <down|up>" ('#' starts a comment). \
            After the last line the box's timers run until it is idle. Results are stored in the data \
            directory like a real play.
            """)

    @Option(name: .long, help: "The events file (without it: the box in this terminal, driven by keys).") var events: String?
    @Option(name: .long, help: "Board profile (default: questbox-sim); with no screen the box speaks unless `voice` is off.") var board: String?
    @Option(name: .long, help: "ALSA PCM for the interactive box's sound (default: null; e.g. default to hear it).") var sound: String?
    @Option(name: .long, help: "The wall-clock time at 0 ms (ISO 8601, e.g. 2026-11-23T07:00:00Z); default: now.") var now: String?
    @Flag(name: .long, help: "Print every effect as one JSON line.") var trace = false
    @OptionGroup var options: DataOptions

    /// 2000-01-01T00:00:00Z ..< 2100-01-01T00:00:00Z.
    static let nowRange = Date(timeIntervalSince1970: 946_684_800)..<Date(timeIntervalSince1970: 4_102_444_800)

    func run() throws {
        guard let events else { return try interactive() }
        var start = Date()
        if let now {
            guard let parsed = try? Date(now, strategy: .iso8601) else { throw CLIError("--now: \"\(DisplayText.escaped(now))\" is not an ISO 8601 time (e.g. 2026-11-23T07:00:00Z)") }
            // A quest's days must be ones the store and the calendar keep (#31).
            guard SimulateCommand.nowRange.contains(parsed) else {
                throw CLIError("--now: \"\(DisplayText.escaped(now))\" is outside the years a box plays in (2000–2099)")
            }
            start = parsed
        }
        let bytes = try InputFile.read(events, maximumBytes: EventScript.maximumBytes)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw CLIError("\(events): not UTF-8 text") }
        let script = try EventScript.parse(text, file: events)
        let db = try options.open()
        // A script plays exactly its presses: the weekly reflection (REFL-1), offered by the
        // running box before a week's first quest, would take a lock press meant for the quest.
        let world = try db.loadWorld(calendar: Calendar.current, bootID: "simulate-\(UUID().uuidString.prefix(8))")
        guard !world.routines.isEmpty else {
            throw CLIError("\(options.directory): no routines to play yet — import one first: questbox routine import FILE (deploy/example-routine.json is one)")
        }
        var state = QuestState(world: world)
        // #35: what the box would say on this board (the trace's `speak` lines); nothing is played.
        let profile = try BoardCatalog.resolve(board ?? "questbox-sim", in: BoardCatalog.searchDirectories())
        state.voice.speaks = try db.settings.current().voice.speaks(boardHasScreen: profile.display != nil)
        var sim = QuestSimulator(state: state, wallClockStart: start, ids: .random)
        var printer = EffectPrinter(trace: trace)

        func perform(_ steps: ArraySlice<QuestSimulator.Step>) throws {
            for step in steps {
                for effect in step.effects {
                    // What the player would see is on disk first, as on the box.
                    if case .persist(let request) = effect { try db.plays.apply(request, wallClockTrusted: true) }
                    printer.show(effect, atNanos: step.atNanos)
                }
            }
        }
        sim.start()
        try perform(sim.log[...])
        for press in script.presses {
            let before = sim.log.count
            let t = press.atMs * 1_000_000
            sim.send(.button(press.button, pressed: press.pressed, atNanos: t), at: t)
            try perform(sim.log[before...])
        }
        let before = sim.log.count
        sim.runUntilQuiet()
        try perform(sim.log[before...])
        if !trace { print("simulated \(script.presses.count) button edges; \(CountText.counted(printer.saved, "estimation")) saved") }
    }
}

extension SimulateCommand {
    /// The whole box in this terminal: keys for the buttons, LED and buzzer drawn, screens
    /// printed, sound to the null device; the real event loop on a keyboard "chip".
    func interactive() throws {
        let profile = try BoardCatalog.resolve(board ?? "questbox-sim", in: BoardCatalog.searchDirectories())
        let raw = TerminalMode(fd: STDIN_FILENO)
        defer { raw.restore() }
        let out: (String) -> Void = { line in FileHandle.standardOutput.write(Data((line + (raw.isRaw ? "\r\n" : "\n")).utf8)) }
        let clock = LiveSystemClock()
        let db = try options.open()
        var logger = Logger(label: "questbox")
        logger.logLevel = .warning
        final class Quit: @unchecked Sendable { var daemon: BoxDaemon? }
        let quit = Quit()
        // A terminal gets one view redrawn in place; a pipe gets one line per event.
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        let view = raw.isRaw && isatty(STDOUT_FILENO) == 1 && !term.isEmpty && term != "dumb"
            ? TerminalView(
                title: "simulated box on \(profile.name)", keys: TerminalGPIO.help,
                write: { FileHandle.standardOutput.write(Data($0.utf8)) }, size: Self.terminalSize)
            : nil
        let terminal = TerminalGPIO(profile: profile, clock: clock, view: view, write: out, onQuit: { quit.daemon?.requestShutdown() })
        let output = TerminalOutput(view: view, write: out)
        // The real engine, on the null device unless asked otherwise: the same path as the box.
        let settings = try db.settings.current()
        let audio = EngineSoundOutput.start(
            device: sound ?? "null", card: profile.audioCard, latencyMs: profile.audioLatencyMs,
            soundEnabled: settings.soundEnabled, volumePercent: settings.volumePercent, logger: logger)
        defer { audio.engine.stop() }
        let engine = audio.engine
        // The same socket as the box: `questbox watch` and the web app work without hardware.
        let control = BoxDaemon.ControlOptions(
            socketPath: BoxSocketPath.forDaemon(dataDirectory: options.directory, environment: ProcessInfo.processInfo.environment),
            allowPress: true, soundDevice: { engine.statistics.device })
        // The voice as the box has it (rendered, played on the same engine), and its words noted.
        let voice = RenderedSpeech.espeak(
            engine: engine, choice: settings.voice, cache: PhraseCache(dataDirectory: options.directory), logger: logger)
        let daemon = try BoxDaemon(
            board: try BoardGPIO(profile: profile, backend: terminal), database: db, clock: clock, sound: SoundOutputs([output, audio]),
            speech: SpeechOutputs([output, voice]), display: output,
            calendar: Calendar.current, control: control, logger: logger)
        daemon.offCard = OffCardCopier(database: db, dataFolder: options.directory, logger: logger)
        quit.daemon = daemon
        if let view {
            view.begin()
        } else {
            out(TerminalGPIO.help)
        }
        defer {
            view?.end()
            out("bye")
        }
        try daemon.run(handleSignals: true)
        try db.close()
    }

    /// The terminal's columns and rows now (80×24 when it will not say).
    @Sendable static func terminalSize() -> (columns: Int, rows: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}

/// Raw keyboard input while the interactive box runs (restored on exit); nothing for a pipe.
struct TerminalMode {
    let fd: Int32
    let saved: termios?

    init(fd: Int32) {
        self.fd = fd
        guard isatty(fd) == 1 else {
            saved = nil
            return
        }
        var t = termios()
        guard tcgetattr(fd, &t) == 0 else {
            saved = nil
            return
        }
        saved = t
        var rawMode = t
        rawMode.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        _ = tcsetattr(fd, TCSANOW, &rawMode)
    }

    var isRaw: Bool { saved != nil }

    func restore() {
        guard var t = saved else { return }
        _ = tcsetattr(fd, TCSANOW, &t)
    }
}

/// Human lines, or one flat JSON object per effect with `--trace`.
struct EffectPrinter {
    let trace: Bool
    var saved = 0

    mutating func show(_ effect: QuestEffect, atNanos t: Int64) {
        if case .persist(.estimationCompleted) = effect { saved += 1 }
        if trace {
            var line = TraceLine.fields(for: effect)
            line["atMs"] = .number(Double(t / 1_000_000))
            print(TraceLine.json(line))
            return
        }
        if case .speak(let words, _) = effect {
            print(String(format: "%9.3fs", Double(t) / 1e9) + " 🗣 " + DisplayText.escaped(words))
        }
        if case .display(let screen) = effect {
            let stamp = String(format: "%9.3fs", Double(t) / 1e9)
            for (i, text) in screen.textLines.enumerated() { print("\(i == 0 ? stamp : String(repeating: " ", count: 10)) │ \(DisplayText.escaped(text))") }
        }
    }
}

/// The `--trace` format: flat JSON objects with an "effect" kind.
enum TraceLine {
    enum Value {
        case string(String), number(Double), bool(Bool), strings([String])
    }

    static func fields(for effect: QuestEffect) -> [String: Value] {
        switch effect {
        case .playSound(let s): return ["effect": .string("sound"), "sound": .string(s.rawValue)]
        case .led(let p):
            var f: [String: Value] = ["effect": .string("led"), "pattern": .string(patternName(p))]
            if case .reveal(let r) = p { f["rating"] = .string(r.rawValue) }
            if case .questNumber(let n, let color, _) = p { f["quest"] = .number(Double(n)); f["color"] = .string(color.rawValue) }
            if case .claim(let holding) = p { f["holding"] = .bool(holding) }
            return f
        case .buzzer(let p):
            var f: [String: Value] = ["effect": .string("buzzer")]
            switch p {
            case .tap: f["pattern"] = .string("tap")
            case .celebration: f["pattern"] = .string("celebration")
            case .reveal(let r): f["pattern"] = .string("reveal"); f["rating"] = .string(r.rawValue)
            case .readBack(let s): f["pattern"] = .string("readBack"); f["seconds"] = .number(Double(s))
            case .questNumber(let n): f["pattern"] = .string("questNumber"); f["quest"] = .number(Double(n))
            case .claim: f["pattern"] = .string("claim")
            }
            return f
        case .display(let screen):
            return ["effect": .string("display"), "screen": .string(screen.kind), "lines": .strings(screen.textLines)]
        case .persist(let r):
            var f: [String: Value] = ["effect": .string("persist"), "kind": .string(r.kind)]
            switch r {
            case .sessionStarted(let s): f["session"] = .string(s.id.uuidString)
            case .taskStarted(let t):
                f["taskIndex"] = .number(Double(t.taskIndex))
                f["estimatedSeconds"] = .number(Double(t.estimatedSeconds))
                f["lockMonotonicNanos"] = .number(Double(t.lockMonotonicNanos))
            case .estimationCompleted(let e):
                f["task"] = .string(e.taskDisplayName)
                f["estimatedSeconds"] = .number(e.estimatedSeconds)
                f["actualSeconds"] = .number(e.actualSeconds)
                f["rating"] = .string(e.rating.rawValue)
                f["xp"] = .number(Double(e.xpEarned))
            case .sessionCompleted(let s): f["sessionXP"] = .number(Double(s.xpEarned))
            case .sessionPaused(let s):
                f["session"] = .string(s.id.uuidString)
                f["sessionXP"] = .number(Double(s.xpEarned))
            case .sessionResumed(let s): f["session"] = .string(s.id.uuidString)
            case .sessionAbandoned, .inProgressCleared: break
            case .reflectionDismissed(let w): f["week"] = .string(w)
            case .reminderSounded(_, let name, _): f["routine"] = .string(name)
            case .soundMuted(let muted): f["muted"] = .bool(muted)
            }
            return f
        case .scheduleTimer(let timer, let at):
            return ["effect": .string("timer"), "action": .string("schedule"), "timer": .string(timerName(timer)), "dueMs": .number(Double(at / 1_000_000))]
        case .cancelTimer(let timer):
            return ["effect": .string("timer"), "action": .string("cancel"), "timer": .string(timerName(timer))]
        case .readButton(let role):
            return ["effect": .string("readButton"), "button": .string(role.rawValue)]
        case .claimChanged(let update):
            var f: [String: Value] = ["effect": .string("claim"), "claim": .string(update.id), "progress": .string(update.progress.rawValue)]
            if let reason = update.reason { f["reason"] = .string(reason.rawValue) }
            return f
        case .speak(let words, let until):
            var f: [String: Value] = ["effect": .string("speak"), "text": .string(words)]
            if let until { f["untilMs"] = .number(Double(until / 1_000_000)) }
            return f
        case .cutSpeech:
            return ["effect": .string("speechCut")]
        }
    }

    static func patternName(_ p: LEDPattern) -> String {
        switch p {
        case .off: "off"
        case .questAvailable: "questAvailable"
        case .estimating: "estimating"
        case .active: "active"
        case .reveal: "reveal"
        case .celebration: "celebration"
        case .reminder: "reminder"
        case .reflection: "reflection"
        case .questNumber: "questNumber"
        case .claim: "claim"
        }
    }

    static func timerName(_ t: QuestTimer) -> String {
        switch t {
        case .debounce(let r): "debounce.\(r.rawValue)"
        case .holdRepeat(let r): "holdRepeat.\(r.rawValue)"
        case .abandonHold: "abandonHold"
        case .taskLimit: "taskLimit"
        case .revealTimeout: "revealTimeout"
        case .summaryTimeout: "summaryTimeout"
        case .reflectionTimeout: "reflectionTimeout"
        case .noteTimeout: "noteTimeout"
        case .buttonCheckLimit: "buttonCheckLimit"
        case .claimHold: "claimHold"
        case .claimLimit: "claimLimit"
        case .walkAway: "walkAway"
        case .muteHold: "muteHold"
        case .voiceSettle: "voiceSettle"
        case .pairingLimit: "pairingLimit"
        case .noticeExpiry: "noticeExpiry"
        case .introTimeout: "introTimeout"
        }
    }

    static func json(_ fields: [String: Value]) -> String {
        func quote(_ s: String) -> String {
            var out = "\""
            for ch in s.unicodeScalars {
                switch ch {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\t": out += "\\t"
                default: out += ch.value < 0x20 ? String(format: "\\u%04x", ch.value) : String(ch)
                }
            }
            return out + "\""
        }
        func render(_ v: Value) -> String {
            switch v {
            case .string(let s): quote(s)
            case .number(let d): d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
            case .bool(let b): b ? "true" : "false"
            case .strings(let list): "[" + list.map(quote).joined(separator: ",") + "]"
            }
        }
        // "atMs" and "effect" first, then the rest in order: easy to read and to grep.
        let order = ["atMs", "effect"] + fields.keys.filter { $0 != "atMs" && $0 != "effect" }.sorted()
        return "{" + order.compactMap { k in fields[k].map { quote(k) + ":" + render($0) } }.joined(separator: ",") + "}"
    }
}
