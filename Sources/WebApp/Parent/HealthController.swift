import BoxProtocol
import BuildVersion
import Foundation
import Glibc
import Hummingbird
import QuestCore
import QuestStore
import Synchronization

/// `/parent/health`: the box's health as `questbox doctor` checks it (board, GPIO lines,
/// sound, clock, database, backups). The checks run in the `questbox` program beside this
/// one, a process of their own: the web links no GPIO or sound code, and a check that hangs
/// is cut off after a stated time.
struct HealthController {
    let box: BoxLink
    let resources: WebResources
    let calendar: Calendar
    let clockStyle: ClockStyle
    let doctor: DoctorRunner
    let settings: any FamilySettings
    let records: any BoxRecords

    func addRoutes(to parent: RoomRoutes<WebRequestContext>) {
        parent.get("health") { _, _ in
            let (status, report) = await check()
            return try resources.page("parent-health", HealthView(status: status, report: report))
        }
    }

    func addAPIRoutes(to parent: RoomRoutes<WebRequestContext>) {
        parent.get("health") { _, _ in
            let (status, report) = await check()
            return HealthReport(status: status, canRun: report.canRun, runningBox: report.runningBox, findings: report.findings)
        }
    }

    func check() async -> (BoxHealth, DoctorRunner.Report) {
        async let report = doctor.run()
        // Asked anew, not the state kept for the kiosk's flood: this page must say what is now
        // (a parent's page, its checks one run at a time).
        let state = await box.ask(BoxRequest(command: "state"))
        let board = try? settings.current().boardName
        let lastPlay = try? records.lastPlayedAt()
        var status = BoxHealth(
            state: state, storedBoard: board ?? nil, lastPlay: lastPlay ?? nil, disk: DiskSpace.of(doctor.dataDirectory),
            now: Date(), calendar: self.calendar, clock: clockStyle, start: (try? records.boxStart()) ?? nil)
        if let link = try? records.houseLinkStatus() { status.house(link, now: Date(), calendar: self.calendar, clock: clockStyle) }
        return (status, await report)
    }
}

/// What `/api/v1/parent/health` answers: the box's status and the doctor's checks.
struct HealthReport: ResponseEncodable {
    var status: BoxHealth
    var canRun: Bool
    var runningBox: String?
    var findings: [DoctorRunner.Finding]
}

/// #32: the box's status as a parent reads it first (as Pi-hole's status does): running or
/// not, its version and uptime, the last play and the disk's free space.
struct BoxHealth: Codable, Sendable {
    /// `running`, `waiting-for-board`, `failed` (#48: it could not start with its board) or `offline`.
    var state: String
    var headline: String
    var board: String?
    var version: String
    var upMinutes: Int?
    var uptime: String?
    var lastPlay: String
    var diskFreeBytes: Int64?
    var diskFree: String
    /// #34: `questbox link`'s broker ("connected to …" or why not, since when) and the last
    /// push that failed (shown until one goes through).
    var mqtt: String?
    var pushProblem: String?

    mutating func house(_ link: LinkStatus, now: Date, calendar: Calendar, clock: ClockStyle) {
        mqtt = link.mqtt.map { text in link.mqttAt.map { "\(text) (since \(CalendarWords.day($0, now: now, calendar: calendar, clock: clock)))" } ?? text }
        pushProblem = link.pushProblem.map { text in
            link.pushProblemAt.map { "failed \(CalendarWords.day($0, now: now, calendar: calendar, clock: clock)): \(text)" } ?? "failed: \(text)"
        }
    }

    init(state box: BoxLink.State, storedBoard: String?, lastPlay: Date?, disk: DiskSpace?, now: Date, calendar: Calendar, clock: ClockStyle, start: BoxStartRecord? = nil) {
        switch box {
        case .online(let reply):
            state = "running"
            board = reply.box?.board
            version = reply.box?.version ?? BuildVersion.text
            upMinutes = reply.box?.upMinutes
            headline = "Running" + (board.map { " with board \($0)" } ?? "")
        case .offline(let reason):
            board = storedBoard
            version = BuildVersion.text
            upMinutes = nil
            if storedBoard == nil {
                state = "waiting-for-board"
                headline = "Waiting for a board: choose it in Settings (Board), and the box starts with it"
            } else {
                // #48: what the box wrote down of its start says why.
                let down = BoxDownWords.of(start, storedBoard: storedBoard, now: now, calendar: calendar, clock: clock)
                state = down.failed ? "failed" : "offline"
                headline = "Offline: \(down.line) (\(reason))"
            }
        }
        uptime = upMinutes.map(Self.uptimeWords)
        self.lastPlay = lastPlay.map { CalendarWords.day($0, now: now, calendar: calendar, clock: clock) } ?? "none yet"
        diskFreeBytes = disk?.freeBytes
        diskFree = disk.map { "\(Self.bytesWords($0.freeBytes)) free of \(Self.bytesWords($0.totalBytes))" } ?? "unknown"
    }

