
/// REM-1: each routine active today and not yet played gets one reminder, at its own time or
/// the box's, once per day. Times are local wall-clock times in the box's calendar: on the day
/// a clock change skips the time (02:30 when 02:00 becomes 03:00) the reminder sounds at the
/// first moment after the gap; on the day a time occurs twice it sounds at the first.
public enum ReminderSchedule {
    /// A reminder the box could not sound at its time (switched off, or a long quest) still
    /// sounds this long after it; later it would only be noise (a morning reminder at 3 pm).
    public static let latenessSeconds: TimeInterval = 60 * 60

    /// When `routine`'s reminder sounds on the day of `date`, or nil (reminders off, the
    /// routine's off, or not active that day).
    public static func time(for routine: Routine, settings: GameSettings, on date: Date, calendar: Calendar) -> Date? {
        guard settings.remindersEnabled, routine.isAvailable(on: date, calendar: calendar) else { return nil }
        let clock: ClockTime
        switch routine.reminder ?? .standard {
        case .off: return nil
        case .standard: clock = settings.reminderTime
        case .at(let t): clock = t
        }
        return calendar.date(
            bySettingHour: clock.hour, minute: clock.minute, second: 0, of: calendar.startOfDay(for: date),
            matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward)
    }

    /// The routines whose reminder is due at `now`: its time today has come (within
    /// `latenessSeconds`), the routine is not played today, and it has not been reminded today. `reminded`: the last reminder of each
    /// routine.
    public static func due(
        routines: [Routine], plays: [QuestPlay], reminded: [UUID: Date], settings: GameSettings, now: Date, calendar: Calendar
    ) -> [Routine] {
        routines.filter { r in
            guard let at = time(for: r, settings: settings, on: now, calendar: calendar), at <= now,
                  now.timeIntervalSince(at) < latenessSeconds
            else { return false }
            if let last = reminded[r.id], calendar.isDate(last, inSameDayAs: now) { return false }
            return !plays.contains { $0.routineID == r.id && calendar.isDate($0.completedAt, inSameDayAs: now) }
        }
    }

    /// The next moment after `now` when a reminder may fall due (today's later ones, else the
    /// earliest of the next day that has one, up to a week ahead); nil when none is set.
    public static func nextTime(routines: [Routine], settings: GameSettings, now: Date, calendar: Calendar) -> Date? {
        var day = calendar.startOfDay(for: now)
        for _ in 0...7 {
            let times = routines.compactMap { time(for: $0, settings: settings, on: day, calendar: calendar) }.filter { $0 > now }
            if let first = times.min() { return first }
            guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { return nil }
            day = calendar.startOfDay(for: next)
        }
        return nil
    }
}
