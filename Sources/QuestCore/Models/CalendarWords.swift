import FoundationEssentials

/// Weekdays as the box numbers them everywhere (the routine file, the store, the calendar's
/// `firstWeekday`): 1 = Sunday … 7 = Saturday (#49: one range, not three).
public enum WeekdayNumber {
    public static let all: ClosedRange<Int> = 1...7
}

/// The short English names pages and screens give months and weekdays ("Nov", "Thu"): one
/// list for every surface.
public enum CalendarWords {
    public static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    public static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// A calendar month number (1–12) as "Jan" … "Dec"; out-of-range numbers are clamped.
    public static func month(_ number: Int?) -> String { months[min(max((number ?? 1) - 1, 0), 11)] }

    /// A calendar weekday number (1 = Sunday … 7) as "Sun" … "Sat"; out-of-range is clamped.
    public static func weekday(_ number: Int?) -> String { weekdays[min(max((number ?? 1) - 1, 0), 6)] }

    /// "today 07:58", "yesterday 18:02", "tomorrow 14:02", else "Mon 23 Nov 07:58" (in the
    /// family's calendar, the time in the box's `clock` style): one way every page and push
    /// says when something happened or will.
    public static func day(_ date: Date, now: Date, calendar: Calendar, clock style: ClockStyle) -> String {
        let clock = style.text(ClockTime(of: date, calendar: calendar))
        for (offset, word) in [(0, "today"), (-1, "yesterday"), (1, "tomorrow")] {
            if let day = calendar.date(byAdding: .day, value: offset, to: now), calendar.isDate(date, inSameDayAs: day) { return "\(word) \(clock)" }
        }
        let parts = calendar.dateComponents([.weekday, .day, .month], from: date)
        return "\(weekday(parts.weekday)) \(parts.day ?? 1) \(month(parts.month)) \(clock)"
    }
}
