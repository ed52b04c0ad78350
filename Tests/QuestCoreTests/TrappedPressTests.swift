import Foundation
import Testing
@testable import QuestCore

/// GAME-8: no unseen lock-in. A press within 3 s after the box changed screen by itself was
/// meant for the screen before (whose "go on" has already happened): it never locks in a
/// guess, starts or resumes a quest, or ends a task the player has not seen. Changes the
/// player made herself are not delayed.
@Suite("GAME-8: a press right after the box moved on by itself")
struct TrappedPressTests {
    static let t0 = 1_000 * second

    /// A quest started and its first task locked in at t0 + 1 s, stopped 60 s later: the
    /// reveal shows from `stop`.
    static func revealing(_ box: inout Box) -> Int64 {
        box.tap(.lock, at: t0)
        box.tap(.lock, at: t0 + second)
        let stop = t0 + 61 * second
        box.tap(.stop, at: stop)
        #expect(box.phase == "revealing")
        return stop
    }

    static func lockIns(_ box: Box) -> Int { box.persisted.filter { if case .taskStarted = $0 { true } else { false } }.count }

    /// A reveal left alone until it moved on by itself (8 s from the stop's release): when,
    /// and the lock-ins so far.
    static func movedOnByItself(_ box: inout Box) -> (at: Int64, lockIns: Int) {
        let movedOn = revealing(&box) + 80 * milli + 8 * second
        box.sim.advance(to: movedOn)
        #expect(box.phase == "estimating")
        return (movedOn, lockIns(box))
    }

    @Test("GAME-8: the reveal moves on by itself after 8 s; LOCK 2 s later (the trial's \"go on\") locks in nothing, the guess stays on screen; LOCK past 3 s locks in")
    func revealTimeout() {
        var box = Box()
        let (movedOn, before) = Self.movedOnByItself(&box)
        box.tap(.lock, at: movedOn + 2 * second)
        #expect(box.phase == "estimating" && Self.lockIns(box) == before, "a lock-in of a guess she never saw")
        box.tap(.up, at: movedOn + 2_500 * milli)
        guard case .estimating(let shown)? = box.lastScreen else { Issue.record("no guess screen"); return }
        #expect(shown.estimateSeconds == 120, "UP meant for the reveal changed the guess")
        box.tap(.lock, at: movedOn + 3 * second + milli)
        #expect(box.phase == "active" && Self.lockIns(box) == before + 1)
    }

    @Test("GAME-8: a press whose edge came just before the reveal moved on (handled after it) is the reveal's too")
    func edgeBeforeTheChange() {
        var box = Box()
        let (movedOn, before) = Self.movedOnByItself(&box)
        box.tap(.lock, at: movedOn - 20 * milli)
        #expect(box.phase == "estimating" && Self.lockIns(box) == before)
    }

    @Test("GAME-8: a reveal the player ends herself is no change by itself: her next LOCK at once locks in")
    func playerMovesOn() {
        var box = Box()
        let stop = Self.revealing(&box)
        box.tap(.lock, at: stop + 2 * second)
        #expect(box.phase == "estimating")
        let before = Self.lockIns(box)
        box.tap(.lock, at: stop + 2_300 * milli)
        #expect(box.phase == "active" && Self.lockIns(box) == before + 1)
    }

    @Test("GAME-8: the summary timing out to the quest list; a walk-away pause: LOCK within 3 s starts or resumes nothing")
    func summaryAndWalkAway() {
        var box = Box()
        var t = Self.t0
        box.tap(.lock, at: t)
        for _ in 0..<3 {
            t += second; box.tap(.lock, at: t)
            t += 60 * second; box.tap(.stop, at: t)
            t += second; box.tap(.lock, at: t)
        }
        #expect(box.phase == "summary")
        let idleAt = t + GameRules.standard.summaryTimeoutMs * milli
        box.sim.advance(to: idleAt)
        #expect(box.phase == "idle")
        box.tap(.lock, at: idleAt + 1_500 * milli)
        #expect(box.phase == "idle", "the summary's go-on started a new quest")

        var other = Box()
        other.tap(.lock, at: Self.t0)
        let paused = Self.t0 + GameRules.standard.walkAwayPauseMs * milli
        other.sim.advance(to: paused)
        #expect(other.phase == "idle")
        other.tap(.lock, at: paused + 2 * second)
        #expect(other.phase == "idle", "a press just after the pause resumed the quest")
        other.tap(.lock, at: paused + 4 * second)
        #expect(other.phase == "estimating")
    }

    @Test("GAME-8: a reminder from the house that chose another quest: LOCK within 3 s starts nothing; one that kept the quest chosen changes no press")
    func houseReminder() {
        let evening = Routine(
            id: uuid(0xB00), name: "evening", displayName: "Evening Quest", activeDays: Array(1...7),
            tasks: [RoutineTask(id: uuid(0xB01), name: "pack", displayName: "Pack")])
        let played = [QuestPlay(routineID: Box.routineID, completedAt: at(2026, 6, 10, 6, 30, Box.cal), measuredTaskSeconds: 300)]
        var box = Box(world: QuestWorld(routines: [Box.morning, evening], profile: PlayerProfile(totalXP: 50, sessionsCompleted: 5), plays: played, calendar: Box.cal, bootID: "boot-1"))
        box.tap(.up, at: Self.t0)                     // back to the morning quest (played)
        guard case .idle(let before)? = box.lastScreen else { Issue.record("no quest list"); return }
        #expect(before.selectedIndex == 0)
        box.sim.send(.house(.remindNow, atNanos: Self.t0 + 5 * second), at: Self.t0 + 5 * second)
        guard case .idle(let after)? = box.lastScreen else { Issue.record("no quest list"); return }
        #expect(after.selectedIndex == 1, "the reminder chose the evening quest")
        box.tap(.lock, at: Self.t0 + 6 * second)
        #expect(box.phase == "idle", "LOCK meant for the morning quest started the evening one")

        var same = Box()
        same.sim.send(.house(.remindNow, atNanos: Self.t0), at: Self.t0)
        same.tap(.lock, at: Self.t0 + second)
        #expect(same.phase == "estimating", "the quest she saw chosen is still chosen: LOCK starts it")
    }

    @Test("GAME-8: a task resumed after a restart: STOP within 3 s does not end it; past 3 s it does")
    func resume() {
        let session = GameSession(
            id: uuid(77), routineID: Box.routineID, routineDisplayName: "Morning Quest", startedAt: at(2026, 6, 10, 6, 55, Box.cal),
            startedMonotonicNanos: 400 * second, bootID: "boot-1", isCalibration: false)
        let task = InProgressTask(
            session: session, taskIndex: 0, taskID: Box.tasks[0], estimatedSeconds: 120, lockMonotonicNanos: 900 * second, bootID: "boot-1",
            lockedAt: at(2026, 6, 10, 6, 59, Box.cal), lockedAtTrusted: true)
        var box = Box()
        box.sim.send(.restoreInProgress(task, completedEstimations: [], atNanos: Self.t0), at: Self.t0)
        #expect(box.phase == "active")
        box.tap(.stop, at: Self.t0 + second)
        #expect(box.phase == "active" && box.estimations.isEmpty, "a press just after the resume ended the task")
        box.tap(.stop, at: Self.t0 + 4 * second)
        #expect(box.phase == "revealing" && box.estimations.first?.actualSeconds == 104)
    }
}
