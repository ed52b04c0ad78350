import Glibc

/// The box's locale as its processes got it from the system (`/etc/default/locale`, through
/// systemd): what pages and pushes follow for the time of day (#48). Read from glibc's own
/// locale data, the same `date` uses; nothing is loaded beyond the locale's LC_TIME.
public enum SystemLocale {
    /// The locale POSIX applies to times: `LC_ALL`, else `LC_TIME`, else `LANG`, else "C".
    public static func timeLocale(environment: [String: String]) -> String {
        ["LC_ALL", "LC_TIME", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? "C"
    }

    /// That locale's time format (`nl_langinfo(T_FMT)`, "%r" in en_US.UTF-8); C's
    /// ("%H:%M:%S") when the locale is not installed on this system or its name is not one.
    public static func timeFormat(locale: String) -> String {
        let c = "%H:%M:%S"
        guard !locale.isEmpty, locale.utf8.count <= 128, !locale.utf8.contains(where: { $0 < 0x20 || $0 == 0x2F }),
              let handle = newlocale(LC_TIME_MASK, locale, nil)
        else { return c }
        defer { freelocale(handle) }
        guard let format = nl_langinfo_l(nl_item(T_FMT), handle) else { return c }
        return String(cString: format)
    }

    public static func timeFormat(environment: [String: String]) -> String {
        timeFormat(locale: timeLocale(environment: environment))
    }
}
