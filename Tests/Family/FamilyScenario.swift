import Foundation
import QuestCore

/// A family's weeks as a readable file, one line per event (`Tests/Family/Scenarios/*.family`):
///
///     zone Europe/Berlin
///     routine "Morning Quest" days mon-fri reminder 07:30 tasks "Get Dressed" "Tooth Time"
///     boot 2026-03-16 06:00
///     ordinary "Morning Quest" at 07:40 from 2026-03-16 until 2026-05-10
///     2026-03-18 skip "Morning Quest"
///     2026-03-19 07:40 walk-away "Morning Quest" at guess 2
///     2026-03-19 08:30 resume "Morning Quest"
///     2026-03-24 07:40 power-cut "Morning Quest" in task 2
///     2026-03-26 19:00 restore latest-backup
///     2026-03-27 07:40 edit-mid-quest "Morning Quest" add-task "Shoes"
///     2026-03-30 12:00 set streak.policy joker
///     2026-04-06 18:00 add-routine "Evening Quest" days all reminder 19:00 tasks "Tidy Up"
///     2026-07-09 18:00 set-aside "Morning Quest"      (and `offer` to bring it back)
///     2026-04-02 06:00 clock-sync
///     end 2026-05-10
///
/// `ordinary` plays the quest on each of its days at that time, locking the offered guess
/// (a step or two up on some days) and taking a time that varies by day and task, unless a
/// line of that day names the quest (a skip, a walk-away, …).
struct FamilyScenario {
    struct Line {
        var number: Int
        var text: String
    }

    struct RoutineSpec {
        var name: String
        var days: [Int]
        var reminder: ReminderChoice
        var tasks: [String]
    }

    enum Action {
        case play(quest: String)
        case skip(quest: String)
        case walkAway(quest: String, phase: WalkAwayPhase)
        case resume(quest: String)
        case powerCut(quest: String, task: Int)
        case down
        case boot(untrustedWall: Date?)
        case clockSync
        case restoreLatestBackup
        case editMidQuest(quest: String, addTask: String)
        case set(key: String, value: String)
        case addRoutine(RoutineSpec)
        /// A parent sets a routine aside (the summer holidays) or offers it again.
        case setAside(quest: String)
        case offer(quest: String)
        case tamperXP
        /// The box's streak raised in its own memory, and its quest list drawn again: the
        /// streak it shows is no longer the history's (the streak check's teeth).
        case tamperStreak
        /// A second reminder of the first routine logged now (REM-1's check's teeth).
        case tamperReminder
        /// The last running task's screen drawn again with the time so far beside it (GAME-2's
        /// check's teeth).
        case tamperScreen
        /// This week's card drawn with one quest more than the history has (REFL-1's teeth).
        case tamperCard
        /// A quest written open into the store, as a writer that died mid-quest would leave it
        /// (the "nothing stuck" check's teeth).
        case tamperStuck
    }

    enum WalkAwayPhase: Equatable {
        case guess(Int)
        case reveal(Int)
        case summary
    }

    struct Event {
        var at: Date
        var action: Action
        var line: Line
    }

    struct Ordinary {
        var quest: String
        var hour: Int
        var minute: Int
        var from: Date
        var until: Date
        var line: Line
    }

    var name: String
    var calendar: Calendar
    var routines: [RoutineSpec] = []
    var policy: GameSettings.StreakPolicy = .pause
    var events: [Event] = []
    var ordinary: [Ordinary] = []
    var end: Date

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    static let weekdayNames = ["sun": 1, "mon": 2, "tue": 3, "wed": 4, "thu": 5, "fri": 6, "sat": 7]

