// Figures for the daemon (the real BoxDaemon loop, in process, on FakeGPIO's pipe
// descriptors because this machine has no GPIO chip; the hardware-in-the-loop rig measures
// the same on a real kernel chip):
//   - start to ready: open the database holding five years of play, request the lines, load
//     the world, first screen and lights, READY (target ≤ 300 ms)
//   - resident memory after start, by part (RSS, PSS, USS; #36's target ≤ 16 MB), and after a
//     quest pressed on the fake buttons
//   - idle for N seconds: loop wake-ups per second, the audio thread's periods, context
//     switches of every thread of the process but the sampler's, CPU time (target 0 wake-ups
//     with no timer pending), with no quest today (LED off) and with a quest available (LED
//     blinking). The start includes the daily backup (the fixture has none).
//
//   source scripts/setup.sh && swift build "${RELEASE_BUILD[@]}" --product daemon-figures &&
//     .build/release-static/release/daemon-figures [--idle-seconds 10]
//   (--prepare PATH and --measure PATH [--play] are the steps it runs; scripts/hot-code.sh
//   runs them under valgrind)
import BoardProfile
import BoxRuntime
import CEventLoop
import Foundation
import GPIO
import HistoryFixtures
import Logging
import QuestCore
import QuestStore
import SystemClock

let arguments = CommandLine.arguments
let idleSeconds = arguments.firstIndex(of: "--idle-seconds").flatMap { arguments.dropFirst($0 + 1).first.flatMap(Double.init) } ?? 10
let boards = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path + "/Boards"