    static func uptimeWords(_ minutes: Int) -> String {
        switch minutes {
        case ..<1: return "under a minute"
        case ..<60: return "\(minutes) min"
        case ..<(24 * 60): return "\(minutes / 60) h \(minutes % 60) min"
        default: return "\(CountText.counted(minutes / (24 * 60), "day")) \(minutes % (24 * 60) / 60) h"
        }
    }

    static func bytesWords(_ bytes: Int64) -> String {
        let gb = Double(bytes) / 1e9
        if gb >= 10 { return "\(Int(gb.rounded())) GB" }
        if gb >= 1 { return String(format: "%.1f GB", gb) }
        return "\(Int((Double(bytes) / 1e6).rounded())) MB"
    }
}

/// Free and total space of the file system holding a folder (statvfs).
struct DiskSpace: Sendable {
    var freeBytes: Int64
    var totalBytes: Int64

    static func of(_ path: String) -> DiskSpace? {
        var s = statvfs()
        guard statvfs(path.isEmpty ? "." : path, &s) == 0 else { return nil }
        let unit = Int64(s.f_frsize)
        return DiskSpace(freeBytes: Int64(s.f_bavail) * unit, totalBytes: Int64(s.f_blocks) * unit)
    }
}

/// `questbox doctor --json` as a report; one run at a time (a second asker waits for it).
final class DoctorRunner: Sendable {
    struct Finding: Codable, Sendable {
        var level: String
        var text: String
    }

    struct Report: ResponseCodable, Sendable {
        var canRun: Bool
        var runningBox: String?
        var findings: [Finding]
    }

    /// The `questbox` program; nil when it is not installed beside the web app.
    let program: String?
    let dataDirectory: String
    let timeoutSeconds: Double
    private let lock = Mutex<Bool>(false)

    init(program: String?, dataDirectory: String, timeoutSeconds: Double = 20) {
        self.program = program
        self.dataDirectory = dataDirectory
        self.timeoutSeconds = timeoutSeconds
    }

    func run() async -> Report {
        while !lock.withLock({ busy in
            if busy { return false }
            busy = true
            return true
        }) {
            try? await Task.sleep(for: .milliseconds(100))
        }
        defer { lock.withLock { $0 = false } }
        guard let program else {
            return Report(canRun: false, runningBox: nil, findings: [Finding(level: "fail", text: "the questbox program is not installed beside questbox-web, so its checks cannot run")])
        }
        let directory = dataDirectory, timeout = timeoutSeconds
        // A thread of its own: the run blocks for up to `timeout`.
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: Self.runDoctor(program, dataDirectory: directory, timeout: timeout))
            }
        }
    }

    static func runDoctor(_ program: String, dataDirectory: String, timeout: Double) -> Report {
        func failed(_ text: String) -> Report { Report(canRun: false, runningBox: nil, findings: [Finding(level: "fail", text: text)]) }
        // posix_spawn and waitpid, not Foundation's Process: its exit is seen by a dispatch
        // source that a busy thread pool can leave waiting long after the child died.
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { return failed("the checks could not start (no pipe)") }
        // Neither end leaks into other programs; dup2 gives the child's stdout without the flag.
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let words: [String] = [program, "doctor", "--json", "--data", dataDirectory]
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) }
        argv.append(nil)
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, environ)
        close(pipeEnds[1])
        defer { close(pipeEnds[0]) }
        guard spawned == 0 else { return failed("the checks could not start (\(String(cString: strerror(spawned))))") }
        // Read the report until the program closes its output or the time is up (then it is
        // killed); at most 256 KiB is kept.
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        var data = Data()
        var timedOut = false
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                timedOut = true
                break
            }
            var waiting = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(1_000, max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            let ready = poll(&waiting, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { break }
            if ready == 0 { continue }
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            if data.count < 256 * 1024 { data += buffer[0..<count] }
        }
        if timedOut { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if timedOut {
            return failed("the checks did not finish within \(timeout < 1 ? String(format: "%.1f", timeout) : String(Int(timeout))) s")
        }
        guard let report = try? JSONDecoder().decode(Report.self, from: data) else {
            // WEXITSTATUS, spelled out (the C macro is not imported).
            return failed("the checks gave no report (exit status \((status >> 8) & 0xff))")
        }
        return report
    }
}

struct HealthView: Encodable {
    struct Line: Encodable { var level: String; var label: String; var text: String }
    var status: BoxHealth
    var running: Bool
    /// The checks' verdict, said for the box as it is: running with problems found, or not
    /// running and unable to start.
    var verdict: String?
    var verdictIsProblem: Bool
    var lines: [Line]

    init(status: BoxHealth, report: DoctorRunner.Report) {
        self.status = status
        running = status.state == "running"
        let problems = report.findings.filter { $0.level == "fail" }.count
        if problems == 0 {
            verdict = running ? nil : "The checks found nothing that stops the box from starting."
        } else if running {
            verdict = "The box runs, but the checks found \(CountText.counted(problems, "problem")): see below."
        } else {
            verdict = "The box cannot start: see the \(problems == 1 ? "problem" : "problems") below."
        }
        verdictIsProblem = problems > 0
        lines = report.findings.map { f in
            Line(level: f.level, label: f.level == "ok" ? "OK" : (f.level == "warn" ? "Check" : "Problem"), text: f.text)
        }
    }
}
