import Foundation
import Testing
@testable import QuestCore

@Suite("REFL-1 weekly reflection (seed 000 pitfalls)")
struct ReflectionTests {
    let cal = calendar("Europe/Berlin", firstWeekday: 2)

    func session(_ id: Int, completedAt: Date?, calibration: Bool = false, status: SessionStatus = .completed) -> GameSession {
        GameSession(
            id: uuid(id), routineID: uuid(900), routineDisplayName: "Morning Quest", startedAt: completedAt ?? Date(),
            startedMonotonicNanos: 0, bootID: "b", completedAt: completedAt, status: status, isCalibration: calibration)
    }

    @Test("quests are counted from completed sessions, not estimations; learning quests count as quests, not for accuracy")
    func questCount() {
        let mon = at(2026, 6, 8, 7, 0, cal), tue = at(2026, 6, 9, 7, 0, cal)
        let s = [mon, tue].flatMap { d in ["Teeth", "Dress", "Pack"].map { snap($0, est: 120, act: 120, on: d) } }
        let sessions = [session(1, completedAt: mon), session(2, completedAt: tue), session(3, completedAt: nil, status: .abandoned),
                        session(4, completedAt: tue, calibration: true)]
        let r = WeeklyReflectionEngine.computeReflection(snapshots: s, sessions: sessions, weekContaining: mon, calendar: cal)
        #expect(r.questsCompleted == 3 && r.learningQuests == 1 && r.scoredQuests == 2)
        #expect(r.totalEstimations == 6)
        #expect(r.learningLine == "Accuracy from 2 quests; the first was for learning")
        #expect(r.daysPlayedThisWeek == 2)
        #expect(r.streakContextString == "2 of 7 days")
        #expect(r.hasGaps)
        #expect(r.isMeaningful)
    }

