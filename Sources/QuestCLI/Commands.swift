import ArgumentParser
import BoardProfile
import BoxProtocol
import BuildVersion
import Foundation
import RoutineFormat
import Synchronization
import InputFiles
import QuestCore
import QuestStore
import QuestReports
import SystemClock

/// A problem the person can act on, printed as one line.
public struct CLIError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

struct DataOptions: ParsableArguments {
    @Option(name: .long, help: "Data directory (default: $QUESTBOX_DATA, /var/lib/questbox as root, ~/.local/share/questbox).")
    var data: String?

    var directory: String { DataDirectory.current(option: data) }

    func open(footprint: QuestDatabase.Footprint = .standard, access: QuestDatabase.Access = .readWrite) throws -> QuestDatabase {
        let dir = directory
        // Reading creates nothing (no folder, no file) and works on a read-only card.
        if access == .readWrite { try Self.makeFolder(dir) }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: dir, isDirectory: &isFolder), !isFolder.boolValue {
            throw CLIError("\(dir): not a folder (--data names the box's data folder)")
        }
        let path = DataDirectory.databasePath(in: dir)
        openedDatabase.withLock { $0 = path }
        return try QuestDatabase(path: path, footprint: footprint, access: access)
    }
}

extension DataOptions {
    /// `mkdir -p`, failing with the system's own reason and the folder it stopped at.
    static func makeFolder(_ path: String) throws {
        var made = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            made += "/" + part
            guard mkdir(made, 0o755) != 0 else { continue }
            let failure = errno
            var isFolder: ObjCBool = false
            if failure == EEXIST, FileManager.default.fileExists(atPath: made, isDirectory: &isFolder), isFolder.boolValue { continue }
            let reason = failure == EEXIST ? "a file is in the way" : String(cString: strerror(failure))
            throw CLIError("\(path): cannot create the data folder (\(made): \(reason))")
        }
    }
}

/// The database this command opened, so a failure while using it names the file.
let openedDatabase = Mutex<String?>(nil)

public struct Questbox: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "questbox",
        abstract: "TimeQuest Box: the quest timer that trains time sense.",
        version: BuildVersion.described,
        subcommands: [RoutineCommand.self, HistoryCommand.self, StatsCommand.self, BackupCommand.self, RestoreCommand.self,
                      BackupsCommand.self, RepairCommand.self, PINCommand.self, SettingsCommand.self, WatchCommand.self, WebCommand.self, LinkCommand.self, VoiceCommand.self, BoardsCommand.self, DisplayCommand.self, SimulateCommand.self, DoctorCommand.self, RunCommand.self, UpdateCommand.self])

    public init() {}

    /// Runs the command line; errors are one line on stderr and a non-zero exit code. Only a
    /// usage error points at --help; what goes wrong while running (a bad file, the
    /// database, the disk, GPIO) is one plain line.
    public static func run(arguments: [String]) -> Int32 {
        var command: ParsableCommand
        do {
            command = try parseAsRoot(dataOptionAfterSubcommand(arguments))
        } catch {
            return usageFailure(error)
        }
        do {
            try command.run()
            return 0
        } catch let code as ExitCode {
            return code.rawValue  // the command already said why
        } catch where exitCode(for: error) != .failure {
            return usageFailure(error)  // help, or a usage error found while running
        } catch {
            return fail(runtimeMessage(error))
        }
    }

    /// `questbox --data DIR stats` reads as `questbox stats --data DIR`: the data folder is
    /// an option of each command that opens the store, and people write it first too.
    static func dataOptionAfterSubcommand(_ arguments: [String]) -> [String] {
        guard let first = arguments.first else { return arguments }
        if first == "--data", arguments.count >= 2 { return Array(arguments.dropFirst(2)) + ["--data", arguments[1]] }
        if first.hasPrefix("--data=") { return Array(arguments.dropFirst()) + [first] }
        return arguments
    }

    /// ArgumentParser's own message (help is no error), with the pointer at --help.
    static func usageFailure(_ error: Error) -> Int32 {
        let code = exitCode(for: error)
        if code == .success {
            print(fullMessage(for: error))
            return 0
        }
        let message = Self.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
        return fail(message + " (see questbox --help)", code: code.rawValue)
    }

    /// One line for a failure at run time: the store's words for a database error (a full
    /// disk, a read-only card, with the path), otherwise the error's own first line (the
    /// box's errors describe themselves as "<file>: <field>: <problem>").
    static func runtimeMessage(_ error: Error) -> String {
        if let described = QuestDatabase.explain(error, path: openedDatabase.withLock { $0 }) { return described.description }
        let text = "\(error)"
        return text.split(separator: "\n").first.map(String.init) ?? text
    }

    /// The one error line. Escaped whole (#31): it may quote a file's content or name (an
    /// unknown key, a board's name), and a control character there must not act on the
    /// terminal.
    static func fail(_ message: String, code: Int32 = 1) -> Int32 {
        FileHandle.standardError.write(Data(("questbox: " + DisplayText.escaped(message) + "\n").utf8))
        return code
    }
}

