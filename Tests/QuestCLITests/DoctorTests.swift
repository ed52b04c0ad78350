import BoardProfile
import BoxProtocol
import Display
import Foundation
import GPIO
@testable import QuestCLI
import QuestCore
@testable import QuestStore
import ScreenRender
import TestSupport
import Testing

@Suite("questbox doctor")
struct DoctorTests {
    let boards = "\(packageRoot)/Boards"

    func simChip() -> FakeGPIO {
        FakeGPIO(chips: [.init(path: "/dev/gpiochip1", label: "questbox", lines: ["BTN_LOCK", "BTN_STOP", "BTN_UP", "BTN_DOWN", "LED_RED", "LED_GREEN", "LED_BLUE", "BUZZER"])])
    }

    func doctor(
        _ gpio: FakeGPIO, chips: [String] = ["/dev/gpiochip1"], writable: Bool = true, cards: [String] = ["Loopback"], trusted: Bool = true,
        soundProblems: [String] = [], display: @escaping (DisplayConfig) throws -> String = { _ in "a screen" }
    ) -> Doctor {
        Doctor(
            gpio: gpio, chipPaths: { chips }, canReadWrite: { _ in writable }, soundCards: { cards }, soundFileProblems: { soundProblems },
            clockTrusted: { trusted }, now: { Date() }, checkDisplay: display)
    }

    @Test("#14: display test names what is missing in one line and exits 1: no display section, no adapter, a bad pause")
    func displayTestRefusals() throws {
        let questbox = productPath("questbox")
        let plain = try runProcess(questbox, ["display", "test", "--board", "questbox-sim"])
        #expect(plain.status == 1 && plain.stderr == "questbox: board questbox-sim has no display: add a display: section to its profile (see Boards/README.md)\n", "\(plain)")
        // This machine has no SMBus stub adapter (the HIL loads one in its VM and draws on it).
        let oled = try runProcess(questbox, ["display", "test", "--board", "questbox-sim-oled", "--pause", "0"])
        #expect(oled.status == 1 && oled.stderr.hasPrefix("questbox: display: no I2C adapter named \"SMBus stub driver\" ("), "\(oled)")
        #expect(oled.stderr.split(separator: "\n").count == 1)
        let pause = try runProcess(questbox, ["display", "test", "--board", "questbox-sim-oled", "--pause", "99"])
        #expect(pause.status != 0 && pause.stderr.contains("--pause 99.0 is not 0 to 60 seconds"), "\(pause)")
    }

