import Foundation
import FuzzTargets
@testable import QuestCLI
@testable import RoutineFormat
import GRDB
import TestSupport
import Testing
@testable import QuestStore

/// Files a person or an attacker hands to the box (issue #11): each one is refused with one
/// line naming the file and what is wrong, exit ≠ 0, nothing stored, no crash and no hang.
/// The cases live as data files in Fixtures/bad-input so no later change can bring one back.
@Suite("bad input: one clear line, nothing lost")
struct BadInputTests {
    let questbox = productPath("questbox")
    static let fixtures = "\(packageRoot)/Tests/QuestCLITests/Fixtures/bad-input"

    static let routineCases: [(file: String, message: String)] = [
        ("routine-duplicate-key.json", "name: not valid JSON: appears twice in one object (line 1, column 21)"),
        ("routine-duplicate-task-key.json", "tasks[0].displayName: not valid JSON: appears twice in one object (line 1, column 98)"),
        ("routine-invalid-utf8.json", "not valid JSON: not UTF-8 text (byte 15 is not valid UTF-8) (line 1, column 15)"),
        ("routine-number-out-of-range.json", "activeDays[0]: not valid JSON: the number 1e400 is out of range (line 1, column 36)"),
        ("routine-escape-in-name.json", "name: contains the control character U+001B (names are plain text on one line)"),
        ("routine-bell-in-name.json", "displayName: contains the control character U+0007 (names are plain text on one line)"),
        ("routine-nul-in-name.json", "name: contains the control character U+0000 (names are plain text on one line)"),
        ("routine-crlf-in-task-name.json", "tasks[0].name: contains the control character U+000D (names are plain text on one line)"),
        ("routine-bidi-override.json", "displayName: contains the control character U+202E (names are plain text on one line)"),
        ("routine-combining-marks.json", "displayName: longer than 320 bytes"),
        ("routine-51-tasks.json", "tasks: 51 tasks, more than a routine may have (50)"),
        ("routine-deep-nesting.json", String(repeating: "[0]", count: 33) + ": not valid JSON: nested deeper than 32 levels (line 1, column 34)"),
    ]

    func data() -> String { (temporaryDirectory() as NSString).appendingPathComponent("data") }

    @Test("every bad routine file is one line naming the file and field; nothing is imported", arguments: routineCases)
    func badRoutines(file: String, message: String) throws {
        let data = data()
        let path = "\(Self.fixtures)/\(file)"
        let run = try runProcess(questbox, ["routine", "import", path, "--data", data])
        #expect(run.status == 1)
        #expect(run.stderr == "questbox: \(path): \(message)\n", "\(run.stderr)")
        #expect(!run.stderr.contains("\u{1B}") && !run.stderr.contains("\u{7}"))
        #expect(try runProcess(questbox, ["routine", "list", "--data", data]).stdout.hasPrefix("no routines yet"))
    }

    @Test("an events file with CRLF line endings plays like LF; times past 31 days and escapes in a line are refused")
    func events() throws {
        let data = data()
        let routine = (temporaryDirectory() as NSString).appendingPathComponent("routine.json")
        #expect(FileManager.default.createFile(atPath: routine, contents: Data(#"{"name": "Daily", "activeDays": [1,2,3,4,5,6,7], "tasks": [{"name": "One"}]}"#.utf8)))
        #expect(try runProcess(questbox, ["routine", "import", routine, "--data", data]).status == 0)
        try skipFirstQuestIntro(data: data)
        let crlf = try runProcess(questbox, ["simulate", "--events", "\(Self.fixtures)/events-crlf.events", "--now", "2026-11-23T07:00:00Z", "--data", data])
        #expect(crlf.status == 0 && crlf.stdout.hasSuffix("simulated 6 button edges; 1 estimation saved\n"), "\(crlf)")

        let overflow = "\(Self.fixtures)/events-time-overflow.events"
        let late = try runProcess(questbox, ["simulate", "--events", overflow, "--data", data])
        #expect(late.status == 1 && late.stderr == "questbox: \(overflow):1: 10000000000000 ms is later than a script may go (2678400000 ms, 31 days)\n", "\(late)")

        let escape = "\(Self.fixtures)/events-escape-in-line.events"
        let escaped = try runProcess(questbox, ["simulate", "--events", escape, "--data", data])
        #expect(escaped.status == 1 && escaped.stderr == "questbox: \(escape):2: \"up\\u{1B}]0;pwned\\u{7}\" is not down or up\n", "\(escaped)")
    }

