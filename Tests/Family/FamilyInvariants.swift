import BoxRuntime
import Foundation
import QuestCore
import QuestReports
import QuestStore

/// What must hold after every day a family lives (#32's `Tests/Family`): a failure names
/// the day and the line being lived.
extension FamilyRunner {
    func checkDay(_ endOfDay: Date) {
        daysChecked += 1
        let day = calendar.startOfDay(for: endOfDay.addingTimeInterval(-1))
        let screens = display.takeShown()
        do {
            try checkTotals()
            try checkStreak(screens)
            try checkReminders(on: day)
            try checkNothingStuck()
            checkWords(screens)
            try checkWeeklyCards(screens)
            try writeReport(day, screens: screens)
        } catch {
            fail("a check could not read the store: \(error)")
        }
        dayNotes = []
        currentLine = nil
    }

    /// Totals equal the history: each quest's XP is its tasks' (and the completion bonus);
    /// the box's own totals (its screens) are the store's, and so are the stats'.
    func checkTotals() throws {
        let inconsistent = try other.inconsistentSessionXP()
        if !inconsistent.isEmpty { fail("totals: \(inconsistent.count) quest(s) whose XP is not their tasks' XP") }
        let stored = try other.profile(calendar: try other.settings.current().calendar(from: baseCalendar()))
        if let daemon, case .idle = daemon.state.phase {
            let held = daemon.state.world.profile
            if held.totalXP != stored.totalXP || held.sessionsCompleted != stored.sessionsCompleted {
                fail("totals: the box shows \(held.totalXP) XP / \(held.sessionsCompleted) quests, the history says \(stored.totalXP) / \(stored.sessionsCompleted)")
            }
        }
        let stats = try StatsReport.load(from: other, now: trueNow(), calendar: baseCalendar())
        if stats.totalXP != stored.totalXP || stats.sessionsCompleted != stored.sessionsCompleted {
            fail("totals: the stats say \(stats.totalXP) XP / \(stats.sessionsCompleted) quests, the history \(stored.totalXP) / \(stored.sessionsCompleted)")
        }
    }

    /// The streak follows the policy history: under the pause policy alone it is the number of
    /// days played (a missed day pauses it, never resets it); the box, the stats and the
    /// store agree whatever the policy.
    func checkStreak(_ screens: [(at: Date, screen: Screen, notice: String?)]) throws {
        let settings = try other.settings.current()
        let cal = settings.calendar(from: baseCalendar())
        let plays = try other.plays.questPlays()
        let shown = shownStreak()
        let stats = try StatsReport.load(from: other, now: trueNow(), calendar: baseCalendar()).currentStreak
        if shown != stats { fail("streak: the box's standing says \(shown ?? -1), the stats \(stats)") }
        // #48: the streak as the scenario's own reading of STREAK-1, -2 and -3, day by day on
        // the family's calendar; no code of the box's is used.
        let independent = Self.streakByTheRules(plays: plays, changes: settings.game.streakPolicyChanges, today: trueNow(), calendar: cal)
        if shown != independent {
            fail("streak: the box says \(shown ?? -1) under \(settings.game.streakPolicy.rawValue), but the days played make \(independent) by STREAK-1/2/3")
        }
        // #48: the quest list the box drew last that day says exactly that streak ("Streak: 12
        // days" passed a substring check when 1 or 2 was right).
        if case .idle(let idle)? = screens.last(where: { if case .idle = $0.screen { true } else { false } })?.screen {
            let wanted = "Streak: \(independent) day\(independent == 1 ? "" : "s")"
            if idle.streakText != wanted && !idle.streakText.hasPrefix(wanted + " · ") {
                fail("streak: the box's screen said \"\(idle.streakText)\", the history \"\(wanted)\"")
            }
        }
    }

