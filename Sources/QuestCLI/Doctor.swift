import ArgumentParser
import BoardProfile
import Display
import BoxProtocol
import Foundation
import BoxRuntime
import GPIO
import Logging
import QuestCore
import QuestStore
import SystemClock

/// `questbox doctor`: checks everything the box needs and says what to do about each problem.
public struct Doctor {
    public enum Level: String, Sendable, Codable { case ok, warn, fail }

    public struct Finding: Equatable, Sendable, Codable {
        public var level: Level
        public var text: String
        public var line: String { "\(level.rawValue.uppercased().padding(toLength: 4, withPad: " ", startingAt: 0))  \(text)" }
    }

    public var gpio: GPIOBackend
    public var chipPaths: () -> [String]
    public var canReadWrite: (String) -> Bool
    public var soundCards: () -> [String]
    /// Problems with the sound files (one line each); empty when all load.
    public var soundFileProblems: () -> [String]
    public var clockTrusted: () -> Bool
    public var now: () -> Date
    /// Opens the profile's screen and asks it to answer: its summary, or why not.
    public var checkDisplay: (DisplayConfig) throws -> String

    public init(
        gpio: GPIOBackend = LiveGPIO(), chipPaths: @escaping () -> [String] = Doctor.systemChipPaths,
        canReadWrite: @escaping (String) -> Bool = { access($0, R_OK | W_OK) == 0 },
        soundCards: @escaping () -> [String] = Doctor.systemSoundCards,
        soundFileProblems: @escaping () -> [String] = { SoundBank.load(from: SoundBank.searchDirectories(), logger: Logger(label: "doctor", factory: { _ in SwiftLogNoOpLogHandler() })).problems },
        clockTrusted: @escaping () -> Bool = { LiveSystemClock().isWallClockTrusted() }, now: @escaping () -> Date = Date.init,
        checkDisplay: @escaping (DisplayConfig) throws -> String = Doctor.liveDisplayCheck
    ) {
        self.checkDisplay = checkDisplay
        self.gpio = gpio
        self.chipPaths = chipPaths
        self.canReadWrite = canReadWrite
        self.soundCards = soundCards
        self.soundFileProblems = soundFileProblems
        self.clockTrusted = clockTrusted
        self.now = now
    }

    /// Every check, in order. The box cannot run when any is `fail`. `runningBox` is true when
    /// a box answers on its socket: lines held by "questbox" are then its own, not a clash.
    public func run(board: String?, boardDirectories: [String], databasePath: String, runningBox: Bool = false) -> [Finding] {
        var findings: [Finding] = []
        func add(_ level: Level, _ text: String) { findings.append(Finding(level: level, text: text)) }

        // Board profile.
        var profile: BoardProfile?
        if let board {
            do {
                profile = try BoardCatalog.resolve(board, in: boardDirectories)
                add(.ok, "board profile \(profile!.name)")
            } catch {
                add(.fail, "board profile: \(error) — fix the file or pick one from `questbox boards list`")
            }
        } else {
            add(.fail, "no board chosen yet: the box waits for one — choose it on the web app (the parent's settings: Board) or with `questbox settings set board NAME` (see `questbox boards list`)")
        }

        // GPIO chips, permissions and lines.
        let chips = chipPaths()
        if chips.isEmpty {
            add(.fail, "no GPIO chips (/dev/gpiochip*) — on a Raspberry Pi use Raspberry Pi OS (bookworm or later); for the simulated box load gpio-sim and create the \"questbox\" chip")
        } else {
            let locked = chips.filter { !canReadWrite($0) }
            if locked.isEmpty {
                add(.ok, "GPIO chips \(chips.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")) readable and writable, through \(gpio.library)")
            } else {
                add(.fail, "no read/write access to \(locked.joined(separator: ", ")) — add the user to the gpio group (sudo usermod -aG gpio $USER) and log in again")
            }
        }
        if let profile, !chips.isEmpty {
            for (role, name) in profile.linesByRole {
                do {
                    let l = try gpio.findLine(named: name, chipLabel: profile.chip)
                    if let holder = try gpio.consumer(of: l), runningBox && holder == "questbox" {
                        add(.ok, "line \(role) = \(name) on \(l.chipPath) line \(l.offset), in use by the running box")
                    } else if let holder = try gpio.consumer(of: l) {
                        add(.fail, "line \(role) = \(name) on \(l.chipPath) line \(l.offset) is busy, held by \(holder) — stop that program (another questbox?)")
                    } else {
                        add(.ok, "line \(role) = \(name) on \(l.chipPath) (\(l.chipLabel)) line \(l.offset)")
                    }
                } catch {
                    add(.fail, "line \(role): \(error) — check the wiring profile's line names (`gpioinfo` lists them)")
                }
            }
        }