// MARK: routines

struct RoutineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "routine", abstract: "Manage the parent's routines.",
        subcommands: [Import.self, Export.self, List.self, Remove.self])

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add or update routines from a JSON file (the format `questbox routine export` prints).")
        @Argument(help: "JSON file with one routine or a list of them.") var file: String
        @OptionGroup var options: DataOptions

        func run() throws {
            let documents = try RoutineDocument.parse(Data(try InputFile.read(file, maximumBytes: RoutineDocument.maximumBytes)), file: file)
            let db = try options.open()
            // Build every routine first: nothing is written unless all of them are valid.
            let routines = try documents.map { doc in
                let existing = try db.routines.named(doc.name)
                return (routine: doc.routine(existing: existing, newID: UUID.init), updated: existing != nil)
            }
            for (routine, _) in routines { try db.routines.save(routine) }
            BoxNotifier.reload(options)
            for (r, updated) in routines {
                print("\(updated ? "updated" : "imported") \(DisplayText.escaped(r.name)) (\(CountText.counted(r.tasks.count, "task")))")
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print every routine as JSON (the import format).")
        @Option(name: .long, help: "Write to this file instead of standard output.") var to: String?
        @OptionGroup var options: DataOptions

        func run() throws {
            let docs = try options.open(access: .readOnly).routines.all().map(RoutineDocument.init)
            let data = try jsonText(docs)
            if let to {
                guard FileManager.default.createFile(atPath: to, contents: data) else { throw CLIError("\(to): cannot write file") }
                print("wrote \(CountText.counted(docs.count, "routine")) to \(DisplayText.escaped(to))")
            } else {
                FileHandle.standardOutput.write(data)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the routines.")
        @OptionGroup var options: DataOptions

        func run() throws {
            let routines = try options.open(access: .readOnly).routines.all()
            if routines.isEmpty { print("no routines yet: add one with `questbox routine import FILE`") }
            for r in routines {
                let days = r.activeDays.sorted().map { WeekdayNumber.all.contains($0) ? CalendarWords.weekday($0) : "?" }.joined(separator: " ")
                // Stored names are escaped: a name with ESC or CR must not act on the terminal.
                let shown = r.displayName.isEmpty ? "(no display name)" : DisplayText.escaped(r.displayName)
                print("\(DisplayText.escaped(r.name)) — \"\(shown)\" · \(days) · \(CountText.counted(r.tasks.count, "task"))\(r.isActive ? "" : " · paused")\(r.createdBy == .player ? " · player's" : "")")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a routine (its plays stay in the history).")
        @Argument(help: "The routine's name.") var name: String
        @OptionGroup var options: DataOptions

        func run() throws {
            guard try options.open().routines.remove(named: name) else { throw CLIError("no routine named \"\(DisplayText.escaped(name))\"") }
            BoxNotifier.reload(options)
            print("removed \(DisplayText.escaped(name))")
        }
    }
}

// MARK: history and stats

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "Every estimation, oldest first.")
    @Flag(name: .long, help: "JSON output.") var json = false
    @OptionGroup var options: DataOptions

    struct Entry: Encodable {
        var routineDisplayName: String
        var taskDisplayName: String
        var estimatedSeconds: Double
        var actualSeconds: Double
        var differenceSeconds: Double
        var accuracyPercent: Double
        var rating: String
        var recordedAt: String
        var isCalibration: Bool
    }

    func run() throws {
        let estimations = try options.open(access: .readOnly).plays.estimations()
        let entries = estimations.map { e in
            Entry(
                routineDisplayName: e.routineDisplayName, taskDisplayName: e.taskDisplayName, estimatedSeconds: e.estimatedSeconds,
                actualSeconds: e.actualSeconds, differenceSeconds: e.differenceSeconds, accuracyPercent: (e.accuracyPercent * 10).rounded() / 10,
                rating: e.rating.rawValue, recordedAt: ISO8601.string(e.recordedAt), isCalibration: e.isCalibration)
        }
        if json { return try printJSON(entries) }
        if entries.isEmpty { print("no estimations yet") }
        for e in entries {
            print("\(e.recordedAt)  \(DisplayText.escaped(e.routineDisplayName)) · \(DisplayText.escaped(e.taskDisplayName)): guessed \(DurationText.format(seconds: e.estimatedSeconds)), took \(DurationText.format(seconds: e.actualSeconds)) → \(AccuracyRating(rawValue: e.rating)?.words ?? e.rating)\(e.isCalibration ? " (a first quest: the box was learning)" : "")")
        }
    }
}

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "XP, level, streak, personal bests and the weekly reflection.")
    @Flag(name: .long, help: "JSON output.") var json = false
    @OptionGroup var options: DataOptions

    func run() throws {
        let report = try StatsReport.load(from: options.open(access: .readOnly), now: Date(), calendar: .current)
        if json { return try printJSON(report) }
        // XP still to earn and the share of this level done: "81% to next" was read as a share
        // of all XP, though it starts again at 0 % after each level-up.
        print("Level \(report.level) · \(report.totalXP) XP · \(report.xpToNextLevel) XP to level \(report.level + 1) (\(Int(report.levelProgress * 100))% of this level) · streak \(CountText.counted(report.currentStreak, "day"))\(report.availableJokers.map { " · \(CountText.counted($0, "joker"))" } ?? "")")
        print("Quests completed: \(report.sessionsCompleted)")
        for pb in report.personalBests { print("Personal best · \(DisplayText.escaped(pb.taskDisplayName)): \(DurationText.format(seconds: pb.absDifferenceSeconds)) off") }
        if let r = report.weeklyReflection {
            print("Week of \(r.weekDates): \(CountText.counted(r.questsCompleted, "quest")) · \(r.accuracyText.map { "\($0) accuracy" } ?? "learning") · \(r.streakContextString)")
        }
    }
}

// MARK: backups

struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "backup", abstract: "Back up the database now.")
    @Option(name: .long, help: "Write the backup to this file instead of the backups folder.") var to: String?
    @Flag(name: .long, help: "The daily automatic backup: once per calendar day; the newest 14 are kept (for a timer or cron).")
    var automatic = false
    @Flag(name: .long, help: "Copy the newest backup (today's made first if missing) to every USB stick mounted under /media, /run/media or /mnt, in its folder \"TimeQuest backups\" (the newest 10 kept there).")
    var usb = false
    @OptionGroup var options: DataOptions

    func validate() throws {
        if automatic && to != nil { throw ValidationError("--automatic writes to the backups folder; leave out --to") }
        if usb && (to != nil || automatic) { throw ValidationError("--usb copies to the sticks found; leave out --to and --automatic") }
    }

    func run() throws {
        if usb { return try copyToSticks() }
        if automatic {
            if let info = try options.open().backups.makeIfDue(now: Date()) {
                print("backed up to \(info.path) (\(ByteText.format(info.sizeBytes)))")
            } else {
                print("no backup needed: today's automatic backup is done")
            }
            return
        }
        if let to, FileManager.default.fileExists(atPath: to) { throw CLIError("\(to): already exists (choose a new file name)") }
        // A card remounted read-only can still be copied off, to another disk (--to).
        let readOnly = QuestDatabase.isOnReadOnlyFileSystem(DataDirectory.databasePath(in: options.directory))
        if readOnly && to == nil { throw CLIError("\(options.directory): the file system is read-only; copy the data to another disk with --to FILE") }
        let info = try options.open(access: readOnly ? .readOnly : .readWrite).backups.make(to: to, kind: .manual, now: Date())
        print("backed up to \(info.path) (\(ByteText.format(info.sizeBytes)))")
    }
}

