import Foundation
import Testing
@testable import QuestCore

@Suite("§5 debounce, §2 estimate steps, outputs")
struct ButtonAndOutputTests {
    @Test("leading edge: the first edge counts at its own timestamp, bounce within 30 ms is ignored")
    func leadingEdge() {
        var d = ButtonDebouncer(windowNanos: 30 * milli)
        #expect(d.feed(.lock, pressed: true, atNanos: 100 * milli) == .accepted(pressed: true, atNanos: 100 * milli))
        #expect(d.feed(.lock, pressed: false, atNanos: 101 * milli) == .settleAt(130 * milli))
        #expect(d.feed(.lock, pressed: true, atNanos: 103 * milli) == .settleAt(130 * milli))
        #expect(d.isPressed(.lock))
        // The window closes with the line still down: nothing more to report.
        #expect(d.settle(.lock, level: true, at: 130 * milli) == nil)
        #expect(d.feed(.lock, pressed: false, atNanos: 400 * milli) == .accepted(pressed: false, atNanos: 400 * milli))
        // Lines are independent.
        #expect(d.feed(.stop, pressed: true, atNanos: 401 * milli) == .accepted(pressed: true, atNanos: 401 * milli))
    }

    @Test("an out-of-order edge changes nothing; an edge reporting no change asks for a read")
    func duplicates() {
        var d = ButtonDebouncer(windowNanos: 30 * milli)
        _ = d.feed(.up, pressed: true, atNanos: 100 * milli)
        #expect(d.feed(.up, pressed: false, atNanos: 50 * milli) == .ignored)
        // The kernel read the level back after a bounce: the line moved all the same.
        #expect(d.feed(.up, pressed: true, atNanos: 500 * milli) == .settleAt(530 * milli))
        #expect(d.isPressed(.up))
        let released = d.settle(.up, level: false, at: 530 * milli)
        #expect(released?.pressed == false && released?.atNanos == 500 * milli)  // from the edge that began it
        #expect(d.settle(.up, level: false, at: 560 * milli) == nil)
    }

    @Test("settle reports a level left changed inside the window, at the first edge after the counted one")
    func settle() {
        var d = ButtonDebouncer(windowNanos: 30 * milli)
        _ = d.feed(.down, pressed: true, atNanos: 0)
        _ = d.feed(.down, pressed: false, atNanos: 5 * milli)
        _ = d.feed(.down, pressed: true, atNanos: 7 * milli)   // reported wrongly: the line ends up released
        let s = d.settle(.down, level: false, at: 30 * milli)
        #expect(s?.pressed == false && s?.atNanos == 5 * milli)
        #expect(!d.isPressed(.down))
        #expect(d.settle(.down, level: false, at: 60 * milli) == nil)
    }

    @Test("bounce bursts whose edges report wrong levels (as the kernel can) count one press and one release")
    func misreportedBursts() {
        // What the HIL bounce scenario saw on gpio-sim: a press burst whose last report is
        // "released" while the line rests pressed, then a release burst starting with
        // "released, released, pressed".
        var d = ButtonDebouncer(windowNanos: 30 * milli)
        var counted: [(Bool, Int64)] = []
        func feed(_ pressed: Bool, _ ms: Int64) {
            switch d.feed(.up, pressed: pressed, atNanos: ms * milli) {
            case .accepted(let p, let t): counted.append((p, t))
            case .ignored, .settleAt: break
            }
        }
        func settle(_ level: Bool, _ ms: Int64) {
            if let s = d.settle(.up, level: level, at: ms * milli) { counted.append((s.pressed, s.atNanos)) }
        }
        feed(true, 1000)
        for k in 1...14 { feed(k % 2 == 0, 1000 + Int64(k)) }   // ends on a "released" report
        settle(true, 1030)                                         // the line is down
        feed(false, 1064); feed(false, 1065); feed(true, 1066); feed(true, 1067); feed(false, 1068)
        settle(false, 1094)
        #expect(counted.map(\.0) == [true, false])
        #expect(counted.map(\.1) == [1000 * milli, 1064 * milli])
    }