    /// STREAK-1/2/3 as the spec words them, walked one calendar day at a time from the first
    /// day played to today. Pause: a day played is +1 after a day played, else the streak
    /// stays (at least 1). Joker: every day is judged, today and a switch's day only once good
    /// (a quest of at least 2 measured minutes, to the nearest minute); the 7th day in a row
    /// earns a joker first (3 held at most), a bad day spends one (the day counts) or ends
    /// the streak. A switch keeps the streak; the new policy judges from the next day, a joker
    /// policy starting with none.
    static func streakByTheRules(plays: [QuestPlay], changes: [StreakPolicyChange], today: Date, calendar cal: Calendar) -> Int {
        let todayStart = cal.startOfDay(for: today)
        let sorted = changes.sorted { $0.at < $1.at }
        var policy = sorted.first?.from ?? .pause
        let played = plays.filter { cal.startOfDay(for: $0.completedAt) <= todayStart }
        let playDays = Set(played.map { cal.startOfDay(for: $0.completedAt) })
        let goodDays = Set(played.filter { Int(($0.measuredTaskSeconds / 60).rounded()) >= 2 }.map { cal.startOfDay(for: $0.completedAt) })
        guard var day = playDays.min() else { return 0 }
        var streak = 0, jokers = 0
        var lastPlayed: Date?
        var pending = sorted.drop { cal.startOfDay(for: $0.at) < day }
        // Switches before the first day played only set the policy.
        for change in sorted where cal.startOfDay(for: change.at) < day {
            policy = change.to
        }
        while day <= todayStart {
            let switchesToday = pending.prefix { cal.isDate($0.at, inSameDayAs: day) }
            switch policy {
            case .pause:
                if playDays.contains(day) {
                    let yesterday = cal.date(byAdding: .day, value: -1, to: day).map(cal.startOfDay(for:))
                    streak = lastPlayed != nil && lastPlayed == yesterday ? streak + 1 : max(streak, 1)
                }
            case .joker:
                let good = goodDays.contains(day)
                if good || (day != todayStart && switchesToday.isEmpty) {
                    if (streak + 1) % 7 == 0 { jokers = min(3, jokers + 1) }
                    if good {
                        streak += 1
                    } else if jokers > 0 {
                        jokers -= 1
                        streak += 1
                    } else {
                        streak = 0
                    }
                }
            }
            if playDays.contains(day) { lastPlayed = day }
            for change in switchesToday {
                policy = change.to
                if policy == .joker { jokers = 0 }
            }
            pending = pending.dropFirst(switchesToday.count)
            guard let next = cal.date(byAdding: .day, value: 1, to: day) else { break }
            day = cal.startOfDay(for: next)
        }
        return streak
    }

    /// REM-1: each routine's reminder sounded at most once that day, never after the quest was
    /// played; when the box was up and waiting at its time and the quest not played before,
    /// exactly once.
    func checkReminders(on day: Date) throws {
        let settings = try other.settings.current()
        let sounded = try other.plays.remindersSounded().filter { calendar.isDate($0.at.addingTimeInterval(-wallSkewAtCheck), inSameDayAs: day) }
        let plays = try other.plays.questPlays()
        for routine in try other.routines.all() where routine.isActive {
            let mine = sounded.filter { $0.routineID == routine.id }
            if mine.count > 1 { fail("REM-1: \(routine.displayName)'s reminder sounded \(mine.count) times") }
            let played = plays.filter { $0.routineID == routine.id && calendar.isDate($0.completedAt, inSameDayAs: day) }.map(\.completedAt)
            if let first = played.min(), let r = mine.first, r.at > first {
                fail("REM-1: \(routine.displayName)'s reminder sounded at \(ClockTime(of: r.at, calendar: calendar).description) after the quest was played at \(ClockTime(of: first, calendar: calendar).description)")
            }
            guard let due = ReminderSchedule.time(for: routine, settings: settings.game, on: day, calendar: calendar) else {
                if !mine.isEmpty { fail("REM-1: \(routine.displayName)'s reminder sounded on a day it has none") }
                continue
            }
            let up = upIntervals.contains { $0.from <= due && ($0.to ?? .distantFuture) > due.addingTimeInterval(1) }
            let waiting = !busy.contains { $0.from <= due && $0.to >= due }
            let playedBefore = played.contains { $0 <= due }
            let addedLater = routineAddedAfter(routine, due)
            // A restore that day puts back a history from before the reminder.
            let restored = scenario.events.contains { e in
                if case .restoreLatestBackup = e.action { return calendar.isDate(e.at, inSameDayAs: day) && e.at > due }
                return false
            }
            if up && waiting && !playedBefore && !addedLater && !restored && mine.count != 1 {
                fail("REM-1: \(routine.displayName)'s reminder at \(ClockTime(of: due, calendar: calendar).description) sounded \(mine.count) times (the box was waiting, the quest not played)")
            }
            if playedBefore && !mine.isEmpty { fail("REM-1: \(routine.displayName)'s reminder sounded although the quest was played before \(ClockTime(of: due, calendar: calendar).description)") }
        }
    }

    /// The reminders are stored on the box's clock, which the checks read as true time (a
    /// scenario syncs a wrong clock within minutes of its boot).
    var wallSkewAtCheck: TimeInterval { 0 }

    func routineAddedAfter(_ routine: Routine, _ time: Date) -> Bool {
        scenario.events.contains { e in
            if case .addRoutine(let spec) = e.action, spec.name == routine.displayName { return e.at > time.addingTimeInterval(-60) }
            return false
        }
    }