extension BackupCommand {
    /// BACK-1, off the card: one line per stick; fails when none is found or any copy failed.
    func copyToSticks() throws {
        let database = try options.open()
        try database.backups.makeIfDue(now: Date())
        let sticks = RemovableVolumes.mounted(excludingFileSystemOf: options.directory)
        guard !sticks.isEmpty else {
            throw CLIError("no USB stick found: plug one in (FAT, exFAT or ext4), mounted under \(RemovableVolumes.roots.joined(separator: ", "))")
        }
        var failed = 0
        for stick in sticks {
            do {
                switch try database.backups.copyNewest(to: stick, now: Date()) {
                case .copied(let copy): print("copied to \(DisplayText.escaped(copy.path)) (\(ByteText.format(copy.sizeBytes)))")
                case .alreadyThere(let copy): print("already on the stick: \(DisplayText.escaped(copy.path))")
                }
            } catch let error as StoreError {
                failed += 1
                _ = Questbox.fail("\(error)")
            }
        }
        if failed > 0 { throw CLIError("\(failed) of \(sticks.count) USB stick\(sticks.count == 1 ? "" : "s") got no copy (above)") }
    }
}

struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "restore", abstract: "Replace the data with a backup (checked first; the current data is backed up).")
    @Argument(help: "The backup file.") var file: String
    @OptionGroup var options: DataOptions

    func run() throws {
        // The box holds its buttons meanwhile; during a quest the restore waits (#31).
        var hold: BoxHold?
        switch BoxHold.take(socketPath: BoxNotifier.socketPath(options)) {
        case .held(let held): hold = held
        case .noBox: break
        case .refused(let reason): throw CLIError("\(file): not restored: \(reason)")
        }
        defer { hold?.release() }
        let safety = try options.open().backups.restore(from: file, now: Date())
        hold?.release()
        hold = nil
        BoxNotifier.reload(options)
        print("restored from \(file); the data it replaced is saved as \(safety.path)")
    }
}