func residentMB() -> Double {
    let kb = qb_resident_kb()
    return kb < 0 ? -1 : Double(kb) / 1024
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

/// Context switches per thread of this process (voluntary and not), by thread id.
func threadSwitches() -> [String: Int] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    var result: [String: Int] = [:]
    for tid in tasks {
        guard let status = try? String(contentsOfFile: "/proc/self/task/\(tid)/status", encoding: .utf8) else { continue }
        let name = (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        result["\(name)/\(tid)"] = status.split(separator: "\n")
            .filter { $0.hasPrefix("voluntary_ctxt_switches:") || $0.hasPrefix("nonvoluntary_ctxt_switches:") }
            .compactMap { Int($0.split(separator: "\t").last ?? "") }
            .reduce(0, +)
    }
    return result
}

struct Figures: Codable {
    var readyMs: Double
    var residentMB: Double
    var wakeupsPerSecond: Double
    var cpuMsPerSecond: Double
    var audioWakeupsPerSecond: Double
    var processWakeupsPerSecond: Double
    /// "name/tid switches" for each thread but the sampler.
    var threads: String
    /// Where the resident pages are, after start.
    var memory: MemoryMap?
    /// Resident memory after a quest played on the fake buttons (`--play`), MB.
    var residentAfterQuestMB: Double?
    /// Whether the played quest ended (the box idle again).
    var questEnded: Bool?
    /// Once the quest's pages went back (`pagesBackSeconds` after it ended): resident memory,
    /// MB, and the whole process's context switches per second over the next seconds.
    var residentAfterPagesBackMB: Double?
    var processWakeupsAfterPagesBack: Double?
}

/// How long after the quest its pages go back here (the box waits a minute).
let pagesBackSeconds = 1.0

/// Builds a database with five years of play (and a routine for today when wanted).
func prepare(_ path: String, questAvailable: Bool) throws {
    let history = FiveYears()
    let db = try QuestDatabase(path: path)
    try db.plays.recordHistory(sessions: history.sessions, estimations: history.estimations, wallClockTrusted: true)
    if questAvailable {
        try db.routines.save(Routine(
            id: UUID(), name: "daily", displayName: "Daily Quest", activeDays: Array(1...7),
            tasks: [RoutineTask(id: UUID(), name: "one", displayName: "One")]))
    }
    try db.close()
}

/// Runs in a fresh process, so the figures are the daemon's own, not the fixture builder's.
/// With `play`, a one-task quest follows the idle window, pressed on the fake buttons with
/// the kernel's clock (for the resident memory after play, and for scripts/hot-code.sh to
/// see the press path run).
func measure(path: String, play: Bool) throws -> Figures {
    var logger = Logger(label: "figures")
    logger.logLevel = .error
    let started = ContinuousClock.now
    let db = try QuestDatabase(path: path, footprint: .small)
    let gpio = FakeGPIO(chips: [.init(path: "/dev/gpiochip1", label: "questbox", lines: ["BTN_LOCK", "BTN_STOP", "BTN_UP", "BTN_DOWN", "LED_RED", "LED_GREEN", "LED_BLUE", "BUZZER"])])
    let board = try BoardGPIO(profile: try BoardProfile.load(path: boards + "/questbox-sim.yaml"), backend: gpio)
    // The sound engine as `questbox run` starts it (on ALSA's null PCM: no card here).
    let root = URL(fileURLWithPath: boards).deletingLastPathComponent().path
    let sound = EngineSoundOutput.start(
        device: "null", card: "null", latencyMs: 20, soundEnabled: true, volumePercent: 80, directories: [root + "/Sounds"], logger: logger)
    let engine = sound.engine
    defer { engine.stop() }
    // Read by the sampler only for the screen's kind, while the loop is between presses.
    nonisolated(unsafe) let display = LoggingDisplayOutput(logger: logger)
    let daemon = try BoxDaemon(
        board: board, database: db, clock: LiveSystemClock(environment: ["QUESTBOX_CLOCK_TRUSTED": "1"]),
        sound: sound, display: display, calendar: Calendar.current, logger: logger)
    daemon.pagesBackAfterQuestNanos = MonotonicNanos(pagesBackSeconds * 1e9)
    // As in `questbox run`, the loop runs on the main thread; a helper thread samples.
    final class Box: @unchecked Sendable {
        var readyAt: ContinuousClock.Instant?
        var figures: Figures?
        let ready = NSCondition()
    }
    let box = Box()
    let sampler = Thread {
        box.ready.lock()
        while box.readyAt == nil { box.ready.wait() }
        box.ready.unlock()
        // The box's resting memory: once the start's backup, made off the loop, is done.
        let backupDeadline = Date().addingTimeInterval(120)
        while daemon.isBackingUp && Date() < backupDeadline { usleep(20_000) }
        usleep(200_000)
        let rss = residentMB()
        let memory = MemoryMap.read()
        // This thread's id: /proc/thread-self links to "PID/task/TID".
        let tid = ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "").split(separator: "/").last.map(String.init) ?? ""
        let isSampler = { (key: String) in key.hasSuffix("/\(tid)") }
        let wakeBefore = daemon.wakeups, cpuBefore = cpuSeconds(), periodsBefore = engine.statistics.periodsWritten
        let switchesBefore = threadSwitches()
        usleep(UInt32(idleSeconds * 1e6))
        let switchesAfter = threadSwitches()
        let perThread = switchesAfter.filter { !isSampler($0.key) }.map { ($0.key, $0.value - (switchesBefore[$0.key] ?? 0)) }.sorted { $0.0 < $1.0 }
        let processSwitches = perThread.map(\.1).reduce(0, +)
        let wakeups = Double(daemon.wakeups - wakeBefore) / idleSeconds
        let audioWakeups = Double(engine.statistics.periodsWritten - periodsBefore) / idleSeconds
        let cpu = (cpuSeconds() - cpuBefore) * 1000 / idleSeconds
        let elapsed = box.readyAt! - started
        box.figures = Figures(
            readyMs: Timing.milliseconds(elapsed),
            residentMB: rss, wakeupsPerSecond: wakeups, cpuMsPerSecond: cpu, audioWakeupsPerSecond: audioWakeups,
            processWakeupsPerSecond: Double(processSwitches) / idleSeconds,
            threads: perThread.map { "\($0.0) \($0.1)" }.joined(separator: ", "), memory: memory)
        if play {
            playQuest(on: gpio, display: display)
            box.figures?.questEnded = display.lastShown?.kind == "idle"
            box.figures?.residentAfterQuestMB = residentMB()
            // Valgrind (scripts/hot-code.sh) runs the release and its rehearsal slowly.
            let deadline = Date().addingTimeInterval(120)
            while daemon.memoryReleasesAfterQuests == 0 && Date() < deadline { usleep(50_000) }
            if daemon.memoryReleasesAfterQuests > 0 {
                usleep(200_000)
                box.figures?.residentAfterPagesBackMB = residentMB()
                let before = threadSwitches()
                usleep(UInt32(idleSeconds * 1e6))
                let after = threadSwitches()
                let switches = after.filter { !isSampler($0.key) }.map { $0.value - (before[$0.key] ?? 0) }.reduce(0, +)
                box.figures?.processWakeupsAfterPagesBack = Double(switches) / idleSeconds
            }
        }
        daemon.requestShutdown()
    }
    sampler.stackSize = 64 * 1024
    sampler.start()
    try daemon.run(handleSignals: false) {
        box.ready.lock()
        box.readyAt = ContinuousClock.now
        box.ready.broadcast()
        box.ready.unlock()
    }
    try db.close()
    return box.figures!
}

