import Foundation
import QuestCore
import QuestReports
import QuestStore

/// The player's home and stats as last read: each read serves every page for 2 s (a flood of
/// requests reads five years of history once per 2 s, not once each). Plays on the box show
/// within 2 s; this process's own changes at once (`ForgetRecentReads`), and a quest that
/// ends on the box as soon as its screen says so (the kiosk relay).
struct PlayerPageReads: Sendable {
    let database: QuestDatabase
    let resources: WebResources
    let calendar: Calendar
    let clockStyle: ClockStyle
    let recentHome = RecentValue<Result<PlayerHome, any Error>>(freshNanos: 2_000_000_000)
    let recentStats = RecentValue<Result<RenderedStats, any Error>>(freshNanos: 2_000_000_000)

    /// The player's home, read at most once per 2 s.
    func playerHome() async throws -> PlayerHome {
        try await recentHome.get { [self] in
            await BackgroundRead.run { Result { try PlayerHome.load(from: database, calendar: calendar, clock: clockStyle, now: Date()) } }
        }.get()
    }

    /// The stats and their page, read and rendered at most once per 2 s: the page is the
    /// same for every visitor, so a flood of requests costs one render per read.
    func stats() async throws -> RenderedStats {
        try await recentStats.get { [self] in
            await BackgroundRead.run {
                Result {
                    let report = try StatsReport.load(from: database, now: Date(), calendar: calendar)
                    let letters = StatsPage.weekdayLetters(try database.settings.familyCalendar(from: calendar))
                    return RenderedStats(report: report, page: try resources.page("stats", StatsPage(report, weekdayLetters: letters)))
                }
            }
        }.get()
    }

    /// The next pages read the store anew.
    func forget() {
        recentHome.forget()
        recentStats.forget()
    }
}

extension SettingsStore {
    /// The family's calendar: the week starts on the stored first weekday, as on the box.
    func familyCalendar(from base: Calendar) throws -> Calendar { try current().calendar(from: base) }
}
