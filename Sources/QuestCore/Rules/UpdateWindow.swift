/// UPD-1: whether an update of the box's own software may begin now. Installing restarts the
/// box, so it waits for an idle box (never mid-quest) and keeps clear of her reminders: not in
/// the 30 minutes before one, nor while one is due and not yet sounded (REM-1's hour of
/// lateness), so a restart is never something she meets.
public enum UpdateWindow {
    public static let clearBeforeReminder: TimeInterval = 30 * 60

    public enum Verdict: Equatable, Sendable {
        case open
        /// The box's quest loop is not idle (`BoxStatus.phase`).
        case questInPlay(phase: String)
        /// A routine's reminder sounds within `clearBeforeReminder`.
        case reminderSoon(routine: String, at: Date)
        /// A routine's reminder time has come and it has not sounded (nor been played).
        case reminderDue(routine: String, at: Date)

        public var isOpen: Bool { self == .open }
    }

    /// `boxPhase`: the running box's phase, or nil when no box runs (nothing can be in play).
    /// A routine already played or reminded today is no reason to wait for its reminder.
    public static func verdict(
        boxPhase: String?, routines: [Routine], plays: [QuestPlay], reminded: [UUID: Date], settings: GameSettings, now: Date,
        calendar: Calendar
    ) -> Verdict {
        if let phase = boxPhase, phase != "idle" { return .questInPlay(phase: phase) }
        if let due = ReminderSchedule.due(routines: routines, plays: plays, reminded: reminded, settings: settings, now: now, calendar: calendar).first,
           let at = ReminderSchedule.time(for: due, settings: settings, on: now, calendar: calendar) {
            return .reminderDue(routine: due.displayName, at: at)
        }
        // Today's and tomorrow's times (the half hour before a reminder just after midnight
        // starts today).
        let horizon = now.addingTimeInterval(clearBeforeReminder)
        var soon: (Routine, Date)?
        for routine in routines {
            for day in [now, calendar.date(byAdding: .day, value: 1, to: now)].compactMap({ $0 }) {
                guard let at = ReminderSchedule.time(for: routine, settings: settings, on: day, calendar: calendar), at > now, at <= horizon,
                      !alreadyDone(routine, on: at, plays: plays, reminded: reminded, calendar: calendar)
                else { continue }
                if soon.map({ at < $0.1 }) ?? true { soon = (routine, at) }
            }
        }
        if let (routine, at) = soon { return .reminderSoon(routine: routine.displayName, at: at) }
        return .open
    }

    /// Played or reminded on the reminder's own day: it will not sound.
    static func alreadyDone(_ routine: Routine, on day: Date, plays: [QuestPlay], reminded: [UUID: Date], calendar: Calendar) -> Bool {
        if let last = reminded[routine.id], calendar.isDate(last, inSameDayAs: day) { return true }
        return plays.contains { $0.routineID == routine.id && calendar.isDate($0.completedAt, inSameDayAs: day) }
    }
}

extension UpdateWindow.Verdict {
    /// One line for the updater's log and the parent's page; times in the box's calendar.
    public func words(calendar: Calendar) -> String {
        func clock(_ date: Date) -> String { ClockTime(of: date, calendar: calendar).description }
        switch self {
        case .open: return "the box is idle and no reminder is near: an update may start"
        case .questInPlay(let phase): return "a quest is in play on the box (\(phase)): the update waits until it is over"
        case .reminderSoon(let routine, let at): return "\(routine)'s reminder sounds at \(clock(at)): the update waits until it has"
        case .reminderDue(let routine, let at): return "\(routine)'s reminder (\(clock(at))) has not sounded yet: the update waits"
        }
    }
}
