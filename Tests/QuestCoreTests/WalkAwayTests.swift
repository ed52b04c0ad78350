import Foundation
import Testing
@testable import QuestCore

/// GAME-7: a quest left waiting pauses, and the next lock the same day picks it up.
@Suite("GAME-7: a quest left waiting pauses")
struct WalkAwayTests {
    static let minute = 60 * second
    static let pause = GameRules.standard.walkAwayPauseMs * milli

    var reminderWorld: QuestWorld {
        QuestWorld(
            routines: [Box.morning], profile: PlayerProfile(totalXP: 50, sessionsCompleted: 5),
            settings: GameSettings(reminderTime: ClockTime("07:30")), calendar: Box.cal, bootID: "boot-1")
    }

    /// Starts the quest and plays its first task (60 s against the 2:00 guess), then lets the
    /// reveal go on by itself: the box waits on task 2's guess screen.
    func boxWaitingOnTask2(start: Date = at(2026, 6, 10, 7, 0, Box.cal)) -> (Box, Int64) {
        var box = Box(start: start)
        box.tap(.lock, at: 1 * second)
        box.tap(.lock, at: 2 * second)
        box.tap(.stop, at: 62 * second)
        box.sim.advance(to: 71 * second)
        return (box, 71 * second)
    }

    func paused(_ box: Box) -> GameSession? {
        box.persisted.compactMap { if case .sessionPaused(let s) = $0 { s } else { nil } }.last
    }

    @Test("on a guess screen, 10 minutes without a press pause the quest: idle, the light and the notice of a quest not played today")
    func guessScreen() {
        var box = Box()
        box.tap(.lock, at: 1 * second)
        #expect(box.phase == "estimating")
        box.sim.advance(to: 1 * second + Self.pause - 1 * milli)
        #expect(box.phase == "estimating", "9:59 is not yet a walk-away")
        box.sim.advance(to: 1 * second + Self.pause + 100 * milli)
        #expect(box.phase == "idle")
        let session = paused(box)
        #expect(session?.status == .paused && session?.xpEarned == 0)
        #expect(box.lastLED == .questAvailable, "the quest is offered as one not played today")
        guard case .idle(let idle)? = box.lastScreen else { Issue.record("no idle screen"); return }
        #expect(idle.notice == QuestMachine.abandonedNotice)
        #expect(idle.quests.first?.playedToday == false)
        // Nothing was played: the next lock goes on with the same quest, with no welcome.
        box.tap(.lock, at: 2 * Self.pause)
        guard case .sessionResumed(let resumed)? = box.persisted.last else { Issue.record("not resumed"); return }
        #expect(resumed.id == session?.id)
        guard case .estimating(let screen)? = box.lastScreen else { Issue.record("no guess screen"); return }
        #expect(screen.taskNumber == 1 && screen.hint == nil)
    }

    @Test("between tasks: the played task keeps its result and XP; every press puts the pause off")
    func betweenTasks() {
        var (box, t) = boxWaitingOnTask2()
        #expect(box.phase == "estimating" && box.estimations.count == 1)
        box.tap(.up, at: t + 9 * Self.minute)
        box.sim.advance(to: t + 9 * Self.minute + Self.pause - 1 * second)
        #expect(box.phase == "estimating", "the press at 9 min started the 10 minutes again")
        t += 9 * Self.minute + Self.pause
        box.sim.advance(to: t + 1 * second)
        #expect(box.phase == "idle")
        #expect(paused(box)?.xpEarned == box.estimations[0].xpEarned)
        #expect(box.sim.state.world.pausedQuests.map(\.estimations.count) == [1])
    }

    @Test("a running task never pauses (GAME-4's 3 h limit is its end), and lock-in cancels the pause")
    func runningTask() {
        var box = Box()
        box.tap(.lock, at: 1 * second)
        box.tap(.lock, at: 9 * Self.minute)
        box.sim.advance(to: 40 * Self.minute)
        #expect(box.phase == "active")
        #expect(paused(box) == nil)
        box.tap(.stop, at: 41 * Self.minute)
        #expect(box.phase == "revealing")
        #expect(box.estimations.first.map { $0.actualSeconds == 32 * 60 } == true)
    }

