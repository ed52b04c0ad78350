/// How a time of day is written for people (#48: one clock format everywhere, the box's
/// locale's): "07:58" where the locale counts 24 hours, "7:58 AM" where it counts twelve.
/// What machines read (a form's `type=time` value, MQTT, settings, files) stays `HH:MM`.
public enum ClockStyle: String, Sendable, Equatable, CaseIterable {
    case twentyFourHour = "24h"
    case twelveHour = "12h"

    /// From a POSIX locale's time format (`nl_langinfo(T_FMT)`: "%H:%M:%S" in C, "%T" in
    /// en_GB, "%r" in en_US, "%I:%M:%S %p %Z" in en_IN): twelve hours when it names the
    /// 12-hour clock or AM/PM, else 24.
    public init(posixTimeFormat format: String) {
        var twelve = false
        var percent = false
        for c in format {
            if percent {
                // %r: the 12-hour time; %I, %l: the 12-hour hour; %p, %P: AM/PM. ("%%" is a %.)
                if "rIlpP".contains(c) { twelve = true }
                percent = false
            } else if c == "%" {
                percent = true
            }
        }
        self = twelve ? .twelveHour : .twentyFourHour
    }

    public func text(_ time: ClockTime) -> String {
        switch self {
        case .twentyFourHour:
            return time.description
        case .twelveHour:
            let hour = time.hour % 12 == 0 ? 12 : time.hour % 12
            return "\(hour):" + (time.minute < 10 ? "0" : "") + "\(time.minute) " + (time.hour < 12 ? "AM" : "PM")
        }
    }
}