    /// No quest is stuck: at the end of the day the box waits on its quest list, no task is
    /// being timed, and no quest is left open in the store but the one the box holds.
    func checkNothingStuck() throws {
        guard let daemon else { return }
        switch daemon.state.phase {
        case .idle: break
        default: fail("stuck: at the end of the day the box shows \(daemon.state.phase.name)")
        }
        if try other.plays.inProgress() != nil { fail("stuck: a task is still being timed at the end of the day") }
        let open = try other.plays.sessions().filter { $0.status == .inProgress }
        if !open.isEmpty { fail("stuck: \(open.count) quest(s) still open in the store") }
        if daemon.unsavedPlays > 0 { fail("stuck: \(daemon.unsavedPlays) plays not saved") }
    }

    /// Every screen's words: no raw key, no NaN or infinity, no negative or absurd duration,
    /// and GAME-2: the running task's screen shows no time but the guess.
    func checkWords(_ screens: [(at: Date, screen: Screen, notice: String?)]) {
        let rawKey = /\b[a-z]+\.[a-z]+(-[a-z]+)*\b/
        // #48: the whole clock, "1:05:00" too (it was read as "1:05").
        let clockWords = /(-?)(\d+):(\d\d)(?::(\d\d))?/
        for shown in screens {
            let lines = shown.screen.textLines + (shown.notice.map { [$0] } ?? [])
            for line in lines {
                if line.firstMatch(of: /(?i)\b(nan|inf|infinity|nil)\b/) != nil || line.contains("Optional(") || line.contains("{{") {
                    fail("words: \(shown.screen.kind) says \"\(line)\"")
                }
                if line.firstMatch(of: rawKey) != nil { fail("words: a raw key on \(shown.screen.kind): \"\(line)\"") }
                for match in line.matches(of: clockWords) {
                    let first = Int(match.output.2) ?? 0, second = Int(match.output.3) ?? 0
                    let seconds = match.output.4.flatMap { Int($0) }.map { first * 3_600 + second * 60 + $0 } ?? first * 60 + second
                    if !match.output.1.isEmpty || seconds > GameRules.standard.maximumEstimateSeconds {
                        fail("words: an absurd duration on \(shown.screen.kind): \"\(line)\"")
                    }
                }
            }
            if case .active(let active) = shown.screen {
                let guess = DurationText.clock(seconds: active.estimateSeconds)
                for line in lines {
                    for match in line.matches(of: clockWords) where String(match.output.0) != guess {
                        fail("GAME-2: the running task's screen shows a time that is not the guess: \"\(line)\"")
                    }
                }
            }
        }
    }

    /// REFL-1: a weekly card counts every quest completed that week (learning ones too) and
    /// the days played, as the history has them.
    func checkWeeklyCards(_ screens: [(at: Date, screen: Screen, notice: String?)]) throws {
        let cal = try other.settings.current().calendar(from: baseCalendar())
        let plays = try other.plays.questPlays()
        let tasks = try other.plays.estimations()
        for shown in screens {
            guard case .reflection(let card) = shown.screen else { continue }
            guard let week = cal.dateInterval(of: .weekOfYear, for: card.weekStartDate) else { continue }
            let inWeek = plays.filter { week.contains($0.completedAt) }
            // "N of 7 days": the days a task was played (a quest left half-way counts as a day
            // played), or a quest completed.
            let days = Set(tasks.filter { week.contains($0.recordedAt) }.map { cal.startOfDay(for: $0.recordedAt) }
                           + inWeek.map { cal.startOfDay(for: $0.completedAt) }).count
            if card.questsCompleted != inWeek.count || card.daysPlayedThisWeek != days {
                fail("REFL-1: the card for \(card.weekDates) says \(card.questsCompleted) quests on \(card.daysPlayedThisWeek) days; the history has \(inWeek.count) on \(days)")
            }
        }
    }

    /// One line per day: what happened, the totals and the streak, what the box said.
    func writeReport(_ day: Date, screens: [(at: Date, screen: Screen, notice: String?)]) throws {
        let profile = try other.profile(calendar: try other.settings.current().calendar(from: baseCalendar()))
        let reminders = try other.plays.remindersSounded().filter { calendar.isDate($0.at, inSameDayAs: day) }.map { ClockTime(of: $0.at, calendar: calendar).description }
        let notes = dayNotes.isEmpty ? "-" : dayNotes.joined(separator: "; ")
        report.append("\(DayText.of(day, calendar: calendar)) | \(notes) | reminders \(reminders.isEmpty ? "-" : reminders.joined(separator: ",")) | \(profile.totalXP) XP, \(profile.sessionsCompleted) quests, streak \(shownStreak() ?? -1) | \(screens.count) screens")
    }
}
