import Foundation
import QuestCLI
import QuestCore
import RoutineFormat
import TestSupport
import Testing
@testable import QuestStore

@Suite("questbox CLI")
struct CLITests {
    let questbox = productPath("questbox")

    func run(_ args: [String], input: String? = nil) throws -> ProcessResult {
        try runProcess(questbox, args, input: input)
    }

    func write(_ text: String, in dir: String, name: String = "routine.json") -> String {
        let path = (dir as NSString).appendingPathComponent(name)
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    static let sample = """
        [{"name": "School Morning", "displayName": "Morning Quest", "activeDays": [2,3,4,5,6],
          "tasks": [{"name": "Brush teeth", "displayName": "Tooth Time", "referenceDurationSeconds": 120},
                    {"name": "Pack bag", "displayName": "Pack Bag"}]},
         {"name": "Weekend", "displayName": "", "activeDays": [1, 7], "isActive": false, "createdBy": "player",
          "tasks": [{"name": "Tidy room", "displayName": "Tidy"}]}]
        """

    @Test("a live row the box cannot read (bit flip, edited file) is skipped by every command and named by doctor")
    func unreadableLiveRows() throws {
        let dir = temporaryDirectory()
        let data = (dir as NSString).appendingPathComponent("data")
        #expect(try run(["routine", "import", write(Self.sample, in: dir), "--data", data]).status == 0)
        let db = try QuestDatabase(path: DataDirectory.databasePath(in: data))
        try recordQuest(db, at: Date(timeIntervalSince1970: 1_780_000_000), durations: [(120, 118), (60, 61)])
        try db.pool.writeWithoutTransaction { db in
            try db.execute(sql: "UPDATE routine SET activeDays = '9' WHERE name = 'Weekend'")
            // Estimations are append-only; a bit flip does not ask: change the file as the disk would.
            try db.execute(sql: "DROP TRIGGER estimation_no_change")
            try db.execute(sql: "UPDATE estimation SET taskId = x'00' WHERE orderIndex = 1")
        }
        try db.close()
        let list = try run(["routine", "list", "--data", data])
        #expect(list.status == 0 && list.stdout.hasPrefix("School Morning") && !list.stdout.contains("Weekend"), "\(list)")
        let history = try run(["history", "--data", data])
        #expect(history.status == 0 && history.stdout.split(separator: "\n").count == 1, "\(history)")
        #expect(try run(["stats", "--data", data]).status == 0)
        let doctor = try run(["doctor", "--data", data])
        #expect(doctor.stdout.contains("WARN  unreadable row skipped: routine row 2: activeDays is '9', expected weekdays 1–7"))
        #expect(doctor.stdout.contains("WARN  unreadable row skipped: estimation row 2: taskId is X'00', expected a 16-byte UUID"))
        #expect(doctor.stdout.contains("WARN  schema: missing trigger estimation_no_change"))
    }

    @Test("reading commands create nothing: on a data folder that does not exist they show an empty box")
    func readingCreatesNothing() throws {
        let data = (temporaryDirectory() as NSString).appendingPathComponent("never-made")
        #expect(try run(["routine", "list", "--data", data]).stdout.hasPrefix("no routines yet"))
        #expect(try run(["history", "--data", data]).stdout == "no estimations yet\n")
        #expect(try run(["stats", "--data", data]).status == 0)
        #expect(try run(["backups", "--data", data]).stdout == "no backups yet\n")
        #expect(!FileManager.default.fileExists(atPath: data))
        // A file where the folder should be, and a folder that cannot be made: one line each.
        let file = write("not a folder", in: temporaryDirectory(), name: "file")
        let notFolder = try run(["stats", "--data", file])
        #expect(notFolder.status != 0 && notFolder.stderr == "questbox: \(file): not a folder (--data names the box's data folder)\n")
        let inside = (file as NSString).appendingPathComponent("data")
        let cannot = try run(["routine", "import", write(Self.sample, in: temporaryDirectory()), "--data", inside])
        #expect(cannot.status != 0 && cannot.stderr == "questbox: \(inside): cannot create the data folder (\(file): a file is in the way)\n", "\(cannot.stderr)")
    }

    @Test("simulate with no routine in the store says how to add one, and fails")
    func simulateWithoutRoutines() throws {
        let dir = temporaryDirectory()
        let events = write("0 lock down\n80 lock up\n", in: dir, name: "quest.events")
        let r = try run(["simulate", "--events", events, "--data", dir])
        #expect(r.status != 0)
        #expect(r.stderr == "questbox: \(dir): no routines to play yet — import one first: questbox routine import FILE (deploy/example-routine.json is one)\n")
    }

    @Test("routine import → export round-trips; a re-import keeps ids; list shows them")
    func importExport() throws {
        let dir = temporaryDirectory()
        let data = (dir as NSString).appendingPathComponent("data")
        let file = write(Self.sample, in: dir)
        let imported = try run(["routine", "import", file, "--data", data])
        #expect(imported.status == 0)
        #expect(imported.stdout == "imported School Morning (2 tasks)\nimported Weekend (1 task)\n")
        let exported = try run(["routine", "export", "--data", data])
        #expect(exported.status == 0)
        let docs = try JSONDecoder().decode([RoutineDocument].self, from: Data(exported.stdout.utf8))
        #expect(docs == (try RoutineDocument.parse(Data(Self.sample.utf8), file: "x")))

        // Importing the export elsewhere gives the same export.
        let other = (dir as NSString).appendingPathComponent("other")
        let exportFile = write(exported.stdout, in: dir, name: "export.json")
        #expect(try run(["routine", "import", exportFile, "--data", other]).status == 0)
        #expect(try run(["routine", "export", "--data", other]).stdout == exported.stdout)

        // Re-importing updates in place: same routine and task ids (history stays attached).
        let db1 = try QuestDatabase(path: DataDirectory.databasePath(in: data))
        let before = try db1.routines.named("School Morning")!
        try db1.close()
        let changed = Self.sample.replacingOccurrences(of: "\"Pack Bag\"", with: "\"Bag Check\"")
        let reimported = try run(["routine", "import", write(changed, in: dir), "--data", data])
        #expect(reimported.status == 0)
        #expect(reimported.stdout == "updated School Morning (2 tasks)\nupdated Weekend (1 task)\n")
        // Written to a file, the export says where it went.
        let exportPath = (dir as NSString).appendingPathComponent("routines.json")
        let wrote = try run(["routine", "export", "--to", exportPath, "--data", data])
        #expect(wrote.status == 0 && wrote.stdout == "wrote 2 routines to \(exportPath)\n")
        #expect(FileManager.default.contents(atPath: exportPath).map { String(decoding: $0, as: UTF8.self) }
            == (try run(["routine", "export", "--data", data])).stdout)
        let db2 = try QuestDatabase(path: DataDirectory.databasePath(in: data))
        let after = try db2.routines.named("School Morning")!
        #expect(after.id == before.id && after.tasks.map(\.id) == before.tasks.map(\.id))
        #expect(after.tasks[1].displayName == "Bag Check")

        let list = try run(["routine", "list", "--data", data])
        #expect(list.stdout.contains("School Morning — \"Morning Quest\" · Mon Tue Wed Thu Fri · 2 tasks"))
        #expect(list.stdout.contains("Weekend — \"(no display name)\" · Sun Sat · 1 task · paused · player's"))
        #expect(try run(["routine", "remove", "Weekend", "--data", data]).status == 0)
        let missing = try run(["routine", "remove", "Weekend", "--data", data])
        #expect(missing.status != 0 && missing.stderr == "questbox: no routine named \"Weekend\"\n")
    }

