import BoardProfile
import BoxProtocol
@testable import BoxRuntime
import Foundation
import GPIO
import Logging
import QuestCore
import QuestReports
import QuestStore
import SystemClock

/// Lives a family's weeks through the box's daemon on a fake clock: the real quest machine,
/// the store on disk, the day's schedule (midnight, reminders, the daily backup), the persist
/// queue, the store follower and the socket's commands; the GPIO lines are in memory (edges
/// go in through the same intake as the kernel's) and the sound and screen are recorders.
/// After every day it checks the invariants (`FamilyInvariants`) and writes a day report.
final class FamilyRunner {
    let scenario: FamilyScenario
    let directory: String
    let databasePath: String
    var calendar: Calendar { scenario.calendar }
    let boardProfile: BoardProfile

    // The running box; nil while it is down (not booted yet, or after a power cut).
    var clock: FakeSystemClock
    var gpio: FakeGPIO?
    var daemon: BoxDaemon?
    var db: QuestDatabase?
    let sound = RecordingSound()
    let display = RecordingDisplay()
    var boots = 0
    var logger: Logger

    /// A second program's handle on the store (the CLI, the web app): settings, routines,
    /// restores are written through it, as a parent would.
    var other: QuestDatabase

    // What the checks need to know of the days.
    var failures: [String] = []
    var report: [String] = []
    /// When the box was up: (from, to) wall times; an open interval while it runs.
    var upIntervals: [(from: Date, to: Date?)] = []
    /// When the player was at the box (a quest under way, or left waiting until it pauses):
    /// reminders due then may wait for the quest's end.
    var busy: [(from: Date, to: Date)] = []
    /// The line being lived, for a failure's words.
    var currentLine: FamilyScenario.Line?
    var dayNotes: [String] = []
    /// STREAK-3: the streak shown before each policy switch, checked after it.
    var streakBeforeSwitch: Int?
    var reflectionsSeen = 0
    var introsSeen = 0
    var daysChecked = 0

