import Foundation
import Testing
@testable import QuestCore

/// A box on a virtual clock with one 3-task morning routine (active every day).
struct Box {
    static let cal = calendar("Europe/Berlin")
    static let routineID = uuid(0xA00)
    static let tasks = [uuid(0xA01), uuid(0xA02), uuid(0xA03)]
    static let morning = Routine(
        id: routineID, name: "school-morning", displayName: "Morning Quest", activeDays: Array(1...7),
        tasks: [RoutineTask(id: tasks[0], name: "teeth", displayName: "Tooth Time", referenceDurationSeconds: 120),
                RoutineTask(id: tasks[1], name: "dress", displayName: "Get Dressed"),
                RoutineTask(id: tasks[2], name: "bag", displayName: "Pack Bag")])

    var sim: QuestSimulator

    /// `speaks`: the shell's decision that the box speaks (#35).
    init(world: QuestWorld? = nil, rules: GameRules = .standard, start: Date = at(2026, 6, 10, 7, 0, Box.cal), monotonicStart: Int64 = 0, speaks: Bool = false) {
        let w = world ?? QuestWorld(routines: [Box.morning], profile: PlayerProfile(totalXP: 50, sessionsCompleted: 5), calendar: Box.cal, bootID: "boot-1")
        var state = QuestState(world: w, rules: rules)
        state.voice.speaks = speaks
        sim = QuestSimulator(state: state, wallClockStart: start, monotonicStart: monotonicStart, ids: .sequential(next: 1))
        sim.start()
    }

    /// A clean press and release `hold` later.
    @discardableResult
    mutating func tap(_ role: ButtonRole, at t: Int64, hold: Int64 = 80 * milli) -> [QuestEffect] {
        let down = sim.press(role, at: t)
        return down + sim.release(role, at: t + hold)
    }

    var phase: String { sim.state.phase.name }
    var persisted: [PersistRequest] { sim.allEffects.compactMap { if case .persist(let p) = $0 { p } else { nil } } }
    var estimations: [TaskEstimation] { persisted.compactMap { if case .estimationCompleted(let e) = $0 { e } else { nil } } }
    var sounds: [SoundID] { sim.allEffects.compactMap { if case .playSound(let s) = $0 { s } else { nil } } }
    var lastLED: LEDPattern? { sim.allEffects.compactMap { if case .led(let p) = $0 { p } else { nil } }.last }
    var lastScreen: Screen? { sim.allEffects.compactMap { if case .display(let s) = $0 { s } else { nil } }.last }
}

@Suite("QuestMachine walk-throughs (GAME-1 … GAME-6)")
struct MachineTests {
    @Test("GAME-3: a full 3-task quest: durations are exactly the press-edge differences")
    func fullQuest() {
        var box = Box()
        let t0 = 2_000 * second
        box.tap(.lock, at: t0)  // start the quest
        #expect(box.phase == "estimating")
        guard case .estimating(let e)? = box.lastScreen else { Issue.record("no estimate screen"); return }
        #expect(e.estimateSeconds == 120 && e.taskName == "Tooth Time" && e.taskCount == 3)

        // Task 1: estimate 2:00, takes 2:00.250000123 → spot on. Reveal continues on a press.
        let lock1 = t0 + 5 * second + 123
        box.tap(.lock, at: lock1)
        #expect(box.phase == "active")
        let stop1 = lock1 + 120 * second + 250 * milli
        box.tap(.stop, at: stop1, hold: 90 * milli)
        #expect(box.phase == "revealing")
        box.tap(.lock, at: stop1 + 3 * second)

        // Task 2: dial down to 1:30, takes 3:10 → way off. The reveal times out after 8 s.
        box.tap(.down, at: stop1 + 4 * second)
        box.tap(.down, at: stop1 + 5 * second)
        let lock2 = stop1 + 6 * second
        box.tap(.lock, at: lock2)
        let stop2 = lock2 + 190 * second
        box.tap(.stop, at: stop2)
        box.sim.advance(to: stop2 + 8 * second + 100 * milli)
        #expect(box.phase == "estimating")

        // Task 3: 2:00 against 2:30 → close (30 s of 150 s = 20 %).
        let lock3 = stop2 + 12 * second  // GAME-8: past 3 s after the reveal moved on by itself
        box.tap(.lock, at: lock3)
        box.tap(.stop, at: lock3 + 150 * second)
        box.tap(.up, at: lock3 + 152 * second)  // any button continues
        #expect(box.phase == "summary")

        let e3 = box.estimations
        #expect(e3.count == 3)
        #expect(e3[0].actualSeconds == Double(stop1 - lock1) / 1e9)
        #expect(e3[0].lockMonotonicNanos == lock1 && e3[0].stopMonotonicNanos == stop1)
        #expect(e3.map(\.rating) == [.spotOn, .wayOff, .close])
        #expect(e3.map(\.estimatedSeconds) == [120, 90, 120])
        #expect(e3[1].actualSeconds == 190)
        #expect(e3.map(\.orderIndex) == [0, 1, 2])
        #expect(e3.allSatisfy { $0.sessionID == e3[0].sessionID && !$0.isCalibration && $0.bootID == "boot-1" })

        guard case .sessionCompleted(let session)? = box.persisted.last else { Issue.record("no completion"); return }
        #expect(session.status == .completed && session.xpEarned == 100 + 10 + 60 + 20)
        // The machine's own view of the totals (the screens); the store derives the stored ones.
        let profile = box.sim.state.world.profile
        #expect(profile.totalXP == 240 && profile.sessionsCompleted == 6 && profile.currentStreak == 1)
        guard case .summary(let summary)? = box.lastScreen else { Issue.record("no summary"); return }
        #expect(summary.sessionXP == 190 && summary.level == 1 && summary.questName == "Morning Quest")
        #expect(box.sounds.filter { $0 == .revealSpotOn || $0 == .revealWayOff || $0 == .revealClose } == [.revealSpotOn, .revealWayOff, .revealClose])
        #expect(box.sounds.last == .questComplete)

        // The summary returns to idle by itself; then nothing more is pending.
        box.sim.runUntilQuiet()
        #expect(box.phase == "idle")
        #expect(box.sim.timers.isEmpty)
    }

