/// The short English names pages and screens give months and weekdays ("Nov", "Thu"): one
/// list for every surface.
public enum CalendarWords {
    public static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    public static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// A calendar month number (1–12) as "Jan" … "Dec"; out-of-range numbers are clamped.
    public static func month(_ number: Int?) -> String { months[min(max((number ?? 1) - 1, 0), 11)] }

    /// A calendar weekday number (1 = Sunday … 7) as "Sun" … "Sat"; out-of-range is clamped.
    public static func weekday(_ number: Int?) -> String { weekdays[min(max((number ?? 1) - 1, 0), 6)] }
}