        // Sound.
        if let profile {
            let cards = soundCards()
            if profile.audioCard == "default" || cards.contains(profile.audioCard) {
                add(.ok, "sound card \(profile.audioCard)")
            } else {
                add(.warn, "sound card \(profile.audioCard) not found (cards: \(cards.isEmpty ? "none" : cards.joined(separator: ", "))) — the box plays on the default device or runs silent with LED and buzzer; check `aplay -l` and the profile's audio.card")
            }
        }
        let soundProblems = soundFileProblems()
        if soundProblems.isEmpty {
            add(.ok, "sound files: all \(SoundID.allCases.count) load")
        }
        for problem in soundProblems {
            add(.warn, "sound file \(problem) — that sound is skipped; reinstall Sounds/ or fix the file (16-bit PCM WAV, 44.1/48 kHz)")
        }

        // The box's own screen: optional, so a missing one is a warning (the box plays on
        // with LED, buzzer and sound).
        if let display = profile?.display {
            do {
                add(.ok, "display \(try checkDisplay(display)) answers")
            } catch {
                add(.warn, "display: \(error) — the box runs without its screen; `questbox display test` tries it")
            }
        }

        // Wall clock.
        if clockTrusted() {
            add(.ok, "wall clock synchronized")
        } else {
            add(.warn, "wall clock not synchronized yet — durations are unaffected; calendar days wait for NTP (check `timedatectl`)")
        }

