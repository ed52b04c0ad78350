import Foundation
import Glibc
import Hummingbird
import Synchronization

/// `/parent/health`: the box's health as `questbox doctor` checks it (board, GPIO lines,
/// sound, clock, database, backups). The checks run in the `questbox` program beside this
/// one, a process of their own: the web links no GPIO or sound code, and a check that hangs
/// is cut off after a stated time.
struct HealthController {
    let services: WebServices

    func addRoutes(to parent: RouterGroup<WebRequestContext>) {
        parent.get("health") { _, _ in
            let report = await services.doctor.run()
            return try services.resources.page("parent-health", HealthView(report))
        }
    }

    func addAPIRoutes(to parent: RouterGroup<WebRequestContext>) {
        parent.get("health") { _, _ in await services.doctor.run() }
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
    var canRun: Bool
    var runningBox: String?
    var lines: [Line]

    init(_ report: DoctorRunner.Report) {
        canRun = report.canRun
        runningBox = report.runningBox
        lines = report.findings.map { f in
            Line(level: f.level, label: f.level == "ok" ? "OK" : (f.level == "warn" ? "Check" : "Problem"), text: f.text)
        }
    }
}