struct BackupsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "backups", abstract: "List the backups, newest first.")
    @OptionGroup var options: DataOptions

    func run() throws {
        let database = try options.open(access: .readOnly)
        let list = try database.backups.all()
        if list.isEmpty { print("no backups yet") }
        for b in list {
            print("\(ISO8601.string(b.createdAt))  \(ByteText.format(b.sizeBytes))  \(b.kind?.rawValue ?? "other")  \(b.path)")
        }
        // BACK-1: what left the card, stick by stick.
        for stick in try database.backups.offCardStatuses() {
            var line = "USB stick “\(DisplayText.escaped(stick.label))”:"
            if let at = stick.copiedAt, let file = stick.fileName {
                line += " last copy \(ISO8601.string(at)) \(DisplayText.escaped(file))\(stick.sizeBytes.map { " (\(ByteText.format($0)))" } ?? "")"
            } else {
                line += " no copy yet"
            }
            if let problem = stick.problem, let at = stick.problemAt { line += "; failed \(ISO8601.string(at)): \(DisplayText.escaped(problem))" }
            print(line)
        }
    }
}

struct RepairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair", abstract: "Recompute what `doctor` finds inconsistent (quests' XP from their estimations); backs up first.")
    @OptionGroup var options: DataOptions

    func run() throws {
        let db = try options.open()
        guard try !db.inconsistentSessionXP().isEmpty else { return print("nothing to repair") }
        let safety = try db.backups.make(kind: .manual, now: Date())
        let fixed = try db.repairSessionXP()
        print("recomputed the XP of \(CountText.counted(fixed, "quest")) from their estimations; the data before is saved as \(safety.path)")
    }
}

// MARK: boards

struct BoardsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "boards", abstract: "Board profiles: which GPIO lines are the buttons, the LED and the buzzer.", subcommands: [List.self, Validate.self, Wiring.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The board profiles found, and where.")

        func run() throws {
            let dirs = BoardCatalog.searchDirectories()
            let found = BoardCatalog.available(in: dirs)
            if found.isEmpty { print("no board profiles found in \(dirs.joined(separator: ", "))") }
            for (name, path) in found {
                // A profile's words are a file's content: escaped before they reach the terminal.
                switch Result(catching: { try BoardProfile.load(path: path) }) {
                case .success(let p): print(DisplayText.escaped("\(name) — \(p.description.isEmpty ? "(no description)" : p.description) (\(path))"))
                case .failure(let e): print(DisplayText.escaped("\(name) — invalid: \(e)"))
                }
            }
        }
    }

    struct Wiring: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draw a board's wiring on the Raspberry Pi's 40-pin header, as an SVG picture.",
            discussion: "Example: questbox boards wiring rpi4 --to wiring.svg (then open it in a browser).")
        @Argument(help: "A profile's name (see boards list) or its file.") var board: String
        @Option(name: .long, help: "Write the picture to this file instead of standard output.") var to: String?

        func run() throws {
            let profile = try BoardCatalog.resolve(board, in: BoardCatalog.searchDirectories())
            let svg = try WiringDiagram.svg(for: profile)
            guard let to else { return print(svg, terminator: "") }
            guard FileManager.default.createFile(atPath: to, contents: Data(svg.utf8)) else {
                throw CLIError("\(to): cannot write the picture there (is the folder there, and writable?)")
            }
            print(DisplayText.escaped("wrote the \(profile.name) wiring to \(to)"))
        }
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check a board profile file.")
        @Argument(help: "The profile (YAML).") var file: String

        func run() throws {
            let p = try BoardProfile.load(path: file)
            let lines = p.linesByRole.map { "\($0.role)=\($0.line)" }.joined(separator: " ")
            print(DisplayText.escaped("\(file): ok — \(p.name) on \(p.chip ?? "any chip"): \(lines); buttons \(p.buttonsActiveLow ? "active-low" : "active-high") \(p.buttonBias.rawValue), debounce \(p.debounceMs) ms, hold \(p.holdMs) ms; audio \(p.audioCard) \(p.audioLatencyMs) ms; display \(p.display?.summary ?? "none")"))
        }
    }
}

