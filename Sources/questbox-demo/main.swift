// The core's demo: one morning quest played on a simulated box with scripted button
// presses on a virtual monotonic clock, through the real QuestMachine. It shows what the
// box would display, light, buzz and sound, and what it would persist.
//
//   questbox-demo            readable walk-through
//   questbox-demo --trace    every effect as one JSON line
import Foundation
import QuestCore

let trace = CommandLine.arguments.contains("--trace")
if CommandLine.arguments.contains("--help") || CommandLine.arguments.contains("-h") {
    print("usage: questbox-demo [--trace]")
    exit(0)
}

var calendar = Calendar(identifier: .gregorian)
calendar.timeZone = TimeZone(identifier: "Europe/Berlin") ?? .gmt
calendar.firstWeekday = 2
let start = calendar.date(from: DateComponents(year: 2026, month: 11, day: 23, hour: 7, minute: 0)) ?? Date()

func id(_ n: Int) -> UUID { QuestSimulator.sequentialID(0x1000 + n) }
let morning = Routine(
    id: id(0), name: "school-morning", displayName: "Morning Quest", activeDays: [2, 3, 4, 5, 6],
    tasks: [
        RoutineTask(id: id(1), name: "brush-teeth", displayName: "Tooth Time", referenceDurationSeconds: 120),
        RoutineTask(id: id(2), name: "get-dressed", displayName: "Get Dressed", referenceDurationSeconds: 300),
        RoutineTask(id: id(3), name: "pack-bag", displayName: "Pack Bag", referenceDurationSeconds: 240),
    ])
// A player four quests in: past calibration, with some history for the first task.
let history = (0..<5).map { day in
    EstimationSnapshot(
        taskID: id(1), taskDisplayName: "Tooth Time", routineDisplayName: "Morning Quest", estimatedSeconds: 120,
        actualSeconds: [150, 140, 170, 160, 155][day], recordedAt: start.addingTimeInterval(Double(day - 7) * 86_400))
}
let world = QuestWorld(
    routines: [morning], profile: PlayerProfile(totalXP: 240, currentStreak: 4, lastPlayedDate: start.addingTimeInterval(-86_400), sessionsCompleted: 4),
    taskMemory: TaskMemory.build(from: history), calendar: calendar, bootID: "demo-boot")

var sim = QuestSimulator(state: QuestState(world: world), wallClockStart: start)
let s: Int64 = 1_000_000_000, ms: Int64 = 1_000_000

func show(_ effects: [QuestEffect], at t: Int64) {
    for effect in effects {
        if trace {
            if let data = try? JSONEncoder().encode(TraceLine(atMs: t / ms, effect: effect)) { print(String(decoding: data, as: UTF8.self)) }
            continue
        }
        let stamp = String(format: "%9.3fs", Double(t) / 1e9)
        switch effect {
        case .display(let screen):
            for (i, line) in screen.textLines.enumerated() { print("\(i == 0 ? stamp : String(repeating: " ", count: 10)) │ \(line)") }
        case .playSound(let sound): print("\(stamp)   ♪ \(sound.rawValue)")
        case .led(let pattern): print("\(stamp)   ● led \(name(pattern))")
        case .buzzer(let pattern): print("\(stamp)   ≋ buzzer \(name(pattern))")
        case .persist(let request): print("\(stamp)   ⇣ persist \(describe(request))")
        case .scheduleTimer, .cancelTimer, .readButton, .claimChanged: break
        }
    }
}

struct TraceLine: Encodable {
    var atMs: Int64
    var effect: QuestEffect
}

/// "reveal(QuestCore.AccuracyRating.spotOn)" → "reveal(spotOn)".
func name(_ value: Any) -> String { "\(value)".replacingOccurrences(of: "QuestCore.AccuracyRating.", with: "") }

func describe(_ r: PersistRequest) -> String {
    switch r {
    case .sessionStarted(let s): "session started (\(s.routineDisplayName))"
    case .taskStarted(let t): "in-progress task \(t.taskIndex + 1), lock at \(t.lockMonotonicNanos) ns"
    case .estimationCompleted(let e): "estimation \(e.taskDisplayName): \(e.estimatedSeconds)s vs \(e.actualSeconds)s → \(e.rating.rawValue), +\(e.xpEarned) XP"
    case .sessionCompleted(let s): "session completed, +\(s.xpEarned) XP"
    case .sessionAbandoned: "session abandoned"
    case .inProgressCleared: "in-progress task cleared"
    case .reflectionDismissed(let w): "reflection \(w) dismissed"
    case .reminderSounded(_, let name, _): "reminder for \(name)"
    }
}

show(sim.start(), at: 0)
// (time, button, pressed): a press and release for each step of the quest.
let script: [(Int64, ButtonRole, Bool)] = [
    (2 * s, .lock, true), (2 * s + 90 * ms, .lock, false),               // start the quest
    (4 * s, .up, true), (4 * s + 80 * ms, .up, false),                   // 2:00 → 2:30
    (6 * s, .lock, true), (6 * s + 70 * ms, .lock, false),               // lock in
    (6 * s + 158_412 * ms, .stop, true), (6 * s + 158_500 * ms, .stop, false),  // stop after 2:38.412
    (170 * s, .lock, true), (170 * s + 80 * ms, .lock, false),           // next task
    (172 * s, .up, true), (174 * s + 500 * ms, .up, false),              // hold up: accelerating steps
    (176 * s, .lock, true), (176 * s + 60 * ms, .lock, false),
    (176 * s + 1 * s, .stop, true), (176 * s + 1 * s + 50 * ms, .stop, false),  // 1 s later: ignored
    (176 * s + 61 * s, .stop, true), (176 * s + 61 * s + 90 * ms, .stop, false),
    // the reveal times out after 8 s
    (260 * s, .lock, true), (260 * s + 80 * ms, .lock, false),
    (260 * s + 250 * s, .stop, true), (260 * s + 250 * s + 80 * ms, .stop, false),
    (520 * s, .lock, true), (520 * s + 80 * ms, .lock, false),           // to the summary
]
for (t, role, pressed) in script {
    let before = sim.log.count
    sim.send(.button(role, pressed: pressed, atNanos: t), at: t)
    for step in sim.log[before...] { show(step.effects, at: step.atNanos) }
}
let before = sim.log.count
sim.runUntilQuiet()
for step in sim.log[before...] { show(step.effects, at: step.atNanos) }
