// Figures for the sound engine (SPEC §6), on the real path: FakeGPIO pipe edges (this
// machine has no GPIO chip) → the BoxDaemon loop → QuestMachine → EngineSoundOutput →
// the ALSA engine's audio thread → snd_pcm_writei on a real libasound PCM.
//   - button event → the sound's first non-silent frame handed to ALSA, p50/p99/max over
//     N estimate presses (each plays estimate_tick), measured from the edge's CLOCK_MONOTONIC
//     timestamp to the moment before the write (target ≤ one period + 1 ms)
//   - the audio thread while idle (after a buffer of silence it parks: periods written and
//     CPU over the first second) and its CPU while playing
//   - xruns over a run of S seconds with a sound every 250 ms (target 0)
//
//   swift run -c release sound-figures [--device null] [--presses 200] [--seconds 60]
// On `null` (no card here) the engine paces itself to real time and counts falling more than
// a buffer behind as the underrun a card would have had. The HIL rig runs it on the ALSA
// loopback card.
import Audio
import BoardProfile
import BoxRuntime
import Foundation
import GPIO
import HistoryFixtures
import Logging
import QuestCore
import QuestStore
import SystemClock

let arguments = CommandLine.arguments
func option(_ name: String) -> String? { arguments.firstIndex(of: name).flatMap { arguments.dropFirst($0 + 1).first } }
let device = option("--device") ?? "null"
let presses = option("--presses").flatMap(Int.init) ?? 200
let runSeconds = option("--seconds").flatMap(Double.init) ?? 60
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

var logger = Logger(label: "sound-figures")
logger.logLevel = .error
let dir = NSTemporaryDirectory() + "sound-figures-\(UUID().uuidString.prefix(8))"
try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: dir) }
let db = try QuestDatabase(path: dir + "/q.sqlite", footprint: .small)
try db.routines.save(Routine(
    id: UUID(), name: "daily", displayName: "Daily Quest", activeDays: Array(1...7),
    tasks: [RoutineTask(id: UUID(), name: "one", displayName: "One")]))
try db.settings.update { $0.volumePercent = 100 }

let profile = try BoardProfile.load(path: root + "/Boards/questbox-sim.yaml")
let gpio = FakeGPIO(chips: [.init(path: "/dev/gpiochip1", label: "questbox", lines: ["BTN_LOCK", "BTN_STOP", "BTN_UP", "BTN_DOWN", "LED_RED", "LED_GREEN", "LED_BLUE", "BUZZER"])])
let board = try BoardGPIO(profile: profile, backend: gpio)
let clock = LiveSystemClock(environment: ["QUESTBOX_CLOCK_TRUSTED": "1"])
let sound = EngineSoundOutput.start(
    device: device, card: profile.audioCard, latencyMs: profile.audioLatencyMs, soundEnabled: true, volumePercent: 100,
    directories: [root + "/Sounds"], logger: logger)
let engine = sound.engine
guard let format = engine.statistics.format else {
    print("sound-figures: cannot open \(device)")
    exit(1)
}
let daemon = try BoxDaemon(
    board: board, database: db, clock: clock, sound: sound, display: LoggingDisplayOutput(logger: logger),
    calendar: Calendar.current, logger: logger)

struct Results: Sendable {
    var latenciesMs: [Double] = []
    var missed = 0
    var idleCPU = 0.0, playingCPU = 0.0
    var idlePeriods = 0, idleParks = 0
    var xruns = 0
}
final class Box: @unchecked Sendable {
    var results = Results()
    let ready = DispatchSemaphore(value: 0)
}
let box = Box()

// Edges are logical, as libgpiod reports them for an active-low line: rising = pressed.
@Sendable func press(_ line: String) throws -> Int64 {
    let t = clock.monotonicNanos()
    try gpio.edge(line: line, rising: true, atNanos: t)
    return t
}
@Sendable func release(_ line: String) throws { try gpio.edge(line: line, rising: false, atNanos: clock.monotonicNanos()) }

@Sendable func cpuPerSecond(_ nanos: Int64, periods: Int) -> Double {
    periods == 0 ? 0 : Double(nanos) / 1e6 / (Double(periods * format.periodFrames) / Double(format.rate))
}

let driver = Thread {
    box.ready.wait()
    do {
        usleep(1_000_000)
        let idle = engine.statistics
        // Start the quest: the box is estimating the first task; up/down now tick.
        _ = try press("BTN_LOCK")
        usleep(60_000)
        try release("BTN_LOCK")
        usleep(500_000)
        var rng = SplitMix64(state: 7)
        for i in 0..<presses {
            let before = engine.statistics.handoffs.count
            let line = i % 2 == 0 ? "BTN_UP" : "BTN_DOWN"
            let t = try press(line)
            var handed: Int64?
            let deadline = Date().addingTimeInterval(0.5)
            while handed == nil && Date() < deadline {
                let h = engine.statistics.handoffs
                if h.count > before { handed = h[before].handedAt } else { usleep(100) }
            }
            if let handed { box.results.latenciesMs.append(Double(handed - t) / 1e6) } else { box.results.missed += 1 }
            usleep(50_000)
            try release(line)
            // Land the next press at a random phase of the audio period.
            usleep(UInt32(60_000 + Int(rng.next() % 20_000)))
        }
        // Idle: the first second (start, a buffer of silence, then parked): total CPU.
        box.results.idleCPU = Double(idle.idleCPUNanos) / 1e6
        box.results.idlePeriods = idle.idlePeriods
        box.results.idleParks = idle.parks
        // The long run: a tick every 250 ms, counting xruns.
        let xrunsBefore = engine.statistics.xruns
        let end = Date().addingTimeInterval(runSeconds)
        var i = 0
        while Date() < end {
            let line = i % 2 == 0 ? "BTN_UP" : "BTN_DOWN"
            _ = try press(line)
            usleep(50_000)
            try release(line)
            usleep(200_000)
            i += 1
        }
        let s = engine.statistics
        box.results.xruns = s.xruns - xrunsBefore
        box.results.playingCPU = cpuPerSecond(s.playingCPUNanos, periods: s.playingPeriods)
    } catch {
        print("sound-figures: \(error)")
    }
    daemon.requestShutdown()
}
driver.start()
try daemon.run(handleSignals: false) { box.ready.signal() }
engine.stop()
try db.close()

let r = box.results
let sorted = r.latenciesMs.sorted()
func pct(_ p: Double) -> Double { Timing.percentile(sorted, p) }
let periodMs = Double(format.periodFrames) / Double(format.rate) * 1000
#if DEBUG
print("warning: debug build — run with `swift run -c release sound-figures` for real figures")
#endif
print("sound-figures: \(device) (\(format.rate) Hz, \(format.channels) ch, period \(format.periodFrames) frames = \(String(format: "%.1f", periodMs)) ms, buffer \(format.bufferFrames))\(format.needsPacing ? ", engine-paced" : "")")
print(String(format: "button edge → first sound frame to ALSA  p50 %.2f ms  p99 %.2f ms  max %.2f ms  (%d presses, %d missed; target ≤ %.1f ms)",
             pct(0.5), pct(0.99), sorted.last ?? .nan, sorted.count, r.missed, periodMs + 1))
print(String(format: "audio thread, first second idle           %d periods written, parked %d×, %.2f ms CPU", r.idlePeriods, r.idleParks, r.idleCPU))
print(String(format: "audio thread CPU while playing            %.2f ms/s", r.playingCPU))
print(String(format: "xruns over %.0f s, a sound every 250 ms     %d   (target 0)", runSeconds, r.xruns))
