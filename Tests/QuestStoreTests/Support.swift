import Foundation
import QuestCore
@testable import QuestStore

/// A fresh directory under the system temp folder, removed by the caller when wanted.
func temporaryDirectory(_ name: String = #function) -> String {
    let dir = (NSTemporaryDirectory() as NSString).appendingPathComponent("questbox-tests-\(UUID().uuidString.prefix(8))")
    try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

func freshDatabase() throws -> (QuestDatabase, String) {
    let dir = temporaryDirectory()
    return (try QuestDatabase(path: (dir as NSString).appendingPathComponent("questbox.sqlite")), dir)
}

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// A built product (`questbox`, `StoreCrashWriter`) of this test run.
func productPath(_ name: String) -> String {
    var candidates: [String] = []
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        candidates.append(dir.appendingPathComponent(name).path)
        dir.deleteLastPathComponent()
    }
    candidates.append("\(packageRoot)/.build/debug/\(name)")
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
}

struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a program to completion with the given standard input.
func runProcess(_ path: String, _ arguments: [String], input: String? = nil, environment: [String: String]? = nil) throws -> ProcessResult {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = arguments
    if let environment { p.environment = environment }
    let out = Pipe(), err = Pipe(), inp = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = inp
    try p.run()
    if let input { inp.fileHandleForWriting.write(Data(input.utf8)) }
    try inp.fileHandleForWriting.close()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return ProcessResult(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
}

let morningRoutine = Routine(
    id: UUID(), name: "School Morning", displayName: "Morning Quest", activeDays: [2, 3, 4, 5, 6],
    tasks: [RoutineTask(id: UUID(), name: "Brush teeth", displayName: "Tooth Time", referenceDurationSeconds: 120),
            RoutineTask(id: UUID(), name: "Get dressed", displayName: "Get Dressed"),
            RoutineTask(id: UUID(), name: "Pack bag", displayName: "Pack Bag", referenceDurationSeconds: 240)])

/// Plays a quest straight into the store: a session, one estimation per (estimate, actual),
/// the completion. Returns the estimations.
@discardableResult
func recordQuest(
    _ db: QuestDatabase, at start: Date, durations: [(Double, Double)], routine: Routine = morningRoutine, trusted: Bool = true,
    bootID: String = "boot-a", monotonicStart: Int64 = 5_000_000_000
) throws -> [TaskEstimation] {
    let profile = try db.profile()
    let session = GameSession(
        id: UUID(), routineID: routine.id, routineDisplayName: routine.displayName, startedAt: start,
        startedMonotonicNanos: monotonicStart, bootID: bootID, isCalibration: profile.sessionsCompleted < 3)
    try db.apply(.sessionStarted(session), wallClockTrusted: trusted)
    var mono = monotonicStart, wall = start
    var done: [TaskEstimation] = []
    for (i, d) in durations.enumerated() {
        let lock = mono + 1_000_000_000, stop = lock + Int64(d.1 * 1e9)
        wall = wall.addingTimeInterval(d.1 + 1)
        let result = TimeEstimationScorer.score(estimated: d.0, actual: Double(stop - lock) / 1e9)
        let e = TaskEstimation(
            id: UUID(), sessionID: session.id, taskID: routine.tasks[i % routine.tasks.count].id,
            taskDisplayName: routine.tasks[i % routine.tasks.count].displayName, routineDisplayName: routine.displayName, orderIndex: i,
            result: result, xpEarned: XPEngine.xpForEstimation(rating: result.rating), isCalibration: session.isCalibration,
            recordedAt: wall, lockMonotonicNanos: lock, stopMonotonicNanos: stop, bootID: bootID)
        try db.apply(.estimationCompleted(e), wallClockTrusted: trusted)
        done.append(e)
        mono = stop
    }
    var completed = session
    completed.status = .completed
    completed.completedAt = wall
    completed.xpEarned = done.reduce(XPEngine.sessionCompletionBonus) { $0 + $1.xpEarned }
    try db.apply(.sessionCompleted(completed), wallClockTrusted: trusted)
    return done
}