    @Test("#14: display render draws a screen from a watch --json line as the committed frame; bad input is one line")
    func displayRender() throws {
        let questbox = productPath("questbox")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("render-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frames = "\(packageRoot)/Tests/ScreenRenderTests/Frames"
        for (name, screen) in ScreenSamples.tour {
            var line = BoxMessage(type: "event")
            line.event = "screen"
            line.screen = ScreenPayload(screen)
            try JSONEncoder().encode(line).write(to: URL(fileURLWithPath: "\(dir)/\(name).json"))
            let drawn = try runProcess(questbox, ["display", "render", "\(dir)/\(name).json", "--to", "\(dir)/\(name).pbm"])
            #expect(drawn.status == 0 && drawn.stdout == "\(ScreenPayload(screen).kind) screen drawn to \(dir)/\(name).pbm\n", "\(drawn)")
            let got = try MonoFrame(pbm: String(contentsOfFile: "\(dir)/\(name).pbm", encoding: .utf8))
            let want = try MonoFrame(pbm: String(contentsOfFile: "\(frames)/\(name).pbm", encoding: .utf8))
            #expect(got == want, "\(name)")
        }
        // The screen object on its own, to standard output.
        try JSONEncoder().encode(ScreenPayload(ScreenSamples.active)).write(to: URL(fileURLWithPath: "\(dir)/bare.json"))
        let bare = try runProcess(questbox, ["display", "render", "\(dir)/bare.json"])
        #expect(try bare.status == 0 && MonoFrame(pbm: bare.stdout) == ScreenRenderer.render(ScreenSamples.active))

        let cases: [(String, String)] = [
            ("xx", "not a JSON object"),
            ("[1]", "not a JSON object"),
            (#"{"kind": "nope"}"#, "kind: unknown screen nope"),
            (#"{"type": "event", "screen": {"kind": "idle"}}"#, "screen.quests: missing (not a screen as questbox watch --json prints it)"),
        ]
        for (text, problem) in cases {
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(dir)/bad.json"))
            let bad = try runProcess(questbox, ["display", "render", "\(dir)/bad.json"])
            #expect(bad.status == 1 && bad.stderr == "questbox: \(dir)/bad.json: \(problem)\n", "\(text): \(bad)")
        }
        let special = try runProcess(questbox, ["display", "render", "/dev/zero"])
        #expect(special.status == 1 && special.stderr == "questbox: /dev/zero: not a regular file\n", "\(special)")
    }

    @Test("#14: the board's screen is checked when it has one; a missing screen warns (the box plays without it)")
    func display() throws {
        let db = try database()
        let plain = doctor(simChip(), display: { _ in Issue.record("a board without a screen had it checked"); return "" })
            .run(board: "questbox-sim", boardDirectories: [boards], databasePath: db)
        #expect(!plain.contains { $0.text.hasPrefix("display") })

        var asked: DisplayConfig?
        let found = doctor(simChip(), display: { asked = $0; return "ssd1306 128×64 at 0x3c on /dev/i2c-9" })
            .run(board: "questbox-sim-oled", boardDirectories: [boards], databasePath: db)
        #expect(found.contains(Doctor.Finding(level: .ok, text: "display ssd1306 128×64 at 0x3c on /dev/i2c-9 answers")))
        #expect(asked?.i2cBus == .named("SMBus stub driver") && asked?.address == 0x3C)

        let missing = doctor(simChip(), display: { _ in throw DisplayError("/dev/i2c-9: no device answers at 0x3c (check the wiring)") })
            .run(board: "questbox-sim-oled", boardDirectories: [boards], databasePath: db)
        #expect(missing.contains(Doctor.Finding(
            level: .warn,
            text: "display: /dev/i2c-9: no device answers at 0x3c (check the wiring) — the box runs without its screen; `questbox display test` tries it")))
        #expect(!missing.contains { $0.level == .fail })
    }

    func database() throws -> String {
        let (db, dir) = try freshDatabase()
        try db.backups.make(now: Date())
        try db.close()
        return (dir as NSString).appendingPathComponent("questbox.sqlite")
    }

    @Test("doctor reports the totals derived from the history, finds a quest whose stored XP disagrees; repair fixes it")
    func totalsAgainstHistory() throws {
        let (db, dir) = try freshDatabase()
        try recordQuest(db, at: Date(timeIntervalSince1970: 1_780_000_000), durations: [(120, 118), (60, 200)])
        try db.backups.make(now: Date())
        let path = (dir as NSString).appendingPathComponent("questbox.sqlite")
        let healthy = doctor(simChip()).run(board: "questbox-sim", boardDirectories: [boards], databasePath: path)
        #expect(healthy.contains { $0.level == .ok && $0.text == "totals from the history: 1 quests, 130 XP, level 1" })

        try db.pool.write { try $0.execute(sql: "UPDATE session SET xpEarned = 5000") }
        let edited = doctor(simChip()).run(board: "questbox-sim", boardDirectories: [boards], databasePath: path)
        #expect(edited.contains { $0.level == .warn && $0.text.hasPrefix("1 completed quest stores XP that is not their estimations' plus the completion bonus") && $0.text.hasSuffix("run `questbox repair` to recompute it from the estimations") })

        let questbox = productPath("questbox")
        let repair = try runProcess(questbox, ["repair", "--data", dir])
        #expect(repair.status == 0 && repair.stdout.hasPrefix("recomputed the XP of 1 quest from their estimations; the data before is saved as "), "\(repair)")
        #expect(try db.profile().totalXP == 130)
        #expect(try runProcess(questbox, ["repair", "--data", dir]).stdout == "nothing to repair\n")
    }

    @Test("a healthy simulated box: every line found, nothing to fix")
    func healthy() throws {
        let findings = doctor(simChip()).run(board: "questbox-sim", boardDirectories: [boards], databasePath: try database())
        #expect(findings.allSatisfy { $0.level == .ok }, "\(findings.map(\.line))")
        #expect(findings.filter { $0.text.hasPrefix("line ") }.count == 8)
        #expect(findings.contains { $0.text == "line lock = BTN_LOCK on /dev/gpiochip1 (questbox) line 0" })
        // Which libgpiod drives the lines (v1 on bookworm, v2 on trixie) is said, not guessed.
        #expect(findings.contains { $0.text == "GPIO chips gpiochip1 readable and writable, through FakeGPIO (in memory)" })
        #expect(LiveGPIO().library.hasPrefix("libgpiod ") && LiveGPIO().library.hasSuffix(" API)"))
    }