    @Test("the next lock the same day picks it up at the task where it stopped: same quest, welcome back, one completion")
    func resumeSameDay() {
        var (box, t) = boxWaitingOnTask2()
        box.sim.advance(to: t + Self.pause + 1 * second)
        let first = paused(box)
        t += 2 * 60 * Self.minute  // two hours later, same morning
        box.tap(.lock, at: t)
        #expect(box.phase == "estimating")
        guard case .sessionResumed(let resumed)? = box.persisted.last else { Issue.record("not resumed: \(box.persisted.last.map(\.kind) ?? "-")"); return }
        #expect(resumed.id == first?.id && resumed.status == .inProgress)
        guard case .estimating(let screen)? = box.lastScreen else { Issue.record("no guess screen"); return }
        #expect(screen.taskNumber == 2 && screen.taskName == "Get Dressed")
        #expect(screen.hint == "Welcome back · Task 2/3")
        #expect(box.sim.state.world.pausedQuests.isEmpty)
        // Tasks 2 and 3, then the summary: the quest completes once, with all three tasks.
        for _ in 0..<2 {
            box.tap(.lock, at: t + 1 * second)
            box.tap(.stop, at: t + 61 * second)
            box.tap(.lock, at: t + 63 * second)
            t += 70 * second
        }
        #expect(box.phase == "summary")
        let started = box.persisted.filter { if case .sessionStarted = $0 { true } else { false } }
        #expect(started.count == 1)
        guard case .sessionCompleted(let done)? = box.persisted.last(where: { if case .sessionCompleted = $0 { true } else { false } })
        else { Issue.record("not completed"); return }
        #expect(done.id == first?.id)
        #expect(box.estimations.map(\.orderIndex) == [0, 1, 2])
        #expect(done.xpEarned == box.estimations.reduce(GameRules.standard.xpSessionCompletionBonus) { $0 + $1.xpEarned })
        #expect(box.sim.state.world.plays.count == 1)
    }

    @Test("on a new day the quest starts afresh; the paused one stays incomplete")
    func newDay() {
        var (box, t) = boxWaitingOnTask2(start: at(2026, 6, 10, 22, 0, Box.cal))
        box.sim.advance(to: t + Self.pause + 1 * second)
        let first = paused(box)
        t = 3 * 60 * Self.minute  // 01:00 the next day
        box.sim.send(.wallClockTick(atNanos: t), at: t)
        box.tap(.lock, at: t + 1 * second)
        guard case .sessionStarted(let fresh)? = box.persisted.last else { Issue.record("no new quest: \(box.persisted.last.map(\.kind) ?? "-")"); return }
        #expect(fresh.id != first?.id)
        guard case .estimating(let screen)? = box.lastScreen else { Issue.record("no guess screen"); return }
        #expect(screen.taskNumber == 1 && screen.hint != "Welcome back · Task 2/3")
    }

    @Test("a routine changed since the pause starts afresh (its first tasks are not the ones played)")
    func changedRoutine() {
        var (box, t) = boxWaitingOnTask2()
        box.sim.advance(to: t + Self.pause + 1 * second)
        var world = box.sim.state.world
        world.routines[0].tasks.swapAt(0, 1)
        t += Self.pause + 2 * second
        box.sim.send(.worldUpdated(world, atNanos: t), at: t)
        box.tap(.lock, at: t + 1 * second)
        guard case .sessionStarted? = box.persisted.last else { Issue.record("not a fresh start: \(box.persisted.last.map(\.kind) ?? "-")"); return }
    }

    @Test("holding STOP 3 s pauses too, so its \"Pick it up any time\" is true: the next lock goes on at that task")
    func stopHoldPauses() {
        var (box, t) = boxWaitingOnTask2()
        box.tap(.lock, at: t + 1 * second)  // task 2 running
        box.sim.press(.stop, at: t + 30 * second)
        box.sim.advance(to: t + 33_100 * milli)
        box.sim.release(.stop, at: t + 34 * second)
        #expect(box.phase == "idle")
        #expect(paused(box)?.status == .paused)
        box.tap(.lock, at: t + 40 * second)
        guard case .estimating(let screen)? = box.lastScreen else { Issue.record("no guess screen"); return }
        #expect(screen.taskNumber == 2 && screen.hint == "Welcome back · Task 2/3")
    }

    @Test("REM-1 after a walk-away: the box is idle again, so the reminder sounds once when due")
    func reminderAfterWalkAway() {
        var box = Box(world: reminderWorld, start: at(2026, 6, 10, 7, 0, Box.cal))
        box.tap(.lock, at: 1 * second)
        box.sim.advance(to: 1 * second + Self.pause + 1 * second)
        #expect(box.phase == "idle")
        for minute in [30, 31, 45] {
            let t = Int64(minute) * Self.minute
            box.sim.send(.wallClockTick(atNanos: t), at: t)
        }
        let sounded = box.persisted.filter { if case .reminderSounded = $0 { true } else { false } }
        #expect(sounded.count == 1, "one reminder for the paused quest's routine")
        #expect(box.lastLED == .reminder)
    }
}