    @Test("a late read: the change is timed from the first edge after the window; older edges are then stale")
    func lateRead() {
        var d = ButtonDebouncer(windowNanos: 30 * milli)
        _ = d.feed(.lock, pressed: true, atNanos: 0)
        _ = d.feed(.lock, pressed: false, atNanos: 400_000)             // bounce of the press
        // The release burst starts at 60 ms; its first edge is misreported as "pressed".
        #expect(d.feed(.lock, pressed: true, atNanos: 60 * milli) == .settleAt(90 * milli))
        let s = d.settle(.lock, level: false, at: 65 * milli)          // the read came late
        #expect(s?.pressed == false && s?.atNanos == 60 * milli)
        #expect(d.feed(.lock, pressed: true, atNanos: 61 * milli) == .ignored)   // before the read: stale
        #expect(d.feed(.lock, pressed: true, atNanos: 66 * milli) == .settleAt(95 * milli))
        #expect(d.settle(.lock, level: false, at: 95 * milli) == nil)
        #expect(!d.isPressed(.lock))
    }

    @Test("steps: 15 s below 2 min, 30 s below 10 min, 1 min below 30 min, then 5 min")
    func steps() {
        #expect(EstimateStepper.up(105) == 120)
        #expect(EstimateStepper.up(120) == 150)
        #expect(EstimateStepper.down(120) == 105)
        #expect(EstimateStepper.down(150) == 120)
        #expect(EstimateStepper.up(570) == 600)
        #expect(EstimateStepper.up(600) == 660)
        #expect(EstimateStepper.down(600) == 570)
        #expect(EstimateStepper.up(1740) == 1800)
        #expect(EstimateStepper.up(1800) == 2100)
        #expect(EstimateStepper.down(1800) == 1740)
        #expect(EstimateStepper.down(2100) == 1800)
        // Off-grid values snap onto the grid of the band they land in.
        #expect(EstimateStepper.up(620) == 660)
        #expect(EstimateStepper.down(620) == 600)
        #expect(EstimateStepper.up(100) == 105)
        // Limits: 15 s to 3 h.
        #expect(EstimateStepper.down(15) == 15)
        #expect(EstimateStepper.up(10_800) == 10_800)
        // Up then down returns to where it started, on every grid value.
        var v = 15
        while v < 10_800 {
            let next = EstimateStepper.up(v)
            #expect(EstimateStepper.down(next) == v)
            v = next
        }
    }