// MARK: PIN

struct PINCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pin", abstract: "The parent area's PIN.", subcommands: [Set.self, Check.self])

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the PIN (4–8 digits): asked twice, not shown, at a terminal; else one line on standard input.")
        @OptionGroup var options: DataOptions

        func run() throws {
            let pin = try PINInput.read(prompt: "New PIN (4–8 digits; 6 or more are much harder to guess): ")
            try PINHasher.validate(pin)
            if PINInput.isTerminal {
                guard try PINInput.read(prompt: "The same PIN again: ") == pin else { throw CLIError("PIN: the two entries differ; nothing changed") }
            }
            try options.open().parentPIN.setPIN(pin)
            BoxNotifier.reload(options)
            print("PIN set")
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a PIN (for scripts): exit 0 right, 1 wrong, 2 locked out, 3 no PIN set. Wrong tries count toward the lockout.")
        @OptionGroup var options: DataOptions

        func run() throws {
            let pin = try PINInput.read(prompt: "PIN: ")
            let clock = LiveSystemClock()
            let database = try options.open()
            // PAR-2: a reset whose 24 hours are over is the PIN now, for the CLI as for the pages.
            try database.parentPIN.settlePINReset(
                clock: PINResetClock(monotonicNanos: clock.monotonicNanos(), bootID: clock.bootID, wall: clock.wallNow(), wallTrusted: clock.isWallClockTrusted()))
            switch try database.parentPIN.verifyPIN(pin, monotonicNanos: clock.monotonicNanos(), bootID: clock.bootID) {
            case .accepted: print("PIN accepted")
            case .rejected(let left):
                print("wrong PIN; \(CountText.counted(left, "more try", plural: "more tries")) before the parent area locks")
                throw ExitCode(1)
            case .lockedOut(let seconds):
                print("locked after too many wrong PINs; try again in \(DurationText.format(seconds: Double(seconds)))")
                throw ExitCode(2)
            case .notSet:
                print("no PIN set yet: set one with `questbox pin set`")
                throw ExitCode(3)
            }
        }
    }
}

/// Reads a PIN: at a terminal with a prompt on stderr and echo off (a PIN never shows on the
/// screen or in a scrollback), else one line from standard input.
enum PINInput {
    static var isTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    static func read(prompt: String) throws -> String {
        var saved = termios()
        let terminal = isTerminal && tcgetattr(STDIN_FILENO, &saved) == 0
        if terminal {
            FileHandle.standardError.write(Data(prompt.utf8))
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        }
        defer {
            if terminal {
                _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
                FileHandle.standardError.write(Data("\n".utf8))
            }
        }
        guard let line = readLine(strippingNewline: true) else { throw CLIError("PIN: nothing on standard input") }
        return line.trimmingCharacters(in: .whitespaces)
    }
}

// MARK: output

func printJSON<T: Encodable>(_ value: T) throws {
    FileHandle.standardOutput.write(try jsonText(value))
}

/// Pretty JSON with sorted keys and a final newline; an empty list is `[]` (Foundation's
/// pretty printer writes it over three lines).
func jsonText<T: Encodable>(_ value: T) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .custom { date, encoder in
        var c = encoder.singleValueContainer()
        try c.encode(ISO8601.string(date))
    }
    let data = try encoder.encode(value)
    return (data == Data("[\n\n]".utf8) ? Data("[]".utf8) : data) + Data("\n".utf8)
}

enum ISO8601 {
    static func string(_ date: Date) -> String { date.formatted(.iso8601) }
}