    @Test("the start-up rehearsal plays a whole quest on a copy: two reveals, the summary, the player's world untouched")
    func rehearsal() {
        let box = Box()
        let before = box.sim.state.world
        let effects = QuestRehearsal.run(world: before, rules: .standard, wallClock: at(2026, 6, 10, 7, 0, Box.cal))
        let reveals = effects.filter { if case .playSound(let s) = $0 { s.rawValue.hasPrefix("reveal_") } else { false } }
        let stored = effects.filter { if case .persist(.estimationCompleted) = $0 { true } else { false } }
        #expect(reveals.count == 2 && stored.count == 2)
        #expect(effects.contains { if case .display(.summary) = $0 { true } else { false } })
        #expect(box.sim.state.world == before)
    }

    @Test("the completed estimation is persisted before the reveal is sounded, lit or shown")
    func persistBeforeReveal() {
        var box = Box()
        box.tap(.lock, at: 10 * second)
        box.tap(.lock, at: 11 * second)
        let effects = box.tap(.stop, at: 100 * second)
        let persistIndex = effects.firstIndex { if case .persist(.estimationCompleted) = $0 { true } else { false } }
        let firstOutput = effects.firstIndex { e in
            switch e {
            case .playSound(let s): s == .revealSpotOn || s == .revealClose || s == .revealOff || s == .revealWayOff
            case .display(.reveal), .led(.reveal), .buzzer(.reveal): true
            default: false
            }
        }
        #expect(persistIndex != nil && firstOutput != nil && persistIndex! < firstOutput!)
    }

    @Test("bounce bursts: one press, measured from its first edge; nothing double-counted")
    func bounce() {
        var box = Box()
        func burst(_ role: ButtonRole, at t: Int64, edges: Int) {
            // Alternating edges 0.4 ms apart, starting (and, for an odd count, ending) pressed.
            for i in 0..<edges { box.sim.send(.button(role, pressed: i % 2 == 0, atNanos: t + Int64(i) * 400_000), at: t + Int64(i) * 400_000) }
        }
        burst(.lock, at: 1 * second, edges: 15)
        box.sim.release(.lock, at: 1 * second + 200 * milli)
        burst(.down, at: 2 * second, edges: 9)
        box.sim.release(.down, at: 2 * second + 100 * milli)
        guard case .estimating(_, _, let estimate) = box.sim.state.phase else { Issue.record("not estimating"); return }
        #expect(estimate == 105)  // one step, not five
        let lock = 3 * second
        burst(.lock, at: lock, edges: 11)
        box.sim.release(.lock, at: lock + 150 * milli)
        let stop = lock + 100 * second
        burst(.stop, at: stop, edges: 13)
        box.sim.release(.stop, at: stop + 120 * milli)
        #expect(box.estimations.count == 1)
        #expect(box.estimations[0].actualSeconds == 100)
        #expect(box.persisted.filter { if case .sessionStarted = $0 { true } else { false } }.count == 1)
    }

    @Test("a tap shorter than the debounce window still releases (no stuck button)")
    func shortTapSettles() {
        var box = Box()
        box.tap(.lock, at: 1 * second)
        // Down for 4 ms with a bounce on release, all inside the 30 ms window.
        box.sim.press(.up, at: 2 * second)
        box.sim.release(.up, at: 2 * second + 4 * milli)
        #expect(box.sim.state.debouncer.isPressed(.up))
        box.sim.advance(to: 2 * second + 31 * milli)
        #expect(!box.sim.state.debouncer.isPressed(.up))
        // No hold-repeat runs away afterwards.
        box.sim.advance(to: 5 * second)
        guard case .estimating(_, _, let estimate) = box.sim.state.phase else { Issue.record("not estimating"); return }
        #expect(estimate == 150)
    }

    @Test("GAME-4: a stop 1 s after lock-in is ignored; the real stop counts with its own timestamp")
    func accidentalStop() {
        var box = Box()
        box.tap(.lock, at: 1 * second)
        let lock = 2 * second
        box.tap(.lock, at: lock)
        box.tap(.stop, at: lock + 1 * second)
        #expect(box.phase == "active")
        #expect(box.estimations.isEmpty)
        box.tap(.stop, at: lock + 1_500 * milli, hold: 100 * milli)
        #expect(box.phase == "active")
        box.sim.press(.stop, at: lock + 1_950 * milli)
        box.sim.release(.stop, at: lock + 1_950 * milli + 300_000)  // a 0.3 ms glitch
        #expect(box.phase == "active")
        box.sim.advance(to: lock + 1_950 * milli + 31 * milli)
        #expect(box.phase == "active")
        box.tap(.stop, at: lock + 2 * second)  // exactly the guard: counts
        #expect(box.phase == "revealing")
        #expect(box.estimations.first?.actualSeconds == 2)
    }