    @Test("#32: six quests on six days, the first three for learning: the card counts six and says why accuracy has three")
    func learningWeek() {
        let days = (0..<6).map { at(2026, 6, 8 + $0, 7, 0, cal) }
        let sessions = days.enumerated().map { session($0.offset + 1, completedAt: $0.element, calibration: $0.offset < 3) }
        let s = days.enumerated().map { snap("Teeth", est: 120, act: 120, on: $0.element, calibration: $0.offset < 3) }
        let r = WeeklyReflectionEngine.computeReflection(snapshots: s, sessions: sessions, weekContaining: days[0], calendar: cal)
        #expect(r.summaryLines == [
            "Your week Jun 8–14", "6 quests · 6 of 7 days", "Average accuracy 100%",
            "Accuracy from 3 quests; the first 3 were for learning", "Best estimate: Teeth, 100%",
        ])
        // Three learning quests alone are a card too, with no accuracy to show.
        let learning = WeeklyReflectionEngine.computeReflection(
            snapshots: Array(s.prefix(3)), sessions: Array(sessions.prefix(3)), weekContaining: days[0], calendar: cal)
        #expect(learning.isMeaningful)
        #expect(learning.summaryLines == ["Your week Jun 8–14", "3 quests · 3 of 7 days", "All 3 were learning quests: accuracy counts from the next one"])
        let screen = Screen.reflection(learning).words
        #expect(screen.big == "Learning" && !screen.all.contains { $0.contains("0%") })
    }

    @Test("the week's dates as a player reads them: within a month, across months and years, Sunday-first, over DST")
    func weekDates() {
        func dates(_ day: Date, _ c: Calendar) -> String {
            WeeklyReflectionEngine.computeReflection(snapshots: [], sessions: [], weekContaining: day, calendar: c).weekDates
        }
        #expect(dates(at(2026, 11, 18, 12, 0, cal), cal) == "Nov 16–22")
        #expect(dates(at(2026, 12, 2, 12, 0, cal), cal) == "Nov 30 – Dec 6")
        #expect(dates(at(2026, 12, 31, 12, 0, cal), cal) == "Dec 28 – Jan 3")
        #expect(dates(at(2026, 10, 25, 12, 0, cal), cal) == "Oct 19–25", "the week that ends on the DST change")
        var sunday = cal
        sunday.firstWeekday = 1
        #expect(dates(at(2026, 11, 18, 12, 0, cal), sunday) == "Nov 15–21")
        // The longest top lines the box shows: a month boundary, 12 quests on 7 days.
        let busy = (0..<12).map { session($0 + 1, completedAt: at(2026, 12, 1 + $0 % 6, 7, $0, cal)) }
        let card = WeeklyReflectionEngine.computeReflection(snapshots: [], sessions: busy, weekContaining: at(2026, 12, 2, 12, 0, cal), calendar: cal)
        #expect(Screen.reflection(card).words.top == ["Week Nov 30 – Dec 6", "12 quests · 6/7 days"])
        for line in Screen.reflection(card).words.top { #expect(line.count <= 21, "\(line) fits the OLED's 21 characters") }
    }

    @Test("an empty week is not meaningful and shows no numbers")
    func emptyWeek() {
        let r = WeeklyReflectionEngine.computeReflection(snapshots: [], sessions: [], weekContaining: at(2026, 6, 10, 12, 0, cal), calendar: cal)
        #expect(!r.isMeaningful)
        #expect(r.questsCompleted == 0 && r.totalEstimations == 0 && r.averageAccuracy == 0)
        #expect(r.accuracyChangeVsPriorWeek == nil && r.bestEstimateTaskName == nil && r.mostImprovedTaskName == nil)
        #expect(r.patternHighlight == nil)
        #expect(r.streakContextString == "0 of 7 days")
    }

    @Test("the first week has no prior week: the change is absent, not 0")
    func firstWeek() {
        let d = at(2026, 6, 9, 7, 0, cal)
        let r = WeeklyReflectionEngine.computeReflection(
            snapshots: [snap("Teeth", est: 100, act: 120, on: d)], sessions: [session(1, completedAt: d)], weekContaining: d, calendar: cal)
        #expect(r.accuracyChangeVsPriorWeek == nil)
        let withPrior = WeeklyReflectionEngine.computeReflection(
            snapshots: [snap("Teeth", est: 100, act: 100, on: d.addingTimeInterval(-7 * 86400)), snap("Teeth", est: 100, act: 120, on: d)],
            sessions: [session(1, completedAt: d)], weekContaining: d, calendar: cal)
        #expect(abs(withPrior.accuracyChangeVsPriorWeek! - ((100 - 20.0 / 120 * 100) - 100)) < 1e-9)
    }

    @Test("average, best estimate, and calibration left out")
    func averages() {
        let d = at(2026, 6, 9, 7, 0, cal)
        let s = [snap("Teeth", est: 120, act: 120, on: d), snap("Dress", est: 100, act: 200, on: d),
                 snap("Pack", est: 900, act: 100, on: d, calibration: true)]
        let r = WeeklyReflectionEngine.computeReflection(snapshots: s, sessions: [session(1, completedAt: d)], weekContaining: d, calendar: cal)
        #expect(r.averageAccuracy == 75)
        #expect(r.bestEstimateTaskName == "Teeth" && r.bestEstimateAccuracy == 100)
        #expect(r.totalEstimations == 2)
    }

    @Test("most improved needs ≥ 2 estimations of the task in both weeks")
    func mostImproved() {
        let thisWeek = at(2026, 6, 9, 7, 0, cal), lastWeek = at(2026, 6, 2, 7, 0, cal)
        var s: [EstimationSnapshot] = []
        // Shower: once last week (0 %), three times now (100 %): huge gain, but not eligible.
        s.append(snap("Shower", est: 600, act: 200, on: lastWeek))
        s += (0..<3).map { snap("Shower", est: 200, act: 200, on: thisWeek.addingTimeInterval(Double($0) * 3600)) }
        // Dress: twice in both weeks, 50 % → 90 %.
        s += (0..<2).map { snap("Dress", est: 150, act: 100, on: lastWeek.addingTimeInterval(Double($0) * 3600)) }
        s += (0..<2).map { snap("Dress", est: 110, act: 100, on: thisWeek.addingTimeInterval(Double($0) * 3600)) }
        // Teeth: twice in both weeks but worse now: never "most improved".
        s += (0..<2).map { snap("Teeth", est: 100, act: 100, on: lastWeek.addingTimeInterval(Double($0) * 3600)) }
        s += (0..<2).map { snap("Teeth", est: 130, act: 100, on: thisWeek.addingTimeInterval(Double($0) * 3600)) }
        let r = WeeklyReflectionEngine.computeReflection(snapshots: s, sessions: [session(1, completedAt: thisWeek)], weekContaining: thisWeek, calendar: cal)
        #expect(r.mostImprovedTaskName == "Dress")
        #expect(abs(r.mostImprovedDelta! - 40) < 1e-9)
        let onlyShower = s.filter { $0.taskDisplayName == "Shower" }
        #expect(WeeklyReflectionEngine.computeReflection(snapshots: onlyShower, sessions: [], weekContaining: thisWeek, calendar: cal).mostImprovedTaskName == nil)
    }

    @Test("the highlight only speaks of tasks played that week, improving before bias before consistency")
    func highlight() {
        let week = at(2026, 6, 8, 7, 0, cal)
        // Reading: improving trend, but not played this week.
        var s = (0..<5).map { snap("Reading", est: 800, act: 600, on: at(2026, 4, 1 + $0, 18, 0, cal)) }
            + (0..<5).map { snap("Reading", est: 620, act: 600, on: at(2026, 4, 10 + $0, 18, 0, cal)) }
        // Packing: underestimated, played this week.
        s += (0..<5).map { snap("Packing", est: 200, act: 300, on: at(2026, 5, 1 + $0, 7, 0, cal)) }
        s.append(snap("Packing", est: 200, act: 300, on: week))
        let r = WeeklyReflectionEngine.computeReflection(snapshots: s, sessions: [session(1, completedAt: week)], weekContaining: week, calendar: cal)
        #expect(r.patternHighlight == "You tend to underestimate Packing")
        // Once Reading is played this week its improving trend wins.
        s.append(snap("Reading", est: 605, act: 600, on: week))
        let r2 = WeeklyReflectionEngine.computeReflection(snapshots: s, sessions: [session(1, completedAt: week)], weekContaining: week, calendar: cal)
        #expect(r2.patternHighlight == "Your Reading estimates are getting closer over time")
    }

    @Test("DST week: bounds are calendar midnights, 167 hours long, and late Sunday play stays in its week")
    func dstWeek() {
        // Berlin springs forward on Sunday 2026-03-29; Monday-first week 23–29 March.
        let sundayLate = at(2026, 3, 29, 23, 30, cal)
        let b = WeeklyReflectionEngine.weekBounds(containing: sundayLate, calendar: cal)!
        #expect(b.start == at(2026, 3, 23, 0, 0, cal))
        #expect(b.end == at(2026, 3, 30, 0, 0, cal))
        #expect(b.end.timeIntervalSince(b.start) == 167 * 3600)
        let s = [snap("Teeth", est: 120, act: 120, on: sundayLate), snap("Teeth", est: 120, act: 120, on: at(2026, 3, 30, 0, 30, cal))]
        let r = WeeklyReflectionEngine.computeReflection(snapshots: s, sessions: [session(1, completedAt: sundayLate)], weekContaining: sundayLate, calendar: cal)
        #expect(r.totalEstimations == 1)
        // The autumn week is 169 hours.
        let autumn = WeeklyReflectionEngine.weekBounds(containing: at(2026, 10, 25, 12, 0, cal), calendar: cal)!
        #expect(autumn.end.timeIntervalSince(autumn.start) == 169 * 3600)
        // The prior week of a DST week starts exactly at a midnight too.
        let prior = WeeklyReflectionEngine.previousWeekBounds(from: at(2026, 3, 31, 12, 0, cal), calendar: cal)!
        #expect(prior.start == at(2026, 3, 23, 0, 0, cal) && prior.end == at(2026, 3, 30, 0, 0, cal))
    }

    @Test("December → January: one week, one ISO id, prior week in the old year")
    func yearBoundary() {
        #expect(WeeklyReflectionEngine.weekIdentifier(for: at(2026, 12, 31, 12, 0, cal), timeZone: cal.timeZone) == "2026-W53")
        #expect(WeeklyReflectionEngine.weekIdentifier(for: at(2027, 1, 1, 12, 0, cal), timeZone: cal.timeZone) == "2026-W53")
        #expect(WeeklyReflectionEngine.weekIdentifier(for: at(2027, 1, 4, 12, 0, cal), timeZone: cal.timeZone) == "2027-W01")
        #expect(WeeklyReflectionEngine.weekIdentifier(for: at(2025, 12, 29, 12, 0, cal), timeZone: cal.timeZone) == "2026-W01")
        #expect(WeeklyReflectionEngine.weekIdentifier(for: at(2026, 3, 2, 12, 0, cal), timeZone: cal.timeZone) == "2026-W10")
        let dec = at(2026, 12, 30, 7, 0, cal), jan = at(2027, 1, 2, 7, 0, cal), prior = at(2026, 12, 22, 7, 0, cal)
        let s = [snap("Teeth", est: 120, act: 120, on: dec), snap("Teeth", est: 120, act: 150, on: jan), snap("Teeth", est: 120, act: 240, on: prior)]
        let r = WeeklyReflectionEngine.computeReflection(
            snapshots: s, sessions: [session(1, completedAt: dec), session(2, completedAt: jan)], weekContaining: jan, calendar: cal)
        #expect(r.weekStartDate == at(2026, 12, 28, 0, 0, cal))
        #expect(r.weekEndDate == at(2027, 1, 4, 0, 0, cal))
        #expect(r.weekIdentifier == "2026-W53")
        #expect(r.questsCompleted == 2 && r.totalEstimations == 2)
        #expect(r.accuracyChangeVsPriorWeek != nil)
    }

    @Test("Sunday-first and Monday-first weeks split the same Sunday differently")
    func firstWeekday() {
        let sunday = at(2026, 6, 14, 10, 0, cal)  // a Sunday
        let monFirst = WeeklyReflectionEngine.weekBounds(containing: sunday, calendar: cal)!
        #expect(monFirst.start == at(2026, 6, 8, 0, 0, cal))
        var sunCal = cal
        sunCal.firstWeekday = 1
        let sunFirst = WeeklyReflectionEngine.weekBounds(containing: sunday, calendar: sunCal)!
        #expect(sunFirst.start == at(2026, 6, 14, 0, 0, cal))
        #expect(sunCal.component(.weekday, from: sunFirst.start) == 1)
        // Both name their week by the ISO week holding most of its days.
        #expect(WeeklyReflectionEngine.weekIdentifier(ofWeekStarting: monFirst.start, calendar: cal) == "2026-W24")
        #expect(WeeklyReflectionEngine.weekIdentifier(ofWeekStarting: sunFirst.start, calendar: sunCal) == "2026-W25")
        let s = [snap("Teeth", est: 120, act: 120, on: sunday)]
        #expect(WeeklyReflectionEngine.computeReflection(snapshots: s, sessions: [], weekContaining: at(2026, 6, 10, 10, 0, cal), calendar: cal).totalEstimations == 1)
        #expect(WeeklyReflectionEngine.computeReflection(snapshots: s, sessions: [], weekContaining: at(2026, 6, 10, 10, 0, cal), calendar: sunCal).totalEstimations == 0)
    }

    @Test("lazily shown once a new week starts, until dismissed; the last 4 weeks with quests are kept")
    func pendingAndHistory() {
        var s: [EstimationSnapshot] = [], sessions: [GameSession] = []
        for (i, day) in [at(2026, 5, 12, 7, 0, cal), at(2026, 5, 19, 7, 0, cal), at(2026, 6, 2, 7, 0, cal), at(2026, 6, 9, 7, 0, cal), at(2026, 4, 28, 7, 0, cal)].enumerated() {
            s.append(snap("Teeth", est: 120, act: 120, on: day))
            sessions.append(session(i + 1, completedAt: day))
        }
        let now = at(2026, 6, 15, 8, 0, cal)  // Monday of a new week
        let pending = WeeklyReflectionEngine.pendingReflection(snapshots: s, sessions: sessions, now: now, calendar: cal, dismissedWeek: nil)
        #expect(pending?.weekIdentifier == "2026-W24")
        #expect(WeeklyReflectionEngine.pendingReflection(snapshots: s, sessions: sessions, now: now, calendar: cal, dismissedWeek: "2026-W24") == nil)
        // After an empty week there is nothing to show.
        #expect(WeeklyReflectionEngine.pendingReflection(snapshots: s, sessions: sessions, now: at(2026, 6, 24, 8, 0, cal), calendar: cal, dismissedWeek: nil) == nil)
        let recent = WeeklyReflectionEngine.recentReflections(snapshots: s, sessions: sessions, now: now, calendar: cal)
        #expect(recent.map(\.weekIdentifier) == ["2026-W24", "2026-W23", "2026-W21"])  // W22 was empty; 4 weeks back reaches W21
    }
}
