import Foundation
import Testing
@testable import QuestCore

/// #49: the LED a press lights, known ahead so the box sets it from the press's edge before
/// the step runs. The step stays the truth; these walks check the two never disagree.
@Suite("#49: a press's LED known ahead (PressReflex) is its step's")
struct PressReflexTests {
    static func boxes() -> [(String, Box)] {
        var evening = Box.morning
        evening.id = uuid(0xB10)
        evening.name = "evening"
        evening.reminder = .at(ClockTime(hour: 7, minute: 30)!)
        let two = QuestWorld(routines: [Box.morning, evening], profile: PlayerProfile(totalXP: 50, sessionsCompleted: 5), calendar: Box.cal, bootID: "b")
        return [
            ("one quest", Box()),
            ("one quest, speaking", Box(speaks: true)),
            ("two quests (no screen's quest numbers)", Box(world: two)),
            ("first quest's intro", FirstQuestIntroTests.freshBox()),
            ("last week's reflection", MachineTests.boxWithReflection().0),
        ]
    }

    /// What the step of a press at `t` lights first.
    static func stepLED(_ state: QuestState, _ role: ButtonRole, at t: MonotonicNanos, env: QuestEnvironment) -> LEDPattern? {
        for case .led(let p) in QuestMachine.step(state, .button(role, pressed: true, atNanos: t), env: env).effects { return p }
        return nil
    }

    @Test("random walks (presses, bounces, holds, timers, claims, pairings, button checks, the house): every press the reflex answers lights what its step does")
    func reflexIsTheStep() {
        var rng = SplitMix(seed: 49)  // the same walks on every run
        let gaps: [Int64] = [300_000, 5 * milli, 40 * milli, 120 * milli, 900 * milli, 2_500 * milli, 3_200 * milli, 9 * second, 45 * second]
        let offsets: [Int64] = [0, 1, 3 * milli, 30 * milli, 1 * second, 2_999 * milli, 3_001 * milli, 8 * second, 25 * second]
        var lit = 0, answered = 0
        var answeredIn: Set<String> = []
        for (name, start) in Self.boxes() {
            for _ in 0..<12 {
                var box = start
                var t = box.sim.nowNanos + 1_000 * second
                for _ in 0..<120 {
                    let state = box.sim.state
                    let reflex = QuestMachine.pressReflex(state, env: QuestEnvironment(now: box.sim.wallClock, newID: uuid(1)), at: t)
                    for role in ButtonRole.allCases {
                        for offset in offsets {
                            let at = t + offset
                            // The box fires a timer due before the press first (and works the reflex out again).
                            if let due = box.sim.timers.next?.atNanos, due <= at { continue }
                            let wall = box.sim.wallClock.addingTimeInterval(Double(at - box.sim.nowNanos) / 1e9)
                            let stepped = Self.stepLED(state, role, at: at, env: QuestEnvironment(now: wall, newID: uuid(2)))
                            if stepped != nil { lit += 1 }
                            guard let ahead = reflex.pattern(forPressOf: role, at: at) else { continue }
                            answered += 1
                            answeredIn.insert(state.phase.name)
                            #expect(stepped == ahead, "\(name), \(state.phase.name): \(role) at +\(offset) ns lit \(ahead), its step \(String(describing: stepped))")
                        }
                    }
                    t += gaps.randomElement(using: &rng) ?? second
                    let role = ButtonRole.allCases.randomElement(using: &rng) ?? .lock
                    switch Int.random(in: 0..<40, using: &rng) {
                    case 0: box.sim.send(.claim(.start(id: "c", reset: false, match: "471"), atNanos: t), at: t)
                    case 1: box.sim.send(.claim(.cancel(id: "c"), atNanos: t), at: t)
                    case 2: box.sim.send(.pairing(.show(id: "p", code: "538102"), atNanos: t), at: t)
                    case 3: box.sim.send(.buttonCheck(on: Bool.random(using: &rng), atNanos: t), at: t)
                    case 4: box.sim.send(.house(.remindNow, atNanos: t), at: t)
                    case 5: box.sim.send(.touch(role, pressed: !(box.sim.levels[role] ?? false), atNanos: t), at: t)
                    default: box.sim.send(.button(role, pressed: !(box.sim.levels[role] ?? false), atNanos: t), at: t)
                    }
                }
            }
        }
        // The reflex is no use if it rarely answers: the presses that light something find it
        // there (a press within a window lights nothing, so none is left to the step).
        #expect(answered * 100 >= lit * 95, "answered \(answered) of \(lit) presses that light the LED")
        print("PressReflexTests: answered ahead \(answered) of \(lit) presses that light the LED")
        for phase in ["idle", "estimating", "revealing", "intro", "reflection"] {
            #expect(answeredIn.contains(phase), "no press answered ahead while \(phase)")
        }
    }

    @Test("GAME-8, the debounce window and a button held: the reflex waits for the step")
    func windowsAreLeftToTheStep() {
        var box = Box()
        let t0 = 2_000 * second
        box.tap(.lock, at: t0)  // the quest starts
        let env = QuestEnvironment(now: box.sim.wallClock, newID: uuid(1))
        let estimating = QuestMachine.pressReflex(box.sim.state, env: env, at: t0 + 500 * milli)
        #expect(estimating.pattern(forPressOf: .lock, at: t0 + 500 * milli) == .active, "LOCK locks in: the timing heartbeat")
        // A bounce of the LOCK press (inside its window) counts for nothing.
        box.sim.press(.lock, at: t0 + second)
        let held = QuestMachine.pressReflex(box.sim.state, env: env, at: t0 + second)
        #expect(held.pattern(forPressOf: .lock, at: t0 + 2 * second) == nil, "a button already down")
        box.sim.release(.lock, at: t0 + second + 80 * milli)
        let afterLock = QuestMachine.pressReflex(box.sim.state, env: env, at: t0 + second + 80 * milli)
        let window = box.sim.state.debouncer.windowNanos
        #expect(afterLock.pattern(forPressOf: .lock, at: t0 + second + 80 * milli + window - 1) == nil, "inside the release's window")
        // The reveal moved on by itself: a press within GAME-8's grace waits for the step.
        var moved = Box()
        moved.tap(.lock, at: t0)
        moved.tap(.lock, at: t0 + second)
        moved.tap(.stop, at: t0 + 30 * second)
        moved.sim.advance(to: t0 + 40 * second)  // the reveal's 8 s are over
        guard let changed = moved.sim.state.changedByItselfAt else { Issue.record("the reveal did not move on by itself"); return }
        let grace = QuestMachine.pressReflex(moved.sim.state, env: env, at: changed)
        #expect(grace.pattern(forPressOf: .lock, at: changed + QuestMachine.changedByItselfGraceNanos - 1) == nil)
        #expect(grace.pattern(forPressOf: .lock, at: changed + QuestMachine.changedByItselfGraceNanos) == .active)
    }
}