    @Test("GAME-4 configurable: the stored stop guard replaces the 2 s default; 0 turns it off")
    func configuredStopGuard() {
        for (guardSeconds, ignoredAt, countsAt) in [(5, 4_900 * milli, 5 * second), (0, nil, 100 * milli)] as [(Int, Int64?, Int64)] {
            var world = QuestWorld(routines: [Box.morning], calendar: Box.cal, bootID: "boot-1")
            world.settings.stopGuardSeconds = guardSeconds
            var box = Box(world: world)
            box.tap(.lock, at: 1 * second)
            let lock = 2 * second
            box.tap(.lock, at: lock)
            if let ignoredAt {
                box.tap(.stop, at: lock + ignoredAt)
                #expect(box.phase == "active", "guard \(guardSeconds)")
            }
            box.tap(.stop, at: lock + countsAt)
            #expect(box.phase == "revealing", "guard \(guardSeconds)")
            #expect(box.estimations.first?.actualSeconds == Double(countsAt) / 1e9)
        }
    }

    @Test("GAME-2: nothing shows or sounds the running time while active")
    func noClockWhileActive() {
        var box = Box()
        box.tap(.lock, at: 1 * second)
        box.tap(.lock, at: 2 * second)
        var effects: [QuestEffect] = []
        for (i, role) in [ButtonRole.up, .down, .lock, .up].enumerated() {
            effects += box.tap(role, at: 10 * second + Int64(i) * second)
        }
        box.sim.advance(to: 3600 * second)
        effects += box.sim.log.filter { $0.atNanos > 3 * second }.flatMap(\.effects)
        #expect(!effects.contains { if case .display = $0 { true } else { false } })
        #expect(!effects.contains { if case .playSound = $0 { true } else { false } })
        #expect(box.phase == "active")
    }

