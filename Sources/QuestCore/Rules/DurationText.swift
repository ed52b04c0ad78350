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

    /// A signed difference said of the guess, as the reveal says it (one duration format on
    /// every screen): "0:11 short" (the guess was under the time taken), "2:05 long",
    /// "exactly right".
    public static func difference(_ differenceSeconds: Double) -> String {
        guard differenceSeconds.isFinite else { return "?" }
        let rounded = differenceSeconds.rounded()
        if rounded == 0 { return "exactly right" }
        return clock(measured: abs(rounded)) + (rounded > 0 ? " long" : " short")
    }

    /// `approximate` as a clock, for the screens' "about 2:45".
    public static func approximateClock(seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        return clock(seconds: Int(approximatelyRounded(min(seconds, 359_999))))
    }

    /// A rounded figure for "about X" texts: 5 s under 2 min, 15 s under 10 min, minutes above.
    public static func approximate(seconds: Double) -> String {
        format(seconds: approximatelyRounded(seconds))
    }

    /// The grain of "about X": 5 s under 2 min, 15 s under 10 min, minutes above; never 0.
    static func approximatelyRounded(_ seconds: Double) -> Double {
        let grain: Double = seconds < 120 ? 5 : (seconds < 600 ? 15 : 60)
        return max(grain, (seconds / grain).rounded() * grain)
    }

    /// M:SS of a measured duration, rounded to the second and at most 99:59:59 (one format on
    /// every screen); "?" for a value that is not a time.
    public static func clock(measured seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        return clock(seconds: Int(min(max(seconds, 0), 359_999).rounded()))
    }

    /// "m:ss" / "h:mm:ss" for the estimate the player is dialling in.
    public static func clock(seconds: Int) -> String {
        let h = seconds / 3600, m = (seconds % 3600) / 60, s = seconds % 60
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }
}