        // Database.
        if FileManager.default.fileExists(atPath: databasePath) {
            let readOnly = QuestDatabase.isOnReadOnlyFileSystem(databasePath)
            if readOnly {
                add(.fail, "database \(databasePath): the file system is read-only (the kernel remounts an SD card read-only after errors: see `dmesg`); the history can be read but no play can be saved — copy the data off with `questbox backup --to FILE` on another disk, then check or replace the card")
            }
            do {
                try QuestDatabase.validate(path: databasePath)
                let db = try QuestDatabase(path: databasePath, access: readOnly ? .readOnly : .readWrite)
                add(.ok, "database \(databasePath): integrity ok, schema \(try db.schemaVersion())")
                // Totals are derived from the history; the one per-row total left is each
                // completed quest's XP, which must be its estimations' plus the bonus.
                let profile = try db.profile()
                let mismatched = try db.inconsistentSessionXP()
                if mismatched.isEmpty {
                    add(.ok, "totals from the history: \(profile.sessionsCompleted) quests, \(profile.totalXP) XP, level \(profile.level())")
                } else {
                    add(.warn, "\(CountText.counted(mismatched.count, "completed quest")) \(mismatched.count == 1 ? "stores" : "store") XP that is not their estimations' plus the completion bonus (first: session \(mismatched[0].uuidString)) — run `questbox repair` to recompute it from the estimations")
                }
                // Rows the box cannot read are skipped by every reader; say which.
                let content = try db.contentReport(limit: 5)
                for difference in content.schema.prefix(5) {
                    add(.warn, "schema: \(difference) — this version's migrations make another schema (an edited file?); restore a backup (`questbox backups`)")
                }
                for line in content.rows {
                    add(.warn, "unreadable row skipped: \(line) — restore a backup from before it changed (`questbox backups`)")
                }
                if content.rowTotal > content.rows.count {
                    add(.warn, "\(CountText.counted(content.rowTotal - content.rows.count, "more unreadable value")) skipped")
                }
                if let last = try db.backups.newest() {
                    let age = now().timeIntervalSince(last.createdAt)
                    if age > 2 * 86_400 {
                        add(.warn, "last backup \(Int(age / 86_400)) days ago (\(last.fileName)) — run `questbox backup` or check the daily backup")
                    } else {
                        add(.ok, "last backup \(last.fileName)")
                    }
                } else {
                    add(.warn, "no backup yet — run `questbox backup`")
                }
                try db.close()
            } catch {
                add(.fail, "database: \(error) — restore a backup with `questbox restore FILE` (see `questbox backups`)")
            }
        } else {
            add(.ok, "database \(databasePath) will be created on first start")
        }
        return findings
    }

    public static func liveDisplayCheck(_ config: DisplayConfig) throws -> String {
        let screen = try ScreenOpener.open(config)
        try screen.probe()
        return screen.summary
    }

    public static func systemChipPaths() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? [])
            .filter { $0.hasPrefix("gpiochip") }.sorted().map { "/dev/\($0)" }
    }

    /// Card ids from /proc/asound/cards (" 0 [Headphones     ]: …").
    public static func systemSoundCards() -> [String] {
        guard let text = try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let open = line.firstIndex(of: "["), let close = line.firstIndex(of: "]"), open < close else { return nil }
            return line[line.index(after: open)..<close].trimmingCharacters(in: .whitespaces)
        }
    }
}

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor", abstract: "Check GPIO, permissions, sound, clock and database; exit ≠ 0 if the box cannot run.")

    @Option(name: .long, help: "Board profile name or file (default: $QUESTBOX_BOARD, else the running box's).") var board: String?
    @Flag(name: .long, help: "Print JSON: {canRun, runningBox, findings: [{level, text}]}.") var json = false
    @OptionGroup var options: DataOptions

    struct Report: Codable {
        var canRun: Bool
        /// The running box's board, when a box answers on the socket.
        var runningBox: String?
        var findings: [Doctor.Finding]
    }

    func run() throws {
        // A box that answers on its socket holds its lines: that is not a clash, and its
        // board is the one to check when none is named.
        let path = BoxNotifier.socketPath(options)
        var running: String?
        if FileManager.default.fileExists(atPath: path), let client = try? BoxClient(path: path, timeoutMs: 500),
           let reply = try? client.request(BoxRequest(command: "state"), timeoutMs: 1_000), reply.ok != false {
            running = reply.box?.board
        }
        // Else the board chosen on the web app (#32), as `run` takes it.
        let databasePath = DataDirectory.databasePath(in: options.directory)
        let stored = FileManager.default.fileExists(atPath: databasePath)
            ? (try? QuestDatabase(path: databasePath, access: .readOnly).settings.current().boardName) ?? nil : nil
        let findings = Doctor().run(
            board: RunCommand.chosen(board, orVariable: "QUESTBOX_BOARD") ?? running ?? stored,
            boardDirectories: BoardCatalog.searchDirectories(),
            databasePath: DataDirectory.databasePath(in: options.directory), runningBox: running != nil)
        let failures = findings.filter { $0.level == .fail }.count
        if json {
            try printJSON(Report(canRun: failures == 0, runningBox: running, findings: findings))
        } else {
            for f in findings { print(f.line) }
            print(failures == 0 ? "the box can run" : "the box cannot run: \(CountText.counted(failures, "problem")) above")
        }
        if failures > 0 { throw ExitCode(1) }
    }
}