    @Test("hold-repeat intervals shrink to the minimum and stay there")
    func repeatIntervals() {
        let intervals = (0..<20).map { EstimateStepper.repeatInterval(afterRepeats: $0) }
        #expect(intervals[0] == 250 * milli)
        #expect(intervals[1] == 200 * milli)
        #expect(intervals.last == 60 * milli)
        for (a, b) in zip(intervals, intervals.dropFirst()) { #expect(b <= a) }
    }

    @Test("every sound of §6 has an id and a distinct file name; a reveal per rating")
    func sounds() {
        #expect(SoundID.allCases.count == 12)
        #expect(Set(SoundID.allCases.map(\.rawValue)).count == 12)
        #expect(Set(AccuracyRating.allCases.map { SoundID.reveal($0) }).count == 4)
    }

    @Test("each rating has its own LED and buzzer pattern; every sequence is finite and non-empty")
    func patterns() {
        let led = AccuracyRating.allCases.map { LEDPattern.reveal($0).steps }
        #expect(Set(led.map { $0.map { "\($0.color)\($0.durationMs)" }.joined() }).count == 4)
        let buzz = AccuracyRating.allCases.map { BuzzerPattern.reveal($0).steps }
        #expect(Set(buzz.map { $0.map { "\($0.on)\($0.durationMs)" }.joined() }).count == 4)
        for p in [LEDPattern.off, .questAvailable, .estimating, .active, .celebration] + AccuracyRating.allCases.map(LEDPattern.reveal) {
            #expect(!p.steps.isEmpty)
            if !p.repeats { #expect(p.steps.last?.durationMs == 0) }  // one-shot sequences end in a resting state
        }
        // Buzzer sequences always end off, and stay short (key moments only).
        for p in [BuzzerPattern.tap, .celebration] + AccuracyRating.allCases.map(BuzzerPattern.reveal) {
            #expect(p.steps.last?.on == false)
            #expect(p.steps.reduce(0) { $0 + $1.durationMs } <= 1_000)
        }
    }

    @Test("each colour lights its own combination of RGB lines, and reads back from them")
    func rgb() {
        #expect(Set(LEDColor.allCases.map { "\($0.rgb)" }).count == LEDColor.allCases.count)
        for color in LEDColor.allCases { #expect(LEDColor(red: color.rgb.red, green: color.rgb.green, blue: color.rgb.blue) == color) }
        #expect(LEDColor.cyan.rgb == (false, true, true))
        #expect(LEDColor(red: true, green: true, blue: false) == .yellow)
    }

    @Test("read-back: long pulses for minutes, short for quarter minutes; 5-minute pulses from 10 minutes")
    func readBack() {
        #expect(BuzzerPattern.readBackPulses(seconds: 150) == (2, 2))
        #expect(BuzzerPattern.readBackPulses(seconds: 45) == (0, 3))
        #expect(BuzzerPattern.readBackPulses(seconds: 600) == (2, 0))
        #expect(BuzzerPattern.readBackPulses(seconds: 1_980) == (6, 3))
        let steps = BuzzerPattern.readBack(seconds: 150).steps
        #expect(steps.filter { $0.on && $0.durationMs == 400 }.count == 2)
        #expect(steps.filter { $0.on && $0.durationMs == 80 }.count == 2)
    }

    @Test("§2 no screen: the quest number as blinks then a pause (a 3 s cycle), once when nothing is left; the buzzer pulses it")
    func questNumberPatterns() {
        for n in 1...4 {
            let looping = LEDPattern.questNumber(n, color: .blue, looping: true)
            let lit = looping.steps.filter { $0.color != .off }
            #expect(lit.count == n && lit.allSatisfy { $0.color == .blue && $0.durationMs == 200 })
            #expect(looping.repeats && looping.steps.reduce(0) { $0 + $1.durationMs } == max(3_000, n * 500 + 1_500))
            // Between counts the light stays off far longer than between blinks.
            #expect((looping.steps.last?.durationMs ?? 0) >= 1_500 && looping.steps.last?.color == .off)
            let once = LEDPattern.questNumber(n, color: .green, looping: false)
            #expect(!once.repeats && once.steps.last == LEDStep(color: .off, durationMs: 0))
            #expect(once.steps.filter { $0.color == .green }.count == n)
            let buzz = BuzzerPattern.questNumber(n).steps
            #expect(buzz.filter(\.on).count == n && buzz.last?.on == false)
            #expect(buzz.reduce(0) { $0 + $1.durationMs } <= 1_000, "short: key moments only")
        }
        // Seven quests still leave a pause after the count.
        #expect(LEDPattern.questNumber(7, color: .blue, looping: true).steps.last?.durationMs == 1_800)
        #expect(LEDPattern.questNumber(3, color: .yellow, looping: true).name == "quest-3")
    }

    @Test("reveal and celebration pulses start after a pause, so they never run into the stop tap")
    func revealPauseAfterTap() {
        let tap = BuzzerPattern.tap.steps
        #expect(tap.first?.on == true && tap.first?.durationMs == 40)
        let patterns: [BuzzerPattern] = AccuracyRating.allCases.map { .reveal($0) } + [.celebration]
        for pattern in patterns {
            let steps = pattern.steps
            #expect(steps.first?.on == false && (steps.first?.durationMs ?? 0) >= 60, "\(pattern)")
            #expect(steps.last?.on == false && steps.last?.durationMs == 0, "\(pattern) ends off")
        }
        // The HIL quest counts these pulses on the real BUZZER line.
        #expect(BuzzerPattern.reveal(.wayOff).steps.filter(\.on).count == 2)
        #expect(BuzzerPattern.reveal(.spotOn).steps.filter(\.on).count == 3)
    }

    @Test("timer queue: earliest first, rescheduling replaces, cancel removes")
    func timerQueue() {
        var q = TimerQueue()
        q.apply([.scheduleTimer(.revealTimeout, atNanos: 50), .scheduleTimer(.taskLimit, atNanos: 10), .scheduleTimer(.abandonHold, atNanos: 10)])
        #expect(q.next?.timer == .abandonHold)
        q.apply([.scheduleTimer(.abandonHold, atNanos: 90), .cancelTimer(.taskLimit)])
        #expect(q.next?.timer == .revealTimeout)
        #expect(q.popDue(now: 49) == nil)
        #expect(q.popDue(now: 50)?.timer == .revealTimeout)
        #expect(q.popDue(now: 100)?.timer == .abandonHold)
        #expect(q.isEmpty)
    }
}

@Suite("ROUT-1 routines, ROUT-2 templates")
struct RoutineTests {
    @Test("tasks keep their order and can be reordered")
    func reorder() {
        var r = Box.morning
        r.moveTask(from: 2, to: 0)
        #expect(r.tasks.map(\.displayName) == ["Pack Bag", "Tooth Time", "Get Dressed"])
        r.moveTask(from: 0, to: 9)  // out of range: nothing happens
        #expect(r.tasks.count == 3)
    }

    @Test("the four templates; a player quest is hers, named once, badged 'Your Quest'")
    func templates() {
        #expect(RoutineTemplates.all.map(\.name) == ["Homework Session", "Going to a Friend's", "Activity Prep", "Custom Quest"])
        let t = RoutineTemplates.template(named: "homework session")!
        let r = RoutineTemplates.makeRoutine(from: t, ids: (1...4).map(uuid))!
        #expect(r.createdBy == .player && r.playerBadge == "Your Quest")
        #expect(r.name == r.displayName && r.displayName == "Homework Session")
        #expect(r.tasks.map(\.displayName) == ["Get materials", "Work time", "Pack up"])
        #expect(r.tasks.allSatisfy { $0.referenceDurationSeconds == nil })
        #expect(Box.morning.playerBadge == nil)
        // Custom Quest needs the player's own tasks.
        let custom = RoutineTemplates.template(named: "Custom Quest")!
        #expect(RoutineTemplates.makeRoutine(from: custom, ids: [uuid(1)]) == nil)
        let mine = RoutineTemplates.makeRoutine(from: custom, displayName: " Guitar ", taskNames: ["Tune", " ", "Practice"], activeDays: [2, 4], ids: (1...3).map(uuid))!
        #expect(mine.displayName == "Guitar" && mine.tasks.map(\.name) == ["Tune", "Practice"] && mine.activeDays == [2, 4])
    }

    @Test("JSON round-trip of the models keeps every field")
    func codable() throws {
        let data = try JSONEncoder().encode(Box.morning)
        #expect(try JSONDecoder().decode(Routine.self, from: data) == Box.morning)
        let s = snap("Teeth", est: 100, act: 120, on: Date(timeIntervalSince1970: 1_000))
        #expect(try JSONDecoder().decode(EstimationSnapshot.self, from: JSONEncoder().encode(s)) == s)
        let json = String(decoding: try JSONEncoder().encode(s), as: UTF8.self)
        #expect(json.contains("\"rating\":\"close\""))  // 20 s of 120 s: exported by its raw value
    }
}
