import Foundation
import QuestCore
import QuestStore

// History written straight into a store, for the tests of every target that needs one
// (never shipped).

public func freshDatabase() throws -> (QuestDatabase, String) {
    let dir = temporaryDirectory()
    return (try QuestDatabase(path: (dir as NSString).appendingPathComponent("questbox.sqlite")), dir)
}

public let morningRoutine = Routine(
    id: UUID(), name: "School Morning", displayName: "Morning Quest", activeDays: [2, 3, 4, 5, 6],
    tasks: [RoutineTask(id: UUID(), name: "Brush teeth", displayName: "Tooth Time", referenceDurationSeconds: 120),
            RoutineTask(id: UUID(), name: "Get dressed", displayName: "Get Dressed"),
            RoutineTask(id: UUID(), name: "Pack bag", displayName: "Pack Bag", referenceDurationSeconds: 240)])

/// Plays a quest straight into the store: a session, one estimation per (estimate, actual),
/// the completion. Returns the estimations.
@discardableResult
public func recordQuest(
    _ db: QuestDatabase, at start: Date, durations: [(Double, Double)], routine: Routine = morningRoutine, trusted: Bool = true,
    bootID: String = "boot-a", monotonicStart: Int64 = 5_000_000_000
) throws -> [TaskEstimation] {
    let profile = try db.profile()
    let session = GameSession(
        id: UUID(), routineID: routine.id, routineDisplayName: routine.displayName, startedAt: start,
        startedMonotonicNanos: monotonicStart, bootID: bootID, isCalibration: profile.sessionsCompleted < 3)
    try db.plays.apply(.sessionStarted(session), wallClockTrusted: trusted)
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
        try db.plays.apply(.estimationCompleted(e), wallClockTrusted: trusted)
        done.append(e)
        mono = stop
    }
    var completed = session
    completed.status = .completed
    completed.completedAt = wall
    completed.xpEarned = done.reduce(XPEngine.sessionCompletionBonus) { $0 + $1.xpEarned }
    try db.plays.apply(.sessionCompleted(completed), wallClockTrusted: trusted)
    return done
}

/// GAME-9: a box whose player has seen how it works (`intro false`), for the tests of the
/// quest itself; the intro's own tests leave it on, as a fresh box has it.
public func skipFirstQuestIntro(data dir: String) throws {
    let db = try QuestDatabase(path: (dir as NSString).appendingPathComponent("questbox.sqlite"))
    try db.settings.update { $0.game.firstQuestIntro = false }
    try db.close()
}