/// Start the quest, keep the suggested guess, lock in, stop after the accidental-stop guard
/// (GAME-3), then go on to the summary and back to idle. Pauses are long enough for a box run
/// under valgrind (scripts/hot-code.sh) to keep up.
func playQuest(on gpio: FakeGPIO, display: LoggingDisplayOutput) {
    let clock = LiveSystemClock()
    func press(_ line: String, thenWait seconds: Double) {
        let t = clock.monotonicNanos()
        try? gpio.edge(line: line, rising: true, atNanos: t)
        try? gpio.edge(line: line, rising: false, atNanos: t + 60_000_000)
        usleep(UInt32(seconds * 1e6))
    }
    press("BTN_LOCK", thenWait: 1)
    // REFL-1: five years of play bring last week's reflection first; LOCK goes on to the quest.
    if display.lastShown?.kind == "reflection" { press("BTN_LOCK", thenWait: 1) }
    press("BTN_UP", thenWait: 1)
    press("BTN_LOCK", thenWait: 2.5)
    press("BTN_STOP", thenWait: 2)
    press("BTN_LOCK", thenWait: 2)
    press("BTN_LOCK", thenWait: 1)
}

// scripts/hot-code.sh: the quest database alone, built outside the profiled run.
if let i = arguments.firstIndex(of: "--prepare"), let path = arguments.dropFirst(i + 1).first {
    try prepare(path, questAvailable: true)
    exit(0)
}

if let i = arguments.firstIndex(of: "--measure"), let path = arguments.dropFirst(i + 1).first {
    let figures = try measure(path: path, play: arguments.contains("--play"))
    print(String(decoding: try JSONEncoder().encode(figures), as: UTF8.self))
    exit(0)
}

func child(_ path: String, play: Bool) throws -> Figures {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    p.arguments = ["--measure", path, "--idle-seconds", String(idleSeconds)] + (play ? ["--play"] : [])
    let out = Pipe()
    p.standardOutput = out
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return try JSONDecoder().decode(Figures.self, from: data)
}

let dir = NSTemporaryDirectory() + "daemon-figures-\(UUID().uuidString.prefix(8))"
try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: dir) }
try prepare(dir + "/idle.sqlite", questAvailable: false)
try prepare(dir + "/quest.sqlite", questAvailable: true)
let idle = try child(dir + "/idle.sqlite", play: false)
let blinking = try child(dir + "/quest.sqlite", play: true)

#if DEBUG
print("warning: debug build — run with `swift run -c release daemon-figures` for real figures")
#endif
print("daemon-figures: BoxDaemon on FakeGPIO pipes, database with five years of play (29,216 estimations), idle \(Int(idleSeconds)) s")
print(String(format: "start to ready            %7.1f ms   (target ≤ 300 ms)", idle.readyMs))
print(String(format: "resident memory           %7.1f MB   (target ≤ 16 MB, #36; whole process)", idle.residentMB))
if let map = idle.memory {
    print(String(format: "  PSS %.1f MB, USS %.1f MB; by part (MB):  RSS     PSS     USS", map.pssMB, map.ussMB))
    for line in map.lines { print(line) }
}
print(String(format: "idle, no quest today      %7.2f wake-ups/s of the loop   (target 0)", idle.wakeupsPerSecond))
print(String(format: "  audio thread            %7.1f periods/s written (parked; the driver plays the silence)", idle.audioWakeupsPerSecond))
print(String(format: "  whole process           %7.2f context switches/s (sampler excluded); CPU %.3f ms/s", idle.processWakeupsPerSecond, idle.cpuMsPerSecond))
print("    per thread, switches in \(Int(idleSeconds)) s: \(idle.threads)")
print(String(format: "idle, quest available     %7.2f wake-ups/s, CPU %.3f ms/s   (LED blink: 2 steps per 3 s)", blinking.wakeupsPerSecond, blinking.cpuMsPerSecond))
if let after = blinking.residentAfterQuestMB {
    let ended = blinking.questEnded == true ? "" : "; the quest did not end"
    print(String(format: "resident after a quest    %7.1f MB   (at start %.1f MB", after, blinking.residentMB) + ended + ")")
}
if let back = blinking.residentAfterPagesBackMB, let wakeups = blinking.processWakeupsAfterPagesBack {
    print(String(format: "  its pages handed back   %7.1f MB   %.1f s after it; then %.2f context switches/s, whole process (target 0)", back, pagesBackSeconds, wakeups))
} else if blinking.residentAfterQuestMB != nil {
    print("  its pages handed back: not within 120 s")
}
