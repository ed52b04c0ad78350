import Foundation
import QuestCore
import TestSupport
import Testing
@testable import QuestStore

/// #31: the store holds the PIN's hash, so it and its backups are the owner's alone; what is
/// not a database file is refused in one line; writers opening it at once take turns.
@Suite("The store's files (#31)")
struct StoreFilesTests {
    let questbox = productPath("questbox")

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0o7777
    }

    /// The CLI under umask 000: nothing it creates may follow the umask.
    func runLoose(_ args: [String]) throws -> ProcessResult {
        try runProcess("/bin/sh", ["-c", "umask 000; exec \"$0\" \"$@\"", questbox] + args)
    }

    @Test("the database, its WAL and shared memory and every backup are 0600 and the backups folder 0700 whatever the umask; a store made 0644 before is made private")
    func privateFiles() throws {
        let dir = temporaryDirectory()
        let data = (dir as NSString).appendingPathComponent("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let routine = (dir as NSString).appendingPathComponent("r.json")
        _ = FileManager.default.createFile(atPath: routine, contents: Data(#"{"name": "m", "activeDays": [1,2,3,4,5,6,7], "tasks": [{"name": "t"}]}"#.utf8))
        let imported = try runLoose(["routine", "import", routine, "--data", data])
        #expect(imported.status == 0, "\(imported.stderr)")
        let db = (data as NSString).appendingPathComponent("questbox.sqlite")
        #expect(Self.mode(db) == 0o600)
        let backup = try runLoose(["backup", "--data", data])
        #expect(backup.status == 0, "\(backup.stderr)")
        let made = try FileManager.default.contentsOfDirectory(atPath: data + "/backups").filter { $0.hasSuffix(".sqlite") }
        #expect(made.count == 1 && made.allSatisfy { Self.mode(data + "/backups/" + $0) == 0o600 }, "\(made)")
        #expect(Self.mode(data + "/backups") == 0o700, "#47: the backups folder is the owner's alone (umask 000)")
        let to = (dir as NSString).appendingPathComponent("copy.sqlite")
        #expect(try runLoose(["backup", "--to", to, "--data", data]).status == 0)
        #expect(Self.mode(to) == 0o600)
        // An open writer's WAL and shared memory follow the database's mode.
        let store = try QuestDatabase(path: db)
        try store.parentPIN.setPIN("246802")
        #expect(Self.mode(db + "-wal") == 0o600 && Self.mode(db + "-shm") == 0o600)
        try store.close()
        // A store from before: 0644 on disk, private once a writer opens it.
        chmod(db, 0o644)
        _ = try QuestDatabase(path: db)
        #expect(Self.mode(db) == 0o600)
    }

    @Test("a FIFO, a directory or a device named questbox.sqlite is one line naming it, never a hang, for readers and writers")
    func specialFiles() throws {
        let dir = temporaryDirectory()
        let fifo = (dir as NSString).appendingPathComponent("fifo")
        try FileManager.default.createDirectory(atPath: fifo, withIntermediateDirectories: true)
        #expect(mkfifo(fifo + "/questbox.sqlite", 0o600) == 0)
        let folder = (dir as NSString).appendingPathComponent("folder")
        try FileManager.default.createDirectory(atPath: folder + "/questbox.sqlite", withIntermediateDirectories: true)
        let device = (dir as NSString).appendingPathComponent("device")
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        #expect(symlink("/dev/null", device + "/questbox.sqlite") == 0)
        for (data, kind) in [(fifo, "a FIFO"), (folder, "a directory"), (device, "a device")] {
            let path = data + "/questbox.sqlite"
            let expected = "\(path): is \(kind), not the box's database file; move it away or choose another --data folder"
            #expect(throws: StoreError.io(expected)) { _ = try QuestDatabase(path: path) }
            #expect(throws: StoreError.io(expected)) { _ = try QuestDatabase(path: path, access: .readOnly) }
            for command in [["stats"], ["history"], ["backup"], ["settings", "set", "hints", "false"]] {
                let started = Date()
                let result = try runProcess(questbox, command + ["--data", data])
                #expect(result.status != 0 && result.stderr.contains(expected), "\(command): \(result.stderr)")
                #expect(Date().timeIntervalSince(started) < 20, "\(command) hung")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(command): \(result.stderr)")
            }
        }
    }

    @Test("backups of the same second are named as a series, none replaced: …-manual.sqlite, …-manual-2.sqlite, …-manual-3.sqlite")
    func sameSecondSeries() throws {
        let (db, _) = try freshDatabase()
        let now = Date(timeIntervalSince1970: 1_780_000_000)
        let names = try (0..<3).map { _ in try db.backups.make(now: now).fileName }
        let base = "questbox-\(BackupStore.stamp(now))-manual"
        #expect(names == [base + ".sqlite", base + "-2.sqlite", base + "-3.sqlite"])
    }

    @Test("eight `questbox backup` started at once (the same second) each write their own whole backup")
    func concurrentBackups() throws {
        let dir = temporaryDirectory()
        let data = (dir as NSString).appendingPathComponent("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let db = try QuestDatabase(path: DataDirectory.databasePath(in: data))
        try recordQuest(db, at: Date(timeIntervalSince1970: 1_780_000_000), durations: [(120, 118)])
        try db.close()
        let processes = (0..<8).map { _ -> Process in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: questbox)
            p.arguments = ["backup", "--data", data]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            return p
        }
        for p in processes { try p.run() }
        for p in processes { p.waitUntilExit() }
        #expect(processes.allSatisfy { $0.terminationStatus == 0 }, "\(processes.map(\.terminationStatus))")
        let files = try FileManager.default.contentsOfDirectory(atPath: data + "/backups")
        #expect(files.filter { $0.hasSuffix(".sqlite") }.count == 8, "\(files)")
        #expect(!files.contains { $0.hasSuffix(".partial") })
        for file in files where file.hasSuffix(".sqlite") { try QuestDatabase.validate(path: data + "/backups/" + file) }
        #expect(try QuestDatabase(path: DataDirectory.databasePath(in: data)).backups.all().count == 8)
    }
}

/// #31: what a file says reaches the terminal escaped: a control character in a routine's
/// unknown key, a board's name or description, an unknown YAML key or a file's name never
/// acts on the terminal.
@Suite("file content on the terminal (#31)")
struct TerminalEscapeTests {
    let questbox = productPath("questbox")

    static func acts(_ text: String) -> Bool { text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 } }

    @Test("routine import, boards validate|list|wiring: ESC and BEL from a file show as \\u{1B}, never raw")
    func escapes() throws {
        let dir = temporaryDirectory()
        let routine = (dir as NSString).appendingPathComponent("r.json")
        _ = FileManager.default.createFile(atPath: routine, contents: Data(#"{"name": "m", "activeDays": [1], "tasks": [{"name": "t"}], "\u001b[2Jevil\u0007": 1}"#.utf8))
        let imported = try runProcess(questbox, ["routine", "import", routine, "--data", dir + "/data"])
        #expect(imported.status != 0 && !Self.acts(imported.stderr) && imported.stderr.contains("\\u{1B}[2Jevil\\u{7}"), "\(imported.stderr)")
        let named = (dir as NSString).appendingPathComponent("x\u{1B}[2J.json")
        let missing = try runProcess(questbox, ["routine", "import", named, "--data", dir + "/data"])
        #expect(missing.status != 0 && !Self.acts(missing.stderr), "\(missing.stderr)")

        let boards = (dir as NSString).appendingPathComponent("boards")
        try FileManager.default.createDirectory(atPath: boards, withIntermediateDirectories: true)
        let source = checkoutRoot + "/Boards/questbox-sim.yaml"
        var yaml = try String(contentsOfFile: source, encoding: .utf8)
        yaml = yaml.replacingOccurrences(of: "name: questbox-sim", with: "name: \"sim\\e[2J\"")
            .replacingOccurrences(of: "description: gpio-sim chip", with: "description: \"\\a\\e]0;pwned\\agpio-sim\" #")
        let board = (boards as NSString).appendingPathComponent("hostile.yaml")
        _ = FileManager.default.createFile(atPath: board, contents: Data(yaml.utf8))
        let validated = try runProcess(questbox, ["boards", "validate", board])
        #expect(!Self.acts(validated.stdout + validated.stderr), "\(validated.stdout)\(validated.stderr)")
        let listed = try runProcess(questbox, ["boards", "list"], environment: ProcessInfo.processInfo.environment.merging(["QUESTBOX_BOARDS": boards]) { $1 })
        #expect(listed.stdout.contains("hostile") && !Self.acts(listed.stdout + listed.stderr), "\(listed.stdout)")
        let unknown = (boards as NSString).appendingPathComponent("unknown.yaml")
        _ = FileManager.default.createFile(atPath: unknown, contents: Data((yaml + "\"\\e[2Jkey\": 1\n").utf8))
        let refused = try runProcess(questbox, ["boards", "validate", unknown])
        #expect(refused.status != 0 && !Self.acts(refused.stderr), "\(refused.stderr)")
        let wiring = try runProcess(questbox, ["boards", "wiring", board, "--to", dir + "/w.svg"])
        #expect(!Self.acts(wiring.stdout + wiring.stderr), "\(wiring.stdout)\(wiring.stderr)")
    }
}

/// #31: a date the store could not read back is refused at input, never stored.
@Suite("dates at input (#31)")
struct DateBoundsTests {
    let questbox = productPath("questbox")

    @Test("simulate --now far in the future or the past is one line and stores nothing; the store refuses such a wall time from any writer")
    func outOfRange() throws {
        let dir = temporaryDirectory()
        let data = (dir as NSString).appendingPathComponent("data")
        let repo = checkoutRoot
        #expect(try runProcess(questbox, ["routine", "import", repo + "/deploy/example-routine.json", "--data", data]).status == 0)
        for now in ["99999-01-01T07:00:00Z", "0001-01-01T07:00:00Z", "1900-06-01T07:00:00Z", "2100-01-01T00:00:00Z"] {
            let result = try runProcess(questbox, ["simulate", "--events", repo + "/deploy/example-quest.events", "--now", now, "--data", data])
            #expect(result.status != 0 && result.stderr.hasPrefix("questbox: --now: ") && result.stderr.split(separator: "\n").count == 1, "\(now): \(result.stderr)")
        }
        let db = try QuestDatabase(path: DataDirectory.databasePath(in: data))
        #expect(try db.plays.sessions().isEmpty)
        let far = Date(timeIntervalSince1970: 3e12)
        let session = GameSession(id: UUID(), routineID: UUID(), routineDisplayName: "x", startedAt: far, startedMonotonicNanos: 0, bootID: "b", isCalibration: false)
        #expect(throws: StoreError.self) { try db.plays.apply(.sessionStarted(session), wallClockTrusted: true) }
        do {
            try db.plays.apply(.sessionStarted(session), wallClockTrusted: true)
        } catch {
            #expect(PlayStore.isRefusal(error), "a box would retry it for ever: \(error)")
        }
        let ok = try runProcess(questbox, ["simulate", "--events", repo + "/deploy/example-quest.events", "--now", "2026-11-23T07:00:00Z", "--data", data])
        #expect(ok.status == 0, "\(ok.stderr)")
    }
}

/// #31: one name rule for every way a name comes in.
@Suite("one name rule (#31)")
struct NameRuleTests {
    let questbox = productPath("questbox")

    @Test("control and invisible characters and names of only spaces are refused; letters, accents, scripts and emoji (with their joiners) are names")
    func rule() {
        for bad in ["a\u{1B}[2J", "bell\u{7}", "\u{61C}x", "x\u{FEFF}", "a\u{FFF9}b", "flag\u{E0067}", "\u{3164}", "\u{115F}\u{1160}", "\u{FFA0}", " \u{3000} "] {
            #expect(DisplayText.nameProblem(bad) != nil, "\(bad.unicodeScalars.map { DisplayText.codePoint($0) })")
        }
        for good in ["Morning Quest", "Zoë's Quest", "歯磨き", "Зубы", "👩‍👧 Family", "❤️ Pack", "Piano"] {
            #expect(DisplayText.nameProblem(good) == nil, "\(good)")
        }
    }

    @Test("import refuses what restore refuses: a backup whose routine name has ESC, or a task name of U+FEFF, is one line and restores nothing")
    func restoreAndImportAgree() throws {
        let dir = temporaryDirectory()
        let data = (dir as NSString).appendingPathComponent("data")
        let file = (dir as NSString).appendingPathComponent("r.json")
        _ = FileManager.default.createFile(atPath: file, contents: Data(#"{"name": "m\ufeff", "activeDays": [1], "tasks": [{"name": "t"}]}"#.utf8))
        let imported = try runProcess(questbox, ["routine", "import", file, "--data", data])
        #expect(imported.status != 0 && imported.stderr.contains("contains the invisible character U+FEFF"), "\(imported.stderr)")
        for (column, value) in [("name", "evil\u{1B}[2J"), ("displayName", "\u{3164}")] {
            let elsewhere = (dir as NSString).appendingPathComponent("elsewhere-\(column)")
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
            let source = try QuestDatabase(path: elsewhere + "/questbox.sqlite")
            try source.routines.save(Routine(id: UUID(), name: "fine", displayName: "Fine", activeDays: [1], tasks: [RoutineTask(id: UUID(), name: "t", displayName: "T")]))
            try source.pool.writeWithoutTransaction { try $0.execute(sql: "UPDATE routine SET \(column) = ?", arguments: [value]) }
            let backup = try source.backups.make(to: elsewhere + "/b.sqlite", now: Date())
            try source.close()
            let restored = try runProcess(questbox, ["restore", backup.path, "--data", data])
            #expect(restored.status != 0 && restored.stderr.contains("nothing was restored") && !restored.stderr.contains("\u{1B}"), "\(restored.stderr)")
            #expect(restored.stderr.contains(backup.path), "names the file: \(restored.stderr)")
        }
        #expect(try QuestDatabase(path: DataDirectory.databasePath(in: data)).routines.all().isEmpty)
    }
}

/// This checkout's folder (the build may be elsewhere: the trixie root builds in /build).
let checkoutRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
