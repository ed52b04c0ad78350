/// Plays one short made-up quest through the pure machine and throws the outcome away.
///
/// The daemon does this once at start, so the first real lock-in and reveal do not pay for
/// first-use work (code paged in, type metadata and conformance look-ups). On the emulated
/// HIL box that work delayed the first reveal by about 30 ms; a Pi reading from its SD card
/// pays it too. Nothing here touches the player's data: the world is a copy.
public enum QuestRehearsal {
    /// Every effect of the rehearsed quest (start, two tasks, their reveals, the summary).
    public static func run(world: QuestWorld, rules: GameRules, wallClock: Date) -> [QuestEffect] {
        var world = world
        let tasks = (1...2).map { RoutineTask(id: UUID(), name: "rehearsal-\($0)", displayName: "Rehearsal \($0)") }
        world.routines = [Routine(id: UUID(), name: "rehearsal", displayName: "Rehearsal", activeDays: Array(WeekdayNumber.all), tasks: tasks)]
        world.plays = []
        var sim = QuestSimulator(state: QuestState(world: world, rules: rules), wallClockStart: wallClock, ids: .random)
        sim.start()
        let second: MonotonicNanos = 1_000_000_000
        let tap: MonotonicNanos = 80_000_000
        var t = second
        func press(_ role: ButtonRole) {
            sim.press(role, at: t)
            sim.release(role, at: t + tap)
            t += second
        }
        press(.lock)                                  // start the quest
        for _ in tasks {
            press(.down)                              // change the estimate
            press(.lock)                              // lock in
            t += world.settings.stopGuardMs(rules: rules) * 1_000_000
            press(.stop)                              // done: the reveal
            press(.lock)                              // next (after the last: the summary)
        }
        sim.advance(to: t + rules.summaryTimeoutMs * 1_000_000)
        return sim.allEffects
    }
}