    init(scenario: FamilyScenario, boards: String) throws {
        self.scenario = scenario
        directory = NSTemporaryDirectory() + "questbox-family-\(scenario.name)-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        databasePath = directory + "/questbox.sqlite"
        boardProfile = try BoardProfile.load(path: boards + "/questbox-sim.yaml")
        let first = scenario.timeline().first?.at ?? Date()
        clock = FakeSystemClock(wall: first, bootID: "boot-0")
        var logger = Logger(label: "family")
        logger.logLevel = ProcessInfo.processInfo.environment["FAMILY_LOG"] == nil ? .critical : .debug
        self.logger = logger
        other = try QuestDatabase(path: databasePath)
        for (i, spec) in scenario.routines.enumerated() { try other.routines.save(Self.routine(spec, position: i)) }
        let policy = scenario.policy
        try other.settings.update(now: first) { $0.game.streakPolicy = policy }
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    static func routine(_ spec: FamilyScenario.RoutineSpec, position: Int) -> Routine {
        let slug = spec.name.lowercased().replacingOccurrences(of: " ", with: "-")
        return Routine(
            id: UUID(), name: slug, displayName: spec.name, activeDays: spec.days,
            tasks: spec.tasks.enumerated().map { RoutineTask(id: UUID(), name: "\(slug)-\($0.offset)", displayName: $0.element) },
            reminder: spec.reminder)
    }

    // MARK: the box

    func boot(untrustedWall: Date? = nil) throws {
        guard daemon == nil else { return }
        boots += 1
        let realWall = trueNow()
        // A Pi has no clock of its own: a boot may start on a wrong wall time, until NTP.
        wallSkew = untrustedWall.map { $0.timeIntervalSince(realWall) } ?? 0
        clock = FakeSystemClock(wall: untrustedWall ?? realWall, monotonic: 5_000_000_000, bootID: "boot-\(boots)", trusted: untrustedWall == nil)
        let gpio = FakeGPIO(chips: [.init(path: "/dev/gpiochip1", label: "questbox", lines: ["BTN_LOCK", "BTN_STOP", "BTN_UP", "BTN_DOWN", "LED_RED", "LED_GREEN", "LED_BLUE", "BUZZER"])])
        let board = try BoardGPIO(profile: boardProfile, backend: gpio)
        let db = try QuestDatabase(path: databasePath)
        let daemon = try BoxDaemon(
            board: board, database: db, clock: clock, sound: sound, display: display, calendar: baseCalendar(), logger: logger)
        self.gpio = gpio
        self.db = db
        self.daemon = daemon
        display.clock = { [weak self] in self?.trueNow() ?? Date() }
        daemon.startDriven()
        upIntervals.append((trueNow(), nil))
    }

    /// The box's wall clock minus the true time (not 0 after a boot on a wrong clock, until
    /// `clock-sync`).
    var wallSkew: TimeInterval = 0
    func trueNow() -> Date { clock.wallNow().addingTimeInterval(-wallSkew) }

    /// The box's base calendar (its zone); the family's first weekday comes from the store.
    func baseCalendar() -> Calendar {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = calendar.timeZone
        c.locale = calendar.locale
        return c
    }

    /// The power goes: the daemon is dropped without a shutdown (nothing written on the way
    /// out), as a pulled plug does; the store keeps what it committed.
    func powerCut() {
        guard daemon != nil else { return }
        daemon = nil
        gpio = nil
        db = nil
        if let last = upIntervals.indices.last { upIntervals[last].to = trueNow() }
    }

    // MARK: time

    /// Moves both clocks to `target` (a true wall time), running everything due on the way,
    /// and checks each day as it ends.
    func live(until target: Date) {
        while trueNow() < target {
            let now = trueNow()
            let dayEnd = calendar.startOfDay(for: now).addingTimeInterval(0)
            let endOfDay = (calendar.date(byAdding: .day, value: 1, to: dayEnd).map(calendar.startOfDay(for:)) ?? now.addingTimeInterval(86_400))
                .addingTimeInterval(-1)
            if target > endOfDay && now < endOfDay {
                run(until: endOfDay)
                checkDay(endOfDay)
                continue
            }
            run(until: target)
        }
    }

    /// Advances to `target` from one due moment to the next.
    func run(until target: Date) {
        var guardCount = 0
        while trueNow() < target {
            let now = trueNow()
            var next = target
            if let daemon {
                let due = daemon.nextDue
                if let mono = due.monotonic {
                    next = min(next, now.addingTimeInterval(Double(mono - clock.monotonicNanos()) / 1e9))
                }
                if let wall = due.wall {
                    // The box's wall clock may be wrong: its due time, on the true clock.
                    next = min(next, now.addingTimeInterval(wall.timeIntervalSince(clock.wallNow())))
                }
            }
            if next <= now {
                guardCount += 1
                next = now.addingTimeInterval(guardCount > 100 ? 0.001 : 0)
            } else {
                guardCount = 0
            }
            let step = next.timeIntervalSince(now)
            if step > 0 { clock.advance(seconds: step) }
            daemon?.runDue()
        }
    }

    func advance(seconds: Double) { run(until: trueNow().addingTimeInterval(seconds)) }

    // MARK: the player's hands

    func press(_ role: ButtonRole, holdMs: Int = 90) {
        guard let gpio, let daemon else { return }
        let line = ["lock": "BTN_LOCK", "stop": "BTN_STOP", "up": "BTN_UP", "down": "BTN_DOWN"][role.rawValue] ?? ""
        do {
            try gpio.edge(line: line, rising: true, atNanos: clock.monotonicNanos())
            daemon.takeEdges()
            advance(seconds: Double(holdMs) / 1000)
            try gpio.edge(line: line, rising: false, atNanos: clock.monotonicNanos())
            daemon.takeEdges()
            advance(seconds: 0.05)
        } catch {
            fail("pressing \(role) failed: \(error)")
        }
    }

    var phase: QuestPhase? { daemon?.state.phase }

    /// Picks the quest on the idle screen with UP/DOWN; false when it is not offered.
    func select(_ quest: String) -> Bool {
        for _ in 0..<12 {
            guard case .idle(let selected, _) = phase else { return false }
            guard let world = daemon?.state.world else { return false }
            let today = Routine.availableToday(world.routines, now: clock.wallNow(), calendar: world.calendar)
            guard today.contains(where: { $0.displayName == quest }) else { return false }
            if today.first(where: { $0.id == selected })?.displayName == quest { return true }
            press(.down)
        }
        return false
    }

    /// Starts (or picks up) the quest: selects it, LOCK; a weekly card first is checked and
    /// passed. Returns the index of the task whose guess screen shows.
    func start(_ quest: String) -> Int? {
        guard daemon != nil else {
            note("box down: \(quest) not played")
            return nil
        }
        guard case .idle = phase else {
            fail("\(quest): the box is not waiting on its quest list but \(phase?.name ?? "down")")
            return nil
        }
        guard select(quest) else {
            fail("\(quest) is not offered today")
            return nil
        }
        let firstQuest = daemon?.state.world.profile.sessionsCompleted == 0 && daemon?.state.world.pausedQuests.isEmpty == true
        press(.lock)
        if case .reflection = phase {
            reflectionsSeen += 1
            press(.lock)
        }
        // GAME-9: how it works comes before her first quest, and never again; she reads it
        // through, a page a LOCK.
        if case .intro = phase {
            if !firstQuest { fail("\(quest): the intro showed again after her first quest") }
            introsSeen += 1
            for _ in 0..<IntroScreen.pageCount { press(.lock) }
        } else if firstQuest {
            fail("\(quest): her first quest started without the intro (\(phase?.name ?? "down"))")
        }
        guard case .estimating(_, let index, _) = phase else {
            fail("\(quest): LOCK did not start it (\(phase?.name ?? "down"))")
            return nil
        }
        return index
    }

    /// How long a task takes on a day: its guess times a factor that varies with the day and
    /// the task (teens are not metronomes), at least 4 s.
    func takes(estimate: Int, task: Int) -> Double {
        let factors = [0.9, 1.15, 1.4, 0.75, 1.0, 2.1, 0.6]
        let day = calendar.ordinality(of: .day, in: .era, for: trueNow()) ?? 0
        return max(4, Self.usualSeconds(task: task) * factors[(day + task * 3) % factors.count])
    }

    /// What a task usually takes her: months of play stay near it (#48: a runner that only
    /// stepped the guess up had guesses of hours after three months, and quests past midnight).
    static func usualSeconds(task: Int) -> Double { [150, 95, 240, 120, 180][task % 5] }

    /// Plays the guess screen of the task shown: a step or two up on some days, LOCK, the
    /// task, STOP. Leaves the box on the reveal.
    func playTask() {
        guard case .estimating(_, let index, _) = phase else { return fail("no guess screen to play (\(phase?.name ?? "down"))") }
        let day = calendar.ordinality(of: .day, in: .era, for: trueNow()) ?? 0
        // A step or two on some days, toward what the task usually takes.
        if case .estimating(_, _, let offered) = phase {
            let toward: ButtonRole = Double(offered) > Self.usualSeconds(task: index) ? .down : .up
            for _ in 0..<(day % 3) { press(toward); advance(seconds: 0.4) }
        }
        guard case .estimating(_, _, let estimate) = phase else { return fail("the guess screen went away") }
        press(.lock)
        guard case .active = phase else { return fail("LOCK did not start task \(index + 1) (\(phase?.name ?? "down"))") }
        let taken = takes(estimate: estimate, task: index)
        advance(seconds: taken)
        press(.stop)
        guard case .revealing(let run, _) = phase else { return fail("STOP did not end task \(index + 1) (\(phase?.name ?? "down"))") }
        // The time the task took is the player's, whatever the wall clock did meanwhile (a
        // DST change, midnight, a clock set): LOCK's press to STOP's.
        if let measured = run.estimations.last?.actualSeconds, abs(measured - (taken + 0.14)) > 0.5 {
            fail("task \(index + 1) took \(taken) s by the player's hands, the box measured \(measured) s")
        }
    }

    /// From a guess screen to the end: every task played, each reveal and the summary passed
    /// with LOCK.
    func playToTheEnd() {
        var guardCount = 0
        while case .estimating = phase, guardCount < 40 {
            guardCount += 1
            playTask()
            advance(seconds: 2)
            press(.lock)
        }
        if case .summary = phase {
            advance(seconds: 2)
            press(.lock)
        }
        if case .idle = phase {} else { fail("the quest did not end on the quest list (\(phase?.name ?? "down"))") }
    }

    // MARK: lines

    func perform(_ event: FamilyScenario.Event) throws {
        currentLine = event.line
        let started = trueNow()
        switch event.action {
        case .boot(let untrusted):
            try boot(untrustedWall: untrusted)
            note("boot\(untrusted == nil ? "" : " (clock wrong)")")
        case .down:
            powerCut()
            note("box down")
        case .play(let quest):
            if start(quest) != nil {
                playToTheEnd()
                note("played \(quest)")
            }
        case .skip(let quest):
            note("skipped \(quest)")
        case .resume(let quest):
            // GAME-5: after a power cut with a trusted clock the task was still being timed:
            // the player ends it with STOP and goes on.
            if case .active = phase {
                advance(seconds: 4)   // GAME-8: a press just after the resume is not the task's STOP
                press(.stop)
                advance(seconds: 2)
                press(.lock)
                playToTheEnd()
                note("resumed \(quest) (its task timed through the power cut)")
            } else if start(quest) != nil {
                playToTheEnd()
                note("resumed \(quest)")
            }
        case .walkAway(let quest, let where_):
            guard start(quest) != nil else { break }
            switch where_ {
            case .guess(let n):
                while case .estimating(_, let index, _) = phase, index < n - 1 {
                    playTask()
                    advance(seconds: 2)
                    press(.lock)
                }
            case .reveal(let n):
                while case .estimating(_, let index, _) = phase {
                    playTask()
                    if index >= n - 1 { break }
                    advance(seconds: 2)
                    press(.lock)
                }
            case .summary:
                while case .estimating = phase {
                    playTask()
                    advance(seconds: 2)
                    press(.lock)
                }
            }
            note("walked away from \(quest) (\(where_))")
            busy.append((started, trueNow().addingTimeInterval(Double(GameRules.standard.walkAwayPauseMs) / 1000 + 60)))
            return
        case .powerCut(let quest, let task):
            guard start(quest) != nil else { break }
            while case .estimating(_, let index, _) = phase, index < task - 1 {
                playTask()
                advance(seconds: 2)
                press(.lock)
            }
            press(.lock)  // task N locked in: timing
            advance(seconds: 30)
            powerCut()
            advance(seconds: 90)
            try boot()
            note("power cut in \(quest) task \(task), back 90 s later")
        case .clockSync:
            clock.setWall(trueNow(), trusted: true)
            wallSkew = 0
            daemon?.wallClockWasSet()
            note("clock synced")
        case .restoreLatestBackup:
            guard let latest = try other.backups.all().first(where: { $0.kind == .automatic }) else {
                fail("no automatic backup to restore")
                break
            }
            try other.backups.restore(from: other.backups.directory + "/" + latest.fileName, now: trueNow())
            note("restored \(latest.fileName)")
        case .editMidQuest(let quest, let task):
            guard start(quest) != nil else { break }
            playTask()
            advance(seconds: 2)
            press(.lock)
            guard var routine = try other.routines.all().first(where: { $0.displayName == quest }) else {
                fail("no routine \(quest) to edit")
                break
            }
            routine.tasks.append(RoutineTask(id: UUID(), name: "\(routine.name)-\(routine.tasks.count)", displayName: task))
            try other.routines.save(routine)
            _ = daemon?.request(BoxRequest(command: "reload"))
            playToTheEnd()
            note("\(quest) edited mid-quest (+\(task))")
        case .set(let key, let value):
            if key == "streak.policy" { streakBeforeSwitch = shownStreak() }
            // #48: the switch happens on the scenario's day, not the machine's (STREAK-3 judges
            // from the day it was made; a real-clock stamp put it in the future).
            try SettingsCatalog.set(key, to: value, in: other.settings, now: trueNow())
            _ = daemon?.request(BoxRequest(command: "reload"))
            advance(seconds: 1)
            if let before = streakBeforeSwitch, let after = shownStreak(), after < before {
                fail("STREAK-3: switching \(key) to \(value) lowered the streak shown from \(before) to \(after)")
            }
            streakBeforeSwitch = nil
            note("set \(key) \(value)")
        case .setAside(let quest), .offer(let quest):
            let offered: Bool
            if case .offer = event.action { offered = true } else { offered = false }
            guard var routine = try other.routines.all().first(where: { $0.displayName == quest }) else {
                fail("no routine \(quest) to \(offered ? "offer" : "set aside")")
                break
            }
            routine.isActive = offered
            try other.routines.save(routine)
            _ = daemon?.request(BoxRequest(command: "reload"))
            advance(seconds: 1)
            note("\(quest) \(offered ? "offered again" : "set aside")")
        case .addRoutine(let spec):
            try other.routines.save(Self.routine(spec, position: try other.routines.all().count))
            _ = daemon?.request(BoxRequest(command: "reload"))
            note("routine \(spec.name) added")
        case .tamperXP:
            // A writer that puts a total from its memory (what the store forbids): the
            // invariant must name this day.
            if var session = try other.plays.sessions().last(where: { $0.status == .completed }) {
                session.xpEarned += 7
                try other.plays.apply(.sessionCompleted(session), wallClockTrusted: true)
            }
            note("tampered with a quest's XP")
        case .tamperStreak:
            if let daemon {
                var world = daemon.state.world
                world.profile.currentStreak += 10
                daemon.step(.worldUpdated(world, atNanos: clock.monotonicNanos()))
            }
            note("raised the box's streak in its memory")
        case .tamperReminder:
            if let routine = try other.routines.all().first(where: \.isActive) {
                try other.plays.apply(.reminderSounded(routineID: routine.id, name: routine.displayName, at: trueNow()), wallClockTrusted: true)
            }
            note("logged a second reminder")
        case .tamperScreen:
            if let running = display.shown.last(where: { if case .active = $0.screen { true } else { false } }) {
                display.show(running.screen, notice: "0:42 so far")
            }
            note("drew a running task's screen with its time so far")
        case .tamperCard:
            var card = WeeklyReflectionEngine.computeReflection(
                snapshots: try other.plays.snapshots(), sessions: try other.plays.sessions(), weekContaining: trueNow(),
                calendar: try other.settings.current().calendar(from: baseCalendar()))
            card.questsCompleted += 1
            display.show(.reflection(card), notice: nil)
            note("drew this week's card with a quest more")
        case .tamperStuck:
            if let routine = try other.routines.all().first(where: \.isActive) {
                try other.plays.apply(.sessionStarted(GameSession(
                    id: UUID(), routineID: routine.id, routineDisplayName: routine.displayName, startedAt: trueNow(),
                    startedMonotonicNanos: clock.monotonicNanos(), bootID: "a writer that died", isCalibration: false)), wallClockTrusted: true)
            }
            note("left a quest open in the store")
        }
        busy.append((started, trueNow()))
    }

    /// The streak the box's idle screen shows now, from the store as every surface reads it.
    func shownStreak() -> Int? {
        guard let world = try? other.loadWorld(calendar: baseCalendar(), bootID: "family", taskMemory: false) else { return nil }
        return PlayerStanding.of(world, rules: .standard, today: trueNow()).streak
    }

    func note(_ text: String) { dayNotes.append(text) }

    func fail(_ text: String) {
        let day = DayText.of(trueNow(), calendar: calendar)
        let line = currentLine.map { " after line \($0.number) `\($0.text)`" } ?? ""
        failures.append("\(scenario.name): \(day)\(line): \(text)")
    }

    /// Lives the whole scenario; returns the failures (empty when every day kept every
    /// invariant).
    func liveAll() throws -> [String] {
        for event in scenario.timeline() {
            live(until: event.at)
            let dayBefore = calendar.startOfDay(for: trueNow())
            try perform(event)
            // A quest that ended after midnight: its day is checked now, as every day is.
            let dayAfter = calendar.startOfDay(for: trueNow())
            if dayAfter > dayBefore { checkDay(dayAfter) }
        }
        live(until: scenario.end)
        checkDay(scenario.end)
        return failures
    }
}

/// The sounds the daemon played (nothing is heard).
final class RecordingSound: SoundOutput {
    private(set) var played: [SoundID] = []
    private(set) var muted = false
    func apply(soundEnabled: Bool, volumePercent: Int) { muted = !soundEnabled }
    func play(_ sound: SoundID) { if !muted { played.append(sound) } }
}

/// Every screen the daemon showed, with the true wall time (for the day's checks).
final class RecordingDisplay: DisplayOutput {
    var clock: () -> Date = { Date() }
    private(set) var shown: [(at: Date, screen: Screen, notice: String?)] = []
    func show(_ screen: Screen, notice: String?) { shown.append((clock(), screen, notice)) }
    func wake() {}
    func takeShown() -> [(at: Date, screen: Screen, notice: String?)] {
        defer { shown = [] }
        return shown
    }
}

enum DayText {
    static func of(_ date: Date, calendar: Calendar) -> String {
        let c = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        return String(format: "%04d-%02d-%02d %@", c.year ?? 0, c.month ?? 0, c.day ?? 0, names[((c.weekday ?? 1) + 6) % 7])
    }
}
