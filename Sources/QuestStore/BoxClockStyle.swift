import Foundation
import QuestCore
import SystemClock

extension ClockStyle {
    /// #48: the box's one clock format, from its locale (`LC_ALL`, `LC_TIME`, `LANG`), for every
    /// program that writes a time of day for people (the pages, the pushes). One place, so the
    /// web app and the house link never disagree.
    public static func ofThisBox(environment: [String: String] = ProcessInfo.processInfo.environment) -> ClockStyle {
        ClockStyle(posixTimeFormat: SystemLocale.timeFormat(environment: environment))
    }
}