    @Test("special files and oversized files are refused at once for every file the box reads", .timeLimit(.minutes(1)))
    func specialAndLargeFiles() throws {
        let dir = temporaryDirectory()
        let data = (dir as NSString).appendingPathComponent("data")
        let fifo = (dir as NSString).appendingPathComponent("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        for args in [["routine", "import", fifo], ["simulate", "--events", fifo], ["boards", "validate", fifo], ["restore", fifo]] {
            let run = try runProcess(questbox, args + (args[0] == "boards" ? [] : ["--data", data]))
            #expect(run.status == 1 && run.stderr.hasSuffix("\(fifo): not a regular file\n"), "\(args): \(run.stderr)")
        }
        let big = (dir as NSString).appendingPathComponent("big")
        #expect(FileManager.default.createFile(atPath: big, contents: Data(repeating: 0x20, count: 2 << 20)))
        let cases: [([String], String)] = [
            (["routine", "import", big, "--data", data], "2097152 bytes, more than the 1 MiB such a file may have"),
            (["simulate", "--events", big, "--data", data], "2097152 bytes, more than the 256 KiB such a file may have"),
            (["boards", "validate", big], "2097152 bytes, more than the 64 KiB such a file may have"),
        ]
        for (args, message) in cases {
            let run = try runProcess(questbox, args)
            #expect(run.status == 1 && run.stderr.hasSuffix("\(big): \(message)\n"), "\(args): \(run.stderr)")
        }
    }

    @Test("names already stored with control characters are escaped on every output")
    func storedControlCharacters() throws {
        let dir = temporaryDirectory()
        let db = try QuestDatabase(path: (dir as NSString).appendingPathComponent("questbox.sqlite"))
        var routine = morningRoutine
        routine.name = "Morning\u{1B}[2J"
        routine.displayName = "Quest\u{7}"
        try db.routines.save(routine)
        try recordQuest(db, at: Date(timeIntervalSince1970: 1_780_000_000), durations: [(120, 118)], routine: routine)
        try db.close()
        let list = try runProcess(questbox, ["routine", "list", "--data", dir])
        #expect(list.stdout.hasPrefix("Morning\\u{1B}[2J — \"Quest\\u{7}\""), "\(list.stdout)")
        let history = try runProcess(questbox, ["history", "--data", dir])
        #expect(history.stdout.contains("Quest\\u{7} · Tooth Time"), "\(history.stdout)")
        for output in [list.stdout, history.stdout] { #expect(!output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 7 }) }
    }
}

@Suite("runtime failures are one line a person can act on")
struct RuntimeFailureTests {
    @Test("database errors name the file and say what happened: a full disk, a read-only card, an I/O error, a busy file")
    func databaseErrors() {
        let path = "/var/lib/questbox/questbox.sqlite"
        func explained(_ code: ResultCode) -> String? { QuestDatabase.explain(DatabaseError(resultCode: code, message: "raw"), path: path)?.description }
        #expect(explained(.SQLITE_FULL) == "\(path): the disk is full; nothing was written (free some space on it)")
        #expect(explained(.SQLITE_READONLY)?.hasPrefix("\(path): the database cannot be written (a read-only file, folder or file system") == true)
        #expect(explained(.SQLITE_IOERR) == "\(path): the disk reported an I/O error (raw); see `dmesg`")
        #expect(explained(.SQLITE_BUSY) == "\(path): the database stayed busy (another program holds it); try again")
        #expect(QuestDatabase.explain(CLIError("other"), path: path) == nil)
    }

    @Test("only usage errors point at --help")
    func helpOnlyForUsage() throws {
        let questbox = productPath("questbox")
        let usage = try runProcess(questbox, ["routine", "import"])
        #expect(usage.status != 0 && usage.stderr.hasSuffix("(see questbox --help)\n"), "\(usage.stderr)")
        let dir = temporaryDirectory()
        let runtime = try runProcess(questbox, ["backup", "--to", dir + "/missing/folder/x.sqlite", "--data", dir])
        #expect(runtime.status == 1 && !runtime.stderr.contains("--help") && runtime.stderr.hasPrefix("questbox: \(dir)/missing/folder/x.sqlite: "), "\(runtime.stderr)")
    }
}

@Suite("the fuzz corpus replays without a crash (Tests/Fuzz)")
struct FuzzCorpusTests {
    @Test("every committed fuzz input goes through the three parsers; the good seeds are accepted")
    func replay() throws {
        let corpus = "\(packageRoot)/Tests/Fuzz/corpus"
        let names = try FileManager.default.contentsOfDirectory(atPath: corpus)
        #expect(names.count > 100)
        var accepted: Set<String> = []
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(corpus)/\(name)")))
            if FuzzInput.check(bytes) { accepted.insert(name) }
        }
        #expect(accepted.isSuperset(of: ["routine-example.json", "events-example.events", "board-rpi4.yaml", "board-questbox-sim.yaml"]))
        #expect(!accepted.contains("routine-duplicate-key.json") && !accepted.contains("events-time-overflow.events"))
    }
}
