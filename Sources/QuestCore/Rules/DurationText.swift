/// Human durations for the player's surfaces: "45s", "2m 5s", "1h 10m".
public enum DurationText: Sendable {
    public static func format(seconds: Double) -> String {
        let total = Int(seconds.rounded())
        if total >= 3600 {
            let h = total / 3600, m = (total % 3600) / 60
            return m == 0 ? "\(h)h" : "\(h)h \(m)m"
        }
        if total >= 60 {
            let m = total / 60, s = total % 60
            return s == 0 ? "\(m)m" : "\(m)m \(s)s"
        }
        return "\(total)s"
    }

    /// A signed difference as the reveal says it: "2m 5s over", "40s under", "exactly right".
    public static func difference(_ differenceSeconds: Double) -> String {
        let rounded = differenceSeconds.rounded()
        if rounded == 0 { return "exactly right" }
        return format(seconds: abs(rounded)) + (rounded > 0 ? " over" : " under")
    }

    /// A rounded figure for "about X" texts: 5 s under 2 min, 15 s under 10 min, minutes above.
    public static func approximate(seconds: Double) -> String {
        let grain: Double = seconds < 120 ? 5 : (seconds < 600 ? 15 : 60)
        let rounded = max(grain, (seconds / grain).rounded() * grain)
        return format(seconds: rounded)
    }

    /// "m:ss" / "h:mm:ss" for the estimate the player is dialling in.
    public static func clock(seconds: Int) -> String {
        let h = seconds / 3600, m = (seconds % 3600) / 60, s = seconds % 60
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }
}