    @Test("bad routine files: one line naming the field and value, exit ≠ 0, nothing written")
    func badInput() throws {
        let dir = temporaryDirectory()
        let data = (dir as NSString).appendingPathComponent("data")
        let cases: [(String, String)] = [
            (#"{"displayName": "M", "activeDays": [2], "tasks": [{"name": "a"}]}"#, "name: missing"),
            (#"{"name": "M", "activeDays": [2, 9], "tasks": [{"name": "a"}]}"#, "activeDays[1]: 9 is not a weekday (1 = Sunday … 7 = Saturday)"),
            (#"{"name": "M", "activeDays": [2], "tasks": []}"#, "tasks: empty (a routine needs at least one task)"),
            (#"{"name": "M", "activeDays": [2]}"#, "tasks: missing (a list of tasks)"),
            (#"{"name": "M", "activeDays": [], "tasks": [{"name": "a"}]}"#, "activeDays: empty (pick at least one day, 1 = Sunday … 7 = Saturday)"),
            (#"{"name": "M", "activeDays": [true], "tasks": [{"name": "a"}]}"#, "activeDays[0]: true is not a weekday"),
            (#"{"name": "M", "activeDays": [2.5], "tasks": [{"name": "a"}]}"#, "activeDays[0]: 2.5 is not a weekday"),
            (#"{"name": "M", "activeDays": [2], "tasks": [{"displayName": "a"}]}"#, "tasks[0].name: missing"),
            (#"{"name": "M", "activeDays": [2], "tasks": [{"name": "a", "referenceDurationSeconds": -5}]}"#, "tasks[0].referenceDurationSeconds: -5 is not a whole number of seconds from 1 to 10800"),
            (#"{"name": "M", "activeDays": [2], "tasks": [{"name": "a"}], "activDays": [3]}"#, "activDays: unknown field"),
            (#"{"name": "  ", "activeDays": [2], "tasks": [{"name": "a"}]}"#, "name: empty"),
            (#"{"name": 42, "activeDays": [2], "tasks": [{"name": "a"}]}"#, "name: 42 is not text"),
            (#"{"name": "M", "activeDays": [2], "tasks": [{"name": "a"}, {"name": "a"}]}"#, "tasks[1].name: \"a\" appears twice"),
            (#"[{"name": "M", "activeDays": [2], "tasks": [{"name": "a"}]}, {"name": "N", "activeDays": [8], "tasks": [{"name": "a"}]}]"#, "[1].activeDays[0]: 8 is not a weekday"),
            (#"{"name": "M", "activeDays": [2], "tasks": [{"name": "a"}"#, "tasks: not valid JSON: expected ',' or ']' in a list (line 1, column 57)"),
            (#""just text""#, "expected a routine object or a list of them"),
        ]
        for (json, expected) in cases {
            let file = write(json, in: dir)
            let r = try run(["routine", "import", file, "--data", data])
            #expect(r.status != 0, "\(json)")
            #expect(r.stderr.hasPrefix("questbox: \(file): \(expected)"), "\(json) → \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "one line: \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
        // The valid first routine of the last list was not written either.
        #expect(try run(["routine", "export", "--data", data]).stdout == "[]\n")
        let unreadable = try run(["routine", "import", (dir as NSString).appendingPathComponent("none.json"), "--data", data])
        #expect(unreadable.status != 0 && unreadable.stderr.hasSuffix("none.json: no such file\n"))
    }

    @Test("history --json and stats --json show what was played")
    func historyAndStats() throws {
        let dir = temporaryDirectory()
        let db = try QuestDatabase(path: DataDirectory.databasePath(in: dir))
        try db.routines.save(morningRoutine)
        let start = Date().addingTimeInterval(-3 * 86_400)
        let played = try recordQuest(db, at: start, durations: [(120, 121.5), (300, 200), (240, 250)])
        try db.close()

        let history = try run(["history", "--json", "--data", dir])
        #expect(history.status == 0)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
        #expect(entries.count == 3)
        #expect(entries[0]["routineDisplayName"] as? String == "Morning Quest")
        #expect(entries[0]["taskDisplayName"] as? String == "Tooth Time")
        #expect(entries[0]["estimatedSeconds"] as? Double == 120)
        #expect(abs((entries[0]["actualSeconds"] as? Double ?? 0) - played[0].actualSeconds) < 1e-9)
        #expect(entries.map { $0["rating"] as? String } == ["spot_on", "off", "spot_on"])  // 100 s of 200 s: exactly 50 %
        #expect(entries[1]["differenceSeconds"] as? Double == 100)
        #expect(entries[0]["isCalibration"] as? Bool == true)
        #expect((entries[0]["recordedAt"] as? String)?.hasSuffix("Z") == true)
        #expect(Set(entries[0].keys) == ["routineDisplayName", "taskDisplayName", "estimatedSeconds", "actualSeconds", "differenceSeconds", "accuracyPercent", "rating", "recordedAt", "isCalibration"])

        // Rounded to a tenth: 1.5 s off of 121.5 s.
        #expect(entries[0]["accuracyPercent"] as? Double == 98.8)
        // In words, not the stored ids; the data folder may come before the command too.
        let text = try run(["--data", dir, "history"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("Morning Quest · Tooth Time: guessed 2m, took 2m 2s → spot on (a first quest: the box was learning)"), "\(text.stdout)")
        #expect(text.stdout.contains("→ off (a first quest"))
        #expect(!text.stdout.contains("spot_on") && !text.stdout.contains("calibration"))
        let statsText = try run(["--data=\(dir)", "stats"])
        #expect(statsText.status == 0 && statsText.stdout.hasPrefix("Level 1 · 245 XP · 37 XP to level 2 (86% of this level) · streak 1 day"), "\(statsText.stdout)")
        #expect(!statsText.stdout.contains("(s)"))

        let stats = try run(["stats", "--json", "--data", dir])
        #expect(stats.status == 0)
        let s = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        #expect(s["totalXP"] as? Int == 100 + 25 + 100 + 20)
        #expect(s["level"] as? Int == 1)
        #expect(s["sessionsCompleted"] as? Int == 1)
        #expect(s["streakPolicy"] as? String == "pause")
        #expect((s["personalBests"] as? [[String: Any]])?.count == 3)
        #expect(s.keys.contains("weeklyReflection") && s["availableJokers"] == nil)
    }

    @Test("pin set reads 4–8 digits from standard input")
    func pinSet() throws {
        let dir = temporaryDirectory()
        let bad = try run(["pin", "set", "--data", dir], input: "12ab\n")
        #expect(bad.status != 0 && bad.stderr == "questbox: PIN: must be 4 to 8 digits\n")
        let good = try run(["pin", "set", "--data", dir], input: "4321\n")
        #expect(good.status == 0)
        let db = try QuestDatabase(path: DataDirectory.databasePath(in: dir))
        #expect(try db.parentPIN.verifyPIN("4321", monotonicNanos: 0, bootID: "test") == .accepted)
        #expect(!good.stdout.contains("4321") && !good.stderr.contains("4321"))
    }

    @Test("pin check: exit 0 right, 1 wrong (tries left), 2 locked out, 3 no PIN")
    func pinCheck() throws {
        let dir = temporaryDirectory()
        let none = try run(["pin", "check", "--data", dir], input: "1234\n")
        #expect(none.status == 3 && none.stdout == "no PIN set yet: set one with `questbox pin set`\n")
        #expect(try run(["pin", "set", "--data", dir], input: "4321\n").status == 0)
        let right = try run(["pin", "check", "--data", dir], input: "4321\n")
        #expect(right.status == 0 && right.stdout == "PIN accepted\n")
        let wrong = try run(["pin", "check", "--data", dir], input: "1111\n")
        // The store's count of every wrong PIN (#47: 20 in a row; the web app pauses one address after 5).
        #expect(wrong.status == 1 && wrong.stdout == "wrong PIN; 19 more tries before the parent area locks\n")
        for _ in 0..<19 { _ = try run(["pin", "check", "--data", dir], input: "1111\n") }
        let locked = try run(["pin", "check", "--data", dir], input: "4321\n")
        #expect(locked.status == 2 && locked.stdout.hasPrefix("locked after too many wrong PINs; try again in "), "\(locked.stdout)")
    }

    @Test("backup, backups and restore from the command line; refusals are one line")
    func backupCommands() throws {
        let dir = temporaryDirectory()
        let data = (dir as NSString).appendingPathComponent("data")
        #expect(try run(["routine", "import", write(Self.sample, in: dir), "--data", data]).status == 0)
        let to = (dir as NSString).appendingPathComponent("copy.sqlite")
        let backup = try run(["backup", "--to", to, "--data", data])
        #expect(backup.status == 0 && backup.stdout.hasPrefix("backed up to \(to)"))
        #expect(try run(["backup", "--to", to, "--data", data]).stderr == "questbox: \(to): already exists (choose a new file name)\n")
        #expect(try run(["backup", "--data", data]).status == 0)
        let daily = try run(["backup", "--automatic", "--data", data])
        #expect(daily.status == 0 && daily.stdout.hasPrefix("backed up to"))
        #expect(try run(["backup", "--automatic", "--data", data]).stdout == "no backup needed: today's automatic backup is done\n")
        #expect(try run(["backup", "--automatic", "--to", to, "--data", data]).status != 0)
        let list = try run(["backups", "--data", data])
        #expect(list.stdout.contains("automatic"))
        #expect(list.stdout.contains("manual"))
        #expect(try run(["routine", "remove", "Weekend", "--data", data]).status == 0)
        let restored = try run(["restore", to, "--data", data])
        #expect(restored.status == 0)
        #expect(try run(["routine", "list", "--data", data]).stdout.contains("Weekend"))
        let junk = write("definitely not sqlite, just text that is long enough to look like a header", in: dir, name: "junk.sqlite")
        let refused = try run(["restore", junk, "--data", data])
        #expect(refused.status != 0)
        #expect(refused.stderr == "questbox: \(junk): not a TimeQuest database (not an SQLite database)\n")
    }

    @Test("usage errors are one line; help is not an error")
    func usage() throws {
        let r = try run(["frobnicate"])
        #expect(r.status != 0 && r.stderr.split(separator: "\n").count == 1)
        #expect(try run(["--help"]).status == 0)
        // Someone with only the binary has no spec or README to look at: help says it all.
        for command in [[], ["routine"], ["routine", "import"], ["boards"], ["run"], ["settings"], ["web"], ["simulate"]] {
            let help = try run(command + ["--help"])
            #expect(help.status == 0 && !help.stdout.contains("SPEC") && !help.stdout.contains("README"), "\(command): \(help.stdout)")
        }
    }

    @Test("--version: the commit it was built from, as scripts/version.sh and the Debian package name it, and the architecture (#50)")
    func version() throws {
        let printed = try run(["--version"])
        #expect(printed.status == 0 && printed.stderr.isEmpty)
        let said = printed.stdout.trimmingCharacters(in: .newlines)
        // "0.1.0+git172.g5b6b795 (amd64)": the architecture by Debian's name.
        #if arch(x86_64)
        #expect(said.hasSuffix(" (amd64)"), "\(said)")
        #elseif arch(arm64)
        #expect(said.hasSuffix(" (arm64)"), "\(said)")
        #endif
        let line = String(said.prefix { $0 != " " })
        // 0.1.0+git172.g5b6b795, with .dirty when built from changed files.
        let parts = line.split(separator: "+", maxSplits: 1).map(String.init)
        #expect(parts.count == 2 && parts[0].split(separator: ".").count == 3 && parts[0].split(separator: ".").allSatisfy { Int($0) != nil }, "\(line)")
        let fields = parts.last?.split(separator: ".").map(String.init) ?? []
        if fields.first == "unknown" { return }  // built outside a git checkout
        #expect(fields.count >= 2 && fields[0].hasPrefix("git") && fields[1].hasPrefix("g"), "\(line)")
        guard fields.count >= 2, let count = Int(fields[0].dropFirst(3)) else { return }
        // The hash names a commit of this repository, and the count is that commit's.
        let commit = String(fields[1].dropFirst())
        let counted = try runProcess("/usr/bin/git", ["-C", packageRoot, "rev-list", "--count", commit])
        #expect(counted.status == 0 && Int(counted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == count, "\(line): \(counted)")
        // The web app's program says the same.
        let web = productPath("questbox-web")
        if FileManager.default.isExecutableFile(atPath: web) {
            #expect(try runProcess(web, ["--version"]).stdout == printed.stdout)
        }
    }

    @Test("data directory: --data, then $QUESTBOX_DATA, then /var/lib for root, else ~/.local/share")
    func dataDirectory() {
        #expect(DataDirectory.resolve(option: "/x", environment: ["QUESTBOX_DATA": "/y"], isRoot: true, home: "/h") == "/x")
        #expect(DataDirectory.resolve(option: nil, environment: ["QUESTBOX_DATA": "/y"], isRoot: true, home: "/h") == "/y")
        #expect(DataDirectory.resolve(option: nil, environment: [:], isRoot: true, home: "/root") == "/var/lib/questbox")
        #expect(DataDirectory.resolve(option: nil, environment: [:], isRoot: false, home: "/home/kid") == "/home/kid/.local/share/questbox")
    }
}