    @Test("each problem is one line with what to do; fatal ones fail, the rest warn")
    func problems() throws {
        let db = try database()
        let noChips = doctor(simChip(), chips: []).run(board: "questbox-sim", boardDirectories: [boards], databasePath: db)
        #expect(noChips.contains { $0.level == .fail && $0.text.hasPrefix("no GPIO chips (/dev/gpiochip*) — ") })

        let locked = doctor(simChip(), writable: false).run(board: "questbox-sim", boardDirectories: [boards], databasePath: db)
        #expect(locked.contains { $0.level == .fail && $0.text.contains("add the user to the gpio group") })

        let missing = simChip()
        missing.chips[0].lines[7] = "BUZZ"
        let m = doctor(missing).run(board: "questbox-sim", boardDirectories: [boards], databasePath: db)
        #expect(m.contains { $0.level == .fail && $0.text.hasPrefix("line buzzer: line BUZZER not found (searched gpiochip1 (questbox))") })

        let busy = simChip()
        busy.heldByOthers["/dev/gpiochip1:1"] = "gpiomon"
        let b = doctor(busy).run(board: "questbox-sim", boardDirectories: [boards], databasePath: db)
        #expect(b.contains { $0.level == .fail && $0.text.hasPrefix("line stop = BTN_STOP on /dev/gpiochip1 line 1 is busy, held by gpiomon") })

        let quiet = doctor(simChip(), cards: ["Headphones"], trusted: false).run(board: "questbox-sim", boardDirectories: [boards], databasePath: db)
        #expect(quiet.filter { $0.level == .warn }.count == 2)
        #expect(!quiet.contains { $0.level == .fail })

        let badSound = doctor(simChip(), soundProblems: ["/etc/questbox/sounds/stop.wav: 8-bit samples, expected 16-bit"])
            .run(board: "questbox-sim", boardDirectories: [boards], databasePath: db)
        #expect(badSound.contains { $0.level == .warn && $0.text.hasPrefix("sound file /etc/questbox/sounds/stop.wav: 8-bit samples, expected 16-bit — ") })
        #expect(!badSound.contains { $0.level == .fail })

        let noBoard = doctor(simChip()).run(board: nil, boardDirectories: [boards], databasePath: db)
        #expect(noBoard.first?.level == .fail && noBoard.first?.text.contains("questbox settings set board NAME") == true)
        for f in noChips + locked + m + b + quiet + badSound + noBoard { #expect(!f.line.contains("\n")) }
    }

    @Test("a damaged database is a failure that points at restore")
    func damagedDatabase() throws {
        let dir = temporaryDirectory()
        let path = (dir as NSString).appendingPathComponent("questbox.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x41, count: 4096)))
        let findings = doctor(simChip()).run(board: "questbox-sim", boardDirectories: [boards], databasePath: path)
        #expect(findings.contains { $0.level == .fail && $0.text.contains("not a TimeQuest database") && $0.text.contains("questbox restore") })
    }

    @Test("run without the board's chip fails with one line naming the line and what was searched",
          .enabled(if: Doctor.systemChipPaths().isEmpty, "this machine has GPIO chips: the test needs none"))
    func runWithoutChip() throws {
        let dir = temporaryDirectory()
        let r = try runProcess(productPath("questbox"), ["run", "--board", "\(boards)/questbox-sim.yaml", "--data", dir])
        #expect(r.status != 0)
        #expect(r.stderr.hasSuffix("questbox: board questbox-sim: lock: line BTN_LOCK not found (searched no chip with that label) (run `questbox doctor --board \(boards)/questbox-sim.yaml`)\n"))
    }

    /// `questbox run` in the background with its log in a file (read while it runs).
    func startBox(_ dir: String, environment: [String: String]) throws -> (Process, String) {
        let log = (temporaryDirectory() as NSString).appendingPathComponent("box.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let box = Process()
        box.executableURL = URL(fileURLWithPath: productPath("questbox"))
        box.arguments = ["run", "--data", dir]
        box.environment = environment
        box.standardOutput = FileHandle.nullDevice
        box.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try box.run()
        return (box, log)
    }

    func waitFor(_ what: String, in log: String, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains(what) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    @Test("#32: run with no board (none, or the package's empty QUESTBOX_BOARD) stays up and says so; doctor says so; the board chosen later starts it, with no restart")
    func runWithNoBoard() throws {
        let dir = temporaryDirectory()
        let environment = ["PATH": "/usr/bin:/bin", "QUESTBOX_BOARD": "", "QUESTBOX_BOARDS": boards]
        let (box, log) = try startBox(dir, environment: environment)
        defer { if box.isRunning { box.terminate() } }
        #expect(waitFor("no board chosen: the box waits for one", in: log), "\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(box.isRunning, "a box with no board stays up")
        #expect(FileManager.default.fileExists(atPath: dir + "/questbox.sqlite"), "the store is made at once, as on a fresh install")
        let doctor = try runProcess(productPath("questbox"), ["doctor", "--data", dir], environment: environment)
        #expect(doctor.status == 1 && doctor.stdout.contains("no board chosen yet: the box waits for one"), "\(doctor)")
        // A name that is no profile is refused in one line, and the box goes on waiting.
        let wrong = try runProcess(productPath("questbox"), ["settings", "set", "board", "../etc/passwd", "--data", dir], environment: environment)
        #expect(wrong.status == 1 && wrong.stderr.contains("board: \"../etc/passwd\" is not allowed"), "\(wrong)")
        #expect(box.isRunning)
        // The parent chooses the board (here from the CLI; the web app writes the same
        // setting): the waiting box starts with it.
        let set = try runProcess(productPath("questbox"), ["settings", "set", "board", "questbox-sim", "--data", dir], environment: environment)
        #expect(set.status == 0, "\(set)")
        #expect(waitFor("board chosen, starting", in: log), "\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        let started = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        // Without gpio-sim here it stops at the chip; in the VM it plays (the HIL scenarios).
        #expect(started.contains("questbox-sim"))
        let after = try runProcess(productPath("questbox"), ["doctor", "--data", dir], environment: environment)
        #expect(after.stdout.contains("board profile questbox-sim"), "doctor now checks the chosen board: \(after)")
    }

    @Test("#32: SIGTERM while the box waits for a board stops it cleanly (exit 0)")
    func stopWhileWaiting() throws {
        let dir = temporaryDirectory()
        let (box, log) = try startBox(dir, environment: ["PATH": "/usr/bin:/bin", "QUESTBOX_BOARDS": boards])
        #expect(waitFor("no board chosen: the box waits for one", in: log))
        box.terminate()
        box.waitUntilExit()
        #expect(box.terminationStatus == 0)
        #expect(waitFor("stopped while waiting for a board", in: log, seconds: 1))
    }

    @Test("board and sound: the option, else the variable; an empty variable (the package's defaults file) is not a choice")
    func chosenBoardAndSound() {
        #expect(RunCommand.chosen("rpi5", orVariable: "QUESTBOX_BOARD", environment: ["QUESTBOX_BOARD": "rpi4"]) == "rpi5")
        #expect(RunCommand.chosen(nil, orVariable: "QUESTBOX_BOARD", environment: ["QUESTBOX_BOARD": "rpi4"]) == "rpi4")
        #expect(RunCommand.chosen(nil, orVariable: "QUESTBOX_SOUND", environment: ["QUESTBOX_SOUND": ""]) == nil)
        #expect(RunCommand.chosen(nil, orVariable: "QUESTBOX_SOUND", environment: [:]) == nil)
        #expect(RunCommand.chosen("", orVariable: "QUESTBOX_SOUND", environment: ["QUESTBOX_SOUND": "null"]) == nil)
    }

    @Test("on this machine, with no GPIO chip, doctor says so and exits ≠ 0",
          .enabled(if: Doctor.systemChipPaths().isEmpty, "this machine has GPIO chips: the test needs none"))
    func noChipMachine() throws {
        let dir = temporaryDirectory()
        let r = try runProcess(productPath("questbox"), ["doctor", "--board", "\(boards)/questbox-sim.yaml", "--data", dir])
        #expect(r.status != 0)
        #expect(r.stdout.contains("FAIL  no GPIO chips (/dev/gpiochip*) — "))
        #expect(r.stdout.hasSuffix("the box cannot run: 1 problem above\n"))
        #expect(r.stderr.isEmpty)
    }
}