    /// Words of a line: quoted strings kept whole.
    static func words(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        var quoted = false
        for c in text {
            if c == "\"" {
                if quoted { out.append(current); current = "" }
                quoted.toggle()
            } else if c == " " && !quoted {
                if !current.isEmpty { out.append(current); current = "" }
            } else {
                current.append(c)
            }
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    static func parse(_ text: String, name: String) throws -> FamilyScenario {
        var zone = TimeZone(identifier: "UTC")!
        var lines: [Line] = []
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let stripped = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let trimmed = stripped.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty { lines.append(Line(number: i + 1, text: trimmed)) }
        }
        // The zone first: every date in the file is local to it.
        for line in lines where line.text.hasPrefix("zone ") {
            guard let z = TimeZone(identifier: String(line.text.dropFirst(5))) else { throw ParseError(description: "\(name):\(line.number): unknown zone") }
            zone = z
        }
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = zone
        cal.locale = Locale(identifier: "en_GB")
        cal.firstWeekday = 2
        var scenario = FamilyScenario(name: name, calendar: cal, end: Date())
        var endSeen = false

        func fail(_ line: Line, _ why: String) -> ParseError { ParseError(description: "\(name):\(line.number): \(why): \(line.text)") }
        func date(_ day: String, _ time: String = "00:00", _ line: Line) throws -> Date {
            let d = day.split(separator: "-").compactMap { Int($0) }, t = time.split(separator: ":").compactMap { Int($0) }
            guard d.count == 3, t.count == 2,
                  let at = cal.date(from: DateComponents(year: d[0], month: d[1], day: d[2], hour: t[0], minute: t[1]))
            else { throw fail(line, "not a date and time") }
            return at
        }
        func days(_ word: String, _ line: Line) throws -> [Int] {
            switch word {
            case "all": return Array(1...7)
            case "mon-fri": return [2, 3, 4, 5, 6]
            default:
                let found = word.split(separator: ",").compactMap { weekdayNames[String($0)] }
                guard !found.isEmpty else { throw fail(line, "days are all, mon-fri or mon,wed,…") }
                return found
            }
        }
        func routine(_ w: [String], _ line: Line) throws -> RoutineSpec {
            // "Name" days D reminder R tasks "A" "B" …
            guard w.count >= 7, w[1] == "days", w[3] == "reminder", w[5] == "tasks" else { throw fail(line, "routine NAME days D reminder HH:MM|off tasks …") }
            guard let reminder = ReminderChoice(w[4] == "default" ? "default" : w[4]) else { throw fail(line, "reminder") }
            return RoutineSpec(name: w[0], days: try days(w[2], line), reminder: reminder, tasks: Array(w[6...]))
        }

        for line in lines {
            var w = words(line.text)
            if w.first == "zone" { continue }
            if w.first == "routine" { scenario.routines.append(try routine(Array(w.dropFirst()), line)); continue }
            if w.first == "policy", w.count == 2, let p = GameSettings.StreakPolicy(rawValue: w[1]) { scenario.policy = p; continue }
            if w.first == "end", w.count == 2 { scenario.end = try date(w[1], "23:59", line); endSeen = true; continue }
            if w.first == "boot" {
                // boot DAY TIME [untrusted-at DAY TIME]
                guard w.count >= 3 else { throw fail(line, "boot DAY HH:MM") }
                let untrusted = w.count == 6 && w[3] == "untrusted-at" ? try date(w[4], w[5], line) : nil
                scenario.events.append(Event(at: try date(w[1], w[2], line), action: .boot(untrustedWall: untrusted), line: line))
                continue
            }
            if w.first == "ordinary" {
                // ordinary "Q" at HH:MM from DAY until DAY
                guard w.count == 8, w[2] == "at", w[4] == "from", w[6] == "until" else { throw fail(line, "ordinary \"Q\" at HH:MM from DAY until DAY") }
                let t = w[3].split(separator: ":").compactMap { Int($0) }
                guard t.count == 2 else { throw fail(line, "time") }
                scenario.ordinary.append(Ordinary(
                    quest: w[1], hour: t[0], minute: t[1], from: try date(w[5], "00:00", line), until: try date(w[7], "23:59", line), line: line))
                continue
            }
            // DAY [HH:MM] ACTION …
            guard let day = w.first, day.first?.isNumber == true else { throw fail(line, "unknown line") }
            w.removeFirst()
            var time = "00:00"
            if let t = w.first, t.contains(":") { time = t; w.removeFirst() }
            let at = try date(day, time, line)
            guard let verb = w.first else { throw fail(line, "no action") }
            let args = Array(w.dropFirst())
            let action: Action
            switch verb {
            case "skip" where args.count == 1: action = .skip(quest: args[0])
            case "play" where args.count == 1: action = .play(quest: args[0])
            case "resume" where args.count == 1: action = .resume(quest: args[0])
            case "walk-away" where args.count >= 3 && args[1] == "at":
                let phase: WalkAwayPhase
                switch args[2] {
                case "guess" where args.count == 4: phase = .guess(Int(args[3]) ?? 1)
                case "reveal" where args.count == 4: phase = .reveal(Int(args[3]) ?? 1)
                case "summary": phase = .summary
                default: throw fail(line, "walk-away \"Q\" at guess N | reveal N | summary")
                }
                action = .walkAway(quest: args[0], phase: phase)
            case "power-cut" where args.count == 4 && args[1] == "in" && args[2] == "task": action = .powerCut(quest: args[0], task: Int(args[3]) ?? 1)
            case "down" where args.isEmpty: action = .down
            case "boot" where args.isEmpty: action = .boot(untrustedWall: nil)
            case "clock-sync" where args.isEmpty: action = .clockSync
            case "restore" where args == ["latest-backup"]: action = .restoreLatestBackup
            case "edit-mid-quest" where args.count == 3 && args[1] == "add-task": action = .editMidQuest(quest: args[0], addTask: args[2])
            case "set" where args.count == 2: action = .set(key: args[0], value: args[1])
            case "add-routine": action = .addRoutine(try routine(args, line))
            case "set-aside" where args.count == 1: action = .setAside(quest: args[0])
            case "offer" where args.count == 1: action = .offer(quest: args[0])
            case "tamper-xp" where args.isEmpty: action = .tamperXP
            case "tamper-streak" where args.isEmpty: action = .tamperStreak
            case "tamper-reminder" where args.isEmpty: action = .tamperReminder
            case "tamper-screen" where args.isEmpty: action = .tamperScreen
            case "tamper-card" where args.isEmpty: action = .tamperCard
            case "tamper-stuck" where args.isEmpty: action = .tamperStuck
            default: throw fail(line, "unknown action")
            }
            scenario.events.append(Event(at: at, action: action, line: line))
        }
        guard endSeen else { throw ParseError(description: "\(name): no end line") }
        return scenario
    }

    /// Every event in time order, with the ordinary plays of each day that no line of that
    /// day overrides (a line naming the quest that day).
    func timeline() -> [Event] {
        var all = events
        for o in ordinary {
            guard let spec = (routines + events.compactMap { if case .addRoutine(let r) = $0.action { r } else { nil } }).first(where: { $0.name == o.quest }) else { continue }
            var day = calendar.startOfDay(for: o.from)
            while day <= o.until && day <= end {
                let weekday = calendar.component(.weekday, from: day)
                let named = events.contains { e in
                    calendar.isDate(e.at, inSameDayAs: day) && Self.quest(of: e.action) == o.quest
                }
                if spec.days.contains(weekday), !named,
                   let at = calendar.date(bySettingHour: o.hour, minute: o.minute, second: 0, of: day, matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward) {
                    all.append(Event(at: at, action: .play(quest: o.quest), line: o.line))
                }
                guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { break }
                day = calendar.startOfDay(for: next)
            }
        }
        // Stable: lines of the same minute keep the file's order.
        return all.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }

    static func quest(of action: Action) -> String? {
        switch action {
        case .play(let q), .skip(let q), .resume(let q): q
        case .walkAway(let q, _), .powerCut(let q, _), .editMidQuest(let q, _): q
        default: nil
        }
    }
}