    @Test("hold-repeat: starts after 800 ms and accelerates down to the minimum interval")
    func holdRepeat() {
        var box = Box()
        box.tap(.lock, at: 1 * second)
        let t = 5 * second
        box.sim.press(.up, at: t)
        box.sim.advance(to: t + 4 * second)
        box.sim.release(.up, at: t + 4 * second)
        let fires = box.sim.log.filter { if case .timerFired(.holdRepeat(.up), _) = $0.event { true } else { false } }.map(\.atNanos)
        #expect(fires.first == t + 800 * milli)
        let gaps = zip(fires.dropFirst(), fires).map { $0 - $1 }
        #expect(gaps.first == 250 * milli)
        #expect(gaps.last == 60 * milli)
        for (a, b) in zip(gaps, gaps.dropFirst()) { #expect(b <= a) }
        #expect(Set(gaps).count > 4)
        guard case .estimating(_, _, let estimate) = box.sim.state.phase else { Issue.record("not estimating"); return }
        // One step on press plus one per repeat, each snapped to its band's grid.
        var expected = 120
        for _ in 0..<(1 + fires.count) { expected = EstimateStepper.up(expected) }
        #expect(estimate == expected)
        #expect(box.sounds.filter { $0 == .estimateTick }.count == 1 + fires.count)
        // Released: no more repeats (the line is read once more as its window closes).
        let after = box.sim.log.count
        box.sim.advance(to: t + 10 * second)
        #expect(!box.sim.log.dropFirst(after).contains { if case .timerFired(.holdRepeat, _) = $0.event { true } else { false } })
        #expect(box.sim.log.dropFirst(after).allSatisfy { $0.atNanos <= t + 4 * second + 30 * milli })
    }

    @Test("abandon: holding stop 3 s while active or estimating pauses the quest (GAME-7); 2.9 s does not")
    func abandon() {
        var box = Box()
        box.tap(.lock, at: 1 * second)
        box.tap(.lock, at: 2 * second)
        box.sim.press(.stop, at: 30 * second)
        box.sim.advance(to: 32_900 * milli)
        #expect(box.phase == "active")
        box.sim.advance(to: 33 * second)
        #expect(box.phase == "idle")
        box.sim.release(.stop, at: 34 * second)
        #expect(box.estimations.isEmpty)
        guard case .sessionPaused(let s)? = box.persisted.last else { Issue.record("not paused"); return }
        #expect(s.status == .paused)
        guard case .idle(let idle)? = box.lastScreen else { Issue.record("not idle"); return }
        #expect(idle.notice == QuestMachine.abandonedNotice)

        // While estimating, a short stop press does nothing; a 3 s hold abandons.
        var est = Box()
        est.tap(.lock, at: 1 * second)
        est.tap(.stop, at: 2 * second, hold: 2_900 * milli)
        #expect(est.phase == "estimating")
        est.tap(.stop, at: 10 * second, hold: 3_500 * milli)
        #expect(est.phase == "idle")

        // A stop released before 3 s while active is a normal stop.
        var normal = Box()
        normal.tap(.lock, at: 1 * second)
        normal.tap(.lock, at: 2 * second)
        normal.tap(.stop, at: 62 * second, hold: 2_500 * milli)
        #expect(normal.phase == "revealing")
        #expect(normal.estimations.first?.actualSeconds == 60)
    }

    @Test("GAME-6: the reveal continues after 8 s or on any button")
    func revealTimeout() {
        var box = Box()
        box.tap(.lock, at: 1 * second)
        box.tap(.lock, at: 2 * second)
        box.tap(.stop, at: 100 * second, hold: 100 * milli)
        box.sim.advance(to: 108_099 * milli)
        #expect(box.phase == "revealing")
        box.sim.advance(to: 108_100 * milli)
        #expect(box.phase == "estimating")
        guard case .estimating(let s)? = box.lastScreen else { Issue.record("no screen"); return }
        #expect(s.taskNumber == 2)
    }

    @Test("GAME-4: a task running past 3 h is abandoned, unscored")
    func taskLimit() {
        var box = Box()
        box.tap(.lock, at: 1 * second)
        box.tap(.lock, at: 2 * second)
        box.sim.advance(to: 2 * second + 3 * 3600 * second - 1)
        #expect(box.phase == "active")
        box.sim.advance(to: 2 * second + 3 * 3600 * second)
        #expect(box.phase == "idle")
        #expect(box.estimations.isEmpty)
        guard case .idle(let idle)? = box.lastScreen else { Issue.record("not idle"); return }
        #expect(idle.notice == QuestMachine.tooLongNotice)
    }

    @Test("GAME-1: only today's active routines, by display name or Quest N; up/down choose")
    func todaysQuests() {
        let sundayOnly = Routine(id: uuid(0xB00), name: "sunday-chores", displayName: "Chores", activeDays: [1], tasks: Box.morning.tasks)
        let unnamed = Routine(id: uuid(0xC00), name: "secret-internal-name", displayName: "  ", activeDays: Array(1...7), tasks: Box.morning.tasks)
        let inactive = Routine(id: uuid(0xD00), name: "off", displayName: "Paused", activeDays: Array(1...7), isActive: false, tasks: Box.morning.tasks)
        let empty = Routine(id: uuid(0xE00), name: "empty", displayName: "Empty", activeDays: Array(1...7), tasks: [])
        let world = QuestWorld(routines: [sundayOnly, Box.morning, unnamed, inactive, empty], calendar: Box.cal, bootID: "b")
        var box = Box(world: world)  // 2026-06-10 is a Wednesday
        guard case .idle(let idle)? = box.lastScreen else { Issue.record("not idle"); return }
        #expect(idle.quests.map(\.name) == ["Morning Quest", "Quest 2"])
        #expect(!idle.quests.map(\.name).contains("secret-internal-name"))
        #expect(idle.selectedIndex == 0)
        box.tap(.down, at: 1 * second)
        box.tap(.lock, at: 2 * second)
        guard case .sessionStarted(let s)? = box.persisted.first else { Issue.record("no session"); return }
        #expect(s.routineID == uuid(0xC00) && s.routineDisplayName == "Quest 2")

        // On a Sunday the Sunday routine is offered too.
        let sunday = Box(world: world, start: at(2026, 6, 14, 9, 0, Box.cal))
        guard case .idle(let idleSunday)? = sunday.lastScreen else { Issue.record("not idle"); return }
        #expect(idleSunday.quests.map(\.name) == ["Chores", "Morning Quest", "Quest 3"])

        // No quests today: lock does nothing, the LED stays off.
        let none = Box(world: QuestWorld(routines: [sundayOnly], calendar: Box.cal, bootID: "b"))
        var noneBox = none
        noneBox.tap(.lock, at: 1 * second)
        #expect(noneBox.phase == "idle")
        #expect(noneBox.sim.allEffects.contains(.led(.off)))
        #expect(noneBox.persisted.isEmpty)
    }

    @Test("§2 no screen: with 2 quests the LED counts the selected one (blue, green once played, yellow when reminded) and up/down buzz its number")
    func noScreenSelection() {
        let evening = Routine(id: uuid(0xF00), name: "evening", displayName: "Evening Quest", activeDays: Array(1...7), tasks: [Box.morning.tasks[0]])
        var box = Box(world: QuestWorld(routines: [Box.morning, evening], calendar: Box.cal, bootID: "b"))
        #expect(box.lastLED == .questNumber(1, color: .blue, looping: true))
        let down = box.tap(.down, at: 1 * second)
        #expect(down.contains(.led(.questNumber(2, color: .blue, looping: true))))
        #expect(down.contains(.buzzer(.questNumber(2))))
        #expect(!down.contains { if case .playSound = $0 { true } else { false } })
        let wrap = box.tap(.down, at: 2 * second)
        #expect(wrap.contains(.led(.questNumber(1, color: .blue, looping: true))) && wrap.contains(.buzzer(.questNumber(1))))
        // Play the evening quest (one task): back at idle the quest left to play is selected;
        // the played one counts in green, still looping (the morning quest is left).
        box.tap(.up, at: 3 * second)
        box.tap(.lock, at: 4 * second)
        box.tap(.lock, at: 5 * second)
        box.tap(.stop, at: 70 * second)
        box.tap(.lock, at: 72 * second)
        box.tap(.lock, at: 74 * second)
        #expect(box.phase == "idle")
        #expect(box.lastLED == .questNumber(1, color: .blue, looping: true))
        box.tap(.down, at: 76 * second)
        #expect(box.lastLED == .questNumber(2, color: .green, looping: true))
        // Reminded and not played: yellow.
        var world = QuestWorld(routines: [Box.morning, evening], calendar: Box.cal, bootID: "b")
        world.reminders[Box.routineID] = at(2026, 6, 10, 6, 45, Box.cal)
        let reminded = Box(world: world)
        #expect(reminded.lastLED == .questNumber(1, color: .yellow, looping: true))
        // Everything played: the number blinks once, then the light rests.
        var done = QuestWorld(routines: [Box.morning, evening], calendar: Box.cal, bootID: "b")
        done.plays = [QuestPlay(routineID: Box.routineID, completedAt: at(2026, 6, 10, 6, 30, Box.cal), measuredTaskSeconds: 300),
                      QuestPlay(routineID: evening.id, completedAt: at(2026, 6, 10, 6, 40, Box.cal), measuredTaskSeconds: 60)]
        var rested = Box(world: done)
        #expect(rested.lastLED == .questNumber(1, color: .green, looping: false))
        #expect(rested.tap(.down, at: 1 * second).contains(.buzzer(.questNumber(2))))
        // One quest: nothing to choose, the plain blink and no buzz.
        var single = Box()
        #expect(single.lastLED == .questAvailable)
        #expect(!single.tap(.down, at: 1 * second).contains { if case .buzzer = $0 { true } else { false } })
    }

    @Test("§2 no screen: every estimate step ticks; with estimate.readback off the lock-in is one tap")
    func noScreenEstimate() {
        var off = Box()
        off.tap(.lock, at: 1 * second)
        off.tap(.up, at: 2 * second)
        off.tap(.up, at: 3 * second)
        off.tap(.down, at: 4 * second)
        #expect(off.sounds.filter { $0 == .estimateTick }.count == 3)
        off.tap(.lock, at: 5 * second)
        #expect(off.sim.allEffects.contains(.buzzer(.tap)) && !off.sim.allEffects.contains { if case .buzzer(.readBack) = $0 { true } else { false } })
        // With estimate.readback on, the `readBack` test hears the read-back.
    }

    @Test("CAL-1: the first 3 completed sessions are calibration; abandoned ones do not count")
    func calibrationSessions() {
        var box = Box(world: QuestWorld(routines: [Box.morning], calendar: Box.cal, bootID: "b"))
        var t = 1 * second
        func playQuest() {
            box.tap(.lock, at: t); t += second
            for _ in 0..<3 {
                box.tap(.lock, at: t); t += 60 * second
                box.tap(.stop, at: t); t += second
                box.tap(.lock, at: t); t += second
            }
            box.tap(.lock, at: t); t += second  // summary → idle
        }
        playQuest()
        box.tap(.lock, at: t); t += second  // a quest abandoned at once
        box.tap(.stop, at: t, hold: 3_100 * milli); t += 5 * second
        playQuest()
        playQuest()
        playQuest()
        let flags = box.estimations.map(\.isCalibration)
        #expect(flags == Array(repeating: true, count: 9) + Array(repeating: false, count: 3))
        let reveals = box.sim.allEffects.compactMap { if case .display(.reveal(let r)) = $0 { r } else { nil } }
        #expect(reveals.prefix(9).allSatisfy { $0.feedback.headline == FeedbackGenerator.calibrationHeadline })
        #expect(reveals.suffix(3).allSatisfy { $0.feedback.headline != FeedbackGenerator.calibrationHeadline })
    }

    @Test("first suggestion is the player's last estimate; hint after 5 non-calibration plays; PB celebrated")
    func memoryHintAndPersonalBest() {
        var box = Box()
        var t = 1 * second
        // Each play on a day of its own: the same day, a lock would pick up the paused quest
        // at its second task (GAME-7).
        func nextDay() { t += 86_400 * second }
        func playTooth(estimateSteps: Int, takes seconds: Int64) {
            nextDay()
            box.tap(.lock, at: t); t += second
            for _ in 0..<estimateSteps { box.tap(.up, at: t); t += second }
            box.tap(.lock, at: t); t += seconds * second
            box.tap(.stop, at: t); t += second
            box.tap(.stop, at: t, hold: 3_200 * milli); t += 5 * second  // continue, then abandon the rest
            box.tap(.stop, at: t, hold: 3_200 * milli); t += 5 * second
        }
        playTooth(estimateSteps: 1, takes: 200)  // estimate 2:30, 50 s off
        nextDay()
        guard case .estimating(let s)? = { box.tap(.lock, at: t); t += second; return box.lastScreen }() else { Issue.record("no screen"); return }
        #expect(s.estimateSeconds == 150)
        #expect(s.hint == nil)
        box.tap(.stop, at: t, hold: 3_200 * milli); t += 5 * second
        for takes in [151, 170, 140, 160] as [Int64] { playTooth(estimateSteps: 0, takes: takes) }
        let reveals = box.sim.allEffects.compactMap { if case .display(.reveal(let r)) = $0 { r } else { nil } }
        #expect(reveals.map(\.isPersonalBest) == [false, true, false, false, false])
        #expect(box.sounds.filter { $0 == .personalBest }.count == 1)
        nextDay()
        box.tap(.lock, at: t); t += second
        guard case .estimating(let withHint)? = box.lastScreen else { Issue.record("no screen"); return }
        #expect(withHint.hint == "Last 5 times this took about 2:45")  // median 160 s, to the nearest 15 s

        var off = Box()
        off.sim = QuestSimulator(state: { var st = box.sim.state; st.world.settings.hintsEnabled = false; st.phase = .idle(selectedRoutineID: nil, notice: nil); st.debouncer = ButtonDebouncer(windowNanos: 30 * milli); return st }(), wallClockStart: at(2026, 6, 10, 7, 0, Box.cal))
        off.sim.start()
        off.tap(.lock, at: 1 * second)
        guard case .estimating(let noHint)? = off.lastScreen else { Issue.record("no screen"); return }
        #expect(noHint.hint == nil)
    }

    @Test("level-up and streak are celebrated at the summary; XP persists per estimation, totals never")
    func summaryCelebrations() {
        var world = QuestWorld(routines: [Box.morning], profile: PlayerProfile(totalXP: 200, currentStreak: 2, lastPlayedDate: at(2026, 6, 9, 7, 0, Box.cal), sessionsCompleted: 10), calendar: Box.cal, bootID: "b")
        world.settings.streakPolicy = .pause
        var box = Box(world: world)
        var t = 1 * second
        box.tap(.lock, at: t); t += second
        for _ in 0..<3 {
            box.tap(.lock, at: t); t += 120 * second
            box.tap(.stop, at: t); t += second
            box.tap(.lock, at: t); t += second
        }
        let xp = box.persisted.compactMap { if case .estimationCompleted(let e) = $0 { e.xpEarned } else { nil } }
        #expect(xp == [100, 100, 100])
        guard case .summary(let s)? = box.lastScreen else { Issue.record("no summary"); return }
        #expect(s.leveledUp && s.level == 3 && s.totalXP == 520)
        #expect(s.streakMilestone == 3 && s.streakText == "Streak: 3 days")
        #expect(box.sounds.last == .levelUp)
        #expect(box.sim.allEffects.contains(.buzzer(.celebration)))
    }

    @Test("joker policy: the summary shows the joker streak and jokers")
    func jokerSummary() {
        var world = QuestWorld(routines: [Box.morning], profile: PlayerProfile(sessionsCompleted: 10), calendar: Box.cal, bootID: "b")
        world.settings.streakPolicy = .joker
        world.plays = (3...9).map { QuestPlay(routineID: Box.routineID, completedAt: at(2026, 6, $0, 7, 30, Box.cal), measuredTaskSeconds: 400) }
        var box = Box(world: world)
        var t = 1 * second
        box.tap(.lock, at: t); t += second
        for _ in 0..<3 {
            box.tap(.lock, at: t); t += 120 * second
            box.tap(.stop, at: t); t += second
            box.tap(.lock, at: t); t += second
        }
        guard case .summary(let s)? = box.lastScreen else { Issue.record("no summary"); return }
        #expect(s.streakText == "Streak: 8 days · jokers: 1")
    }

    @Test("GAME-5: same boot resumes with the exact duration")
    func restoreSameBoot() {
        let session = GameSession(id: uuid(77), routineID: Box.routineID, routineDisplayName: "Morning Quest", startedAt: at(2026, 6, 10, 6, 55, Box.cal), startedMonotonicNanos: 400 * second, bootID: "boot-1", isCalibration: false)
        let first = TaskEstimation(id: uuid(78), sessionID: uuid(77), taskID: Box.tasks[0], taskDisplayName: "Tooth Time", routineDisplayName: "Morning Quest", orderIndex: 0, result: TimeEstimationScorer.score(estimated: 120, actual: 118), xpEarned: 100, isCalibration: false, recordedAt: at(2026, 6, 10, 6, 58, Box.cal), lockMonotonicNanos: 420 * second, stopMonotonicNanos: 538 * second, bootID: "boot-1")
        let task = InProgressTask(session: session, taskIndex: 1, taskID: Box.tasks[1], estimatedSeconds: 300, lockMonotonicNanos: 600 * second + 7, bootID: "boot-1", lockedAt: at(2026, 6, 10, 6, 59, Box.cal), lockedAtTrusted: true)
        var box = Box()
        box.sim.send(.restoreInProgress(task, completedEstimations: [first], atNanos: 1_000 * second), at: 1_000 * second)
        #expect(box.phase == "active")
        box.tap(.stop, at: 1_100 * second)
        #expect(box.estimations.first?.actualSeconds == Double(500 * second - 7) / 1e9)
        #expect(box.estimations.first?.sessionID == uuid(77))
        box.tap(.lock, at: 1_105 * second)   // on within the reveal's 8 s
        box.tap(.lock, at: 1_106 * second)
        box.tap(.stop, at: 1_200 * second)
        box.tap(.lock, at: 1_205 * second)
        guard case .sessionCompleted(let done)? = box.persisted.last else { Issue.record("not completed"); return }
        #expect(done.id == uuid(77))
        #expect(done.xpEarned == 100 + box.estimations.reduce(0) { $0 + $1.xpEarned } + 20)
    }

    @Test("GAME-5: after a reboot it resumes from a trusted wall clock, else the task is offered again")
    func restoreAfterReboot() {
        let session = GameSession(id: uuid(77), routineID: Box.routineID, routineDisplayName: "Morning Quest", startedAt: at(2026, 6, 10, 6, 55, Box.cal), startedMonotonicNanos: 400 * second, bootID: "old-boot", isCalibration: false)
        let task = InProgressTask(session: session, taskIndex: 0, taskID: Box.tasks[0], estimatedSeconds: 300, lockMonotonicNanos: 900_000 * second, bootID: "old-boot", lockedAt: at(2026, 6, 10, 6, 58, Box.cal), lockedAtTrusted: true)
        // Box starts 07:00 at monotonic 1000 s: 2 minutes after the lock.
        var trusted = Box(monotonicStart: 20 * second)  // started 07:00, two minutes after the lock
        trusted.sim.send(.restoreInProgress(task, completedEstimations: [], atNanos: 20 * second), at: 20 * second)
        #expect(trusted.phase == "active")
        guard case .taskStarted(let moved)? = trusted.persisted.last else { Issue.record("not re-persisted"); return }
        #expect(moved.bootID == "boot-1" && moved.lockMonotonicNanos == 20 * second - 120 * second)
        trusted.tap(.stop, at: 200 * second)
        #expect(trusted.estimations.first?.actualSeconds == 300)

        var untrusted = Box(monotonicStart: 20 * second)
        untrusted.sim.wallClockTrusted = false
        untrusted.sim.send(.restoreInProgress(task, completedEstimations: [], atNanos: 20 * second), at: 20 * second)
        #expect(untrusted.phase == "estimating")
        #expect(untrusted.persisted.last == .inProgressCleared)
        guard case .estimating(let s)? = untrusted.lastScreen else { Issue.record("no screen"); return }
        #expect(s.estimateSeconds == 300 && s.taskNumber == 1)

        // Lock-in while the clock was untrusted cannot be bridged either.
        var lockedUntrusted = task
        lockedUntrusted.lockedAtTrusted = false
        var box3 = Box(monotonicStart: 20 * second)
        box3.sim.send(.restoreInProgress(lockedUntrusted, completedEstimations: [], atNanos: 20 * second), at: 20 * second)
        #expect(box3.phase == "estimating")

        // More than 3 h ago: abandoned.
        var old = task
        old.lockedAt = at(2026, 6, 10, 3, 0, Box.cal)
        var box4 = Box(monotonicStart: 20 * second)
        box4.sim.send(.restoreInProgress(old, completedEstimations: [], atNanos: 20 * second), at: 20 * second)
        #expect(box4.phase == "idle")
        guard case .sessionAbandoned? = box4.persisted.last else { Issue.record("not abandoned"); return }

        // The routine is gone: abandoned, back to idle.
        var gone = task
        gone.session.routineID = uuid(0xFFF)
        var box5 = Box(monotonicStart: 20 * second)
        box5.sim.send(.restoreInProgress(gone, completedEstimations: [], atNanos: 20 * second), at: 20 * second)
        #expect(box5.phase == "idle")
    }

    @Test("lock-in persists the in-progress task with kernel time, boot id and wall time")
    func lockPersists() {
        var box = Box()
        box.tap(.lock, at: 1 * second)
        box.tap(.lock, at: 42 * second + 5)
        guard case .taskStarted(let t)? = box.persisted.last else { Issue.record("no task"); return }
        #expect(t.lockMonotonicNanos == 42 * second + 5 && t.bootID == "boot-1" && t.taskIndex == 0 && t.estimatedSeconds == 120)
        #expect(abs(t.lockedAt.timeIntervalSince(box.sim.wallClockStart) - 42) < 1e-3)  // wall time of the press
        #expect(t.lockedAtTrusted)
        #expect(box.sounds.contains(.lockIn))
        #expect(box.sim.allEffects.contains(.buzzer(.tap)))
    }

    @Test("read-back: a box without a display buzzes the locked estimate")
    func readBack() {
        var world = QuestWorld(routines: [Box.morning], calendar: Box.cal, bootID: "b")
        world.settings.estimateReadBack = true
        var box = Box(world: world)
        box.tap(.lock, at: 1 * second)
        box.tap(.up, at: 2 * second)
        box.tap(.lock, at: 3 * second)
        #expect(box.sim.allEffects.contains(.buzzer(.readBack(seconds: 150))))
    }

    /// Last week's (June 1–7) reflection, for a box on Wednesday June 10.
    static func lastWeeksReflection() -> WeeklyReflection {
        WeeklyReflectionEngine.computeReflection(
            snapshots: [snap("Teeth", est: 100, act: 100, on: at(2026, 6, 2, 7, 0, Box.cal))],
            sessions: [GameSession(id: uuid(5), routineID: Box.routineID, routineDisplayName: "M", startedAt: at(2026, 6, 2, 7, 0, Box.cal), startedMonotonicNanos: 0, bootID: "b", completedAt: at(2026, 6, 2, 7, 5, Box.cal), status: .completed, isCalibration: false)],
            weekContaining: at(2026, 6, 2, 7, 0, Box.cal), calendar: Box.cal)
    }

    static func boxWithReflection(start: Date = at(2026, 6, 10, 7, 0, Box.cal)) -> (Box, WeeklyReflection) {
        let r = lastWeeksReflection()
        var world = QuestWorld(routines: [Box.morning], calendar: Box.cal, bootID: "b")
        world.pendingReflection = r
        return (Box(world: world, start: start), r)
    }

    @Test("REFL-1: at the first quest of a new week the reflection comes first; lock goes straight on to the quest")
    func reflectionBeforeFirstQuest() {
        var (box, r) = Self.boxWithReflection()
        guard case .idle(let idle)? = box.lastScreen else { Issue.record("not idle"); return }
        #expect(idle.reflection == r)
        #expect(box.lastScreen?.textLines.contains("Your week in review comes with your first quest.") == true)
        let offered = box.tap(.lock, at: 1 * second)
        #expect(box.phase == "reflection")
        #expect(offered.contains(.display(.reflection(r))))
        #expect(offered.contains(.led(.reflection)))
        #expect(!box.persisted.contains { if case .sessionStarted = $0 { true } else { false } })
        #expect(box.lastScreen?.textLines.first == "Week Jun 1–7")
        box.tap(.lock, at: 5 * second)
        #expect(box.phase == "estimating")
        #expect(box.persisted.first == .reflectionDismissed(weekIdentifier: "2026-W23"))
        #expect(box.persisted.count == 2)  // the dismissal, then the session
        // The next quest of the week starts at once.
        box.tap(.stop, at: 6 * second, hold: 3_100 * milli)
        box.tap(.lock, at: 20 * second)
        #expect(box.phase == "estimating")
    }

    @Test("REFL-1: the reflection is never mandatory: stop or up/down skip it to idle; #48: 60 s without a press step it aside, kept until she dismisses it")
    func reflectionSkipped() {
        for role in [ButtonRole.stop, .up, .down] {
            var (box, r) = Self.boxWithReflection()
            box.tap(.lock, at: 1 * second)
            box.tap(role, at: 2 * second)
            #expect(box.phase == "idle", "\(role)")
            #expect(box.persisted == [.reflectionDismissed(weekIdentifier: r.weekIdentifier)])
            guard case .idle(let after)? = box.lastScreen else { Issue.record("not idle"); continue }
            #expect(after.reflection == nil)
            #expect(after.selectedIndex == 0)
            box.tap(.lock, at: 3 * second)
            #expect(box.phase == "estimating")
        }
        var (box, r) = Self.boxWithReflection()
        box.tap(.lock, at: 1 * second)
        box.sim.advance(to: 60 * second)
        #expect(box.phase == "reflection")
        box.sim.advance(to: 61 * second + 1)
        #expect(box.phase == "idle")
        #expect(box.persisted.isEmpty, "seed 000: not dismissed by the clock")
        guard case .idle(let idle)? = box.lastScreen else { Issue.record("not idle"); return }
        #expect(idle.reflection == r, "the quest list says the card waits")
        box.tap(.lock, at: 70 * second)
        #expect(box.phase == "reflection", "her next LOCK shows the card again")
        box.tap(.up, at: 71 * second)
        #expect(box.persisted == [.reflectionDismissed(weekIdentifier: r.weekIdentifier)], "dismissed by her press")
    }

    @Test("#48 (seed 000): the card says her streak as it stands when shown, on the OLED's line, the kiosk's and the voice's words")
    func reflectionSaysTheStreak() {
        let r = Self.lastWeeksReflection()
        let start = at(2026, 6, 10, 7, 0, Box.cal)
        var world = QuestWorld(routines: [Box.morning], calendar: Box.cal, bootID: "b")
        world.profile.currentStreak = 3        // as the store derives it (STREAK-1)
        world.pendingReflection = r
        let streak = PlayerStanding.of(world, rules: .standard, today: start).streak
        #expect(streak == 3)
        var box = Box(world: world, start: start, speaks: true)
        box.tap(.lock, at: 1 * second)
        guard case .reflection(let shown)? = box.lastScreen else { Issue.record("no card"); return }
        #expect(shown.streak == 3 && shown.weekIdentifier == r.weekIdentifier)
        let words = Screen.reflection(shown).words
        #expect(words.top[1] == "\(r.daysPlayedThisWeek)/\(r.totalDaysInWeek) days · streak 3" && words.top[1].count <= 21)
        #expect(words.more.first == "\(CountText.counted(r.questsCompleted, "quest")) this week")
        #expect(shown.summaryLines[1].hasSuffix("of \(r.totalDaysInWeek) days · streak 3"))
        #expect(VoicePhrases.week(shown).contains("Your streak: three days."))
        var none = r
        none.streak = nil
        #expect(!Screen.reflection(none).textLines.joined().contains("streak"), "no streak, no words of one")
    }

    @Test("REFL-1: a reflection left from an earlier week is not offered (it is last week's or nothing)")
    func staleReflection() {
        var (box, _) = Self.boxWithReflection(start: at(2026, 6, 15, 7, 0, Box.cal))  // the Monday after: W24 is last week
        box.tap(.lock, at: 1 * second)
        #expect(box.phase == "estimating")
        #expect(box.persisted.count == 1)
    }

    @Test("an edited routine does not disturb the quest in progress")
    func worldUpdateMidQuest() {
        var box = Box()
        box.tap(.lock, at: 1 * second)
        var edited = Box.morning
        edited.tasks.removeAll()
        box.sim.send(.worldUpdated(QuestWorld(routines: [edited], calendar: Box.cal, bootID: "boot-1"), atNanos: 2 * second), at: 2 * second)
        box.tap(.lock, at: 3 * second)
        box.tap(.stop, at: 100 * second)
        #expect(box.estimations.count == 1)
    }
}
