import Foundation
import QuestCore
import Testing

/// #32: a family's weeks lived through the box's daemon on a fake clock, one scenario file
/// each (`Scenarios/*.family`); after every day the invariants hold, and a day report is
/// written (its path printed) to read what the family lived.
@Suite("A family's month (Tests/Family)", .serialized)
struct FamilyScenarioTests {
    static let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let boards = here.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Boards").path
    static let scenarios: [String] = {
        let dir = here.appendingPathComponent("Scenarios").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".family") }.sorted()
    }()

    @Test("every scenario lives its weeks with every invariant kept each day", arguments: scenarios)
    func scenario(_ file: String) throws {
        let text = try String(contentsOf: Self.here.appendingPathComponent("Scenarios/\(file)"), encoding: .utf8)
        let scenario = try FamilyScenario.parse(text, name: String(file.dropLast(".family".count)))
        let started = ContinuousClock.now
        let runner = try FamilyRunner(scenario: scenario, boards: Self.boards)
        let failures = try runner.liveAll()
        let took = ContinuousClock.now - started
        let reportPath = NSTemporaryDirectory() + "family-\(scenario.name).txt"
        try (runner.report.joined(separator: "\n") + "\n").write(toFile: reportPath, atomically: true, encoding: .utf8)
        print("family \(scenario.name): \(runner.daysChecked) days in \(took), \(runner.boots) boots, \(runner.reflectionsSeen) weekly cards, \(runner.introsSeen) intros; report \(reportPath)")
        #expect(runner.daysChecked >= 7, "the scenario lived no week")
        for failure in failures.prefix(20) { Issue.record(Comment(rawValue: failure)) }
        #expect(failures.isEmpty, "\(failures.count) invariant failures; the report: \(reportPath)")
    }

    /// Three school days played as always, `mutation` on the third at 09:00: the failures.
    static func mutated(_ mutation: String) throws -> [String] {
        let text = """
            zone Europe/Berlin
            routine "Morning Quest" days all reminder 07:30 tasks "Get Dressed" "Tooth Time"
            boot 2026-06-01 06:00
            ordinary "Morning Quest" at 07:40 from 2026-06-01 until 2026-06-04
            2026-06-03 09:00 \(mutation)
            end 2026-06-04
            """
        let failures = try FamilyRunner(scenario: try FamilyScenario.parse(text, name: "teeth"), boards: Self.boards).liveAll()
        #expect(failures.allSatisfy { !$0.hasPrefix("teeth: 2026-06-01") && !$0.hasPrefix("teeth: 2026-06-02") }, "the days before were right: \(failures)")
        return failures
    }

    @Test("the checks have teeth: a total written from memory fails on its day, and the failure names the day and the line")
    func teeth() throws {
        let failures = try Self.mutated("tamper-xp")
        #expect(failures.first?.hasPrefix("teeth: 2026-06-03 Wed after line 5 `2026-06-03 09:00 tamper-xp`: totals:") == true, "\(failures)")
    }

    @Test("#48: the streak check has teeth: the streak the box drew, no longer the history's, fails on its day with both streaks named")
    func streakTeeth() throws {
        let failures = try Self.mutated("tamper-streak")
        #expect(failures.contains { $0.hasPrefix("teeth: 2026-06-03 Wed") && $0.contains("streak: the box's screen said \"Streak: 13 days\", the history \"Streak: 3 days\"") }, "\(failures)")
    }

    @Test("#48: REM-1's check has teeth: a second reminder of a routine on one day fails on its day")
    func reminderTeeth() throws {
        let failures = try Self.mutated("tamper-reminder")
        #expect(failures.contains { $0.hasPrefix("teeth: 2026-06-03 Wed") && $0.contains("REM-1: Morning Quest's reminder sounded 2 times") }, "\(failures)")
    }

    @Test("#48: GAME-2's check has teeth: a running task's screen with a time beside the guess fails on its day")
    func screenTeeth() throws {
        let failures = try Self.mutated("tamper-screen")
        #expect(failures.contains { $0.hasPrefix("teeth: 2026-06-03 Wed") && $0.contains("GAME-2: the running task's screen shows a time that is not the guess: \"0:42 so far\"") }, "\(failures)")
    }

    @Test("#48: REFL-1's check has teeth: a weekly card with a quest more than the history fails on its day")
    func cardTeeth() throws {
        let failures = try Self.mutated("tamper-card")
        #expect(failures.contains { $0.hasPrefix("teeth: 2026-06-03 Wed") && $0.contains("REFL-1: the card for") && $0.contains("says 4 quests") && $0.contains("the history has 3") }, "\(failures)")
    }

    @Test("#48: the nothing-stuck check has teeth: a quest left open in the store fails on its day")
    func stuckTeeth() throws {
        let failures = try Self.mutated("tamper-stuck")
        #expect(failures.contains { $0.hasPrefix("teeth: 2026-06-03 Wed") && $0.contains("stuck: 1 quest(s) still open in the store") }, "\(failures)")
    }

    @Test("a scenario file with a wrong line is refused with its file and line")
    func parseErrors() {
        #expect(throws: FamilyScenario.ParseError.self) { try FamilyScenario.parse("zone Europe/Berlin\nboot 2026-06-01\nend 2026-06-02", name: "bad") }
        do {
            _ = try FamilyScenario.parse("zone Europe/Berlin\n2026-06-01 07:00 dance\nend 2026-06-02", name: "bad")
            Issue.record("an unknown action was taken")
        } catch {
            #expect("\(error)" == "bad:2: unknown action: 2026-06-01 07:00 dance")
        }
    }

    @Test("#48: the family test's own STREAK-2 reading: the day-7 joker heals a missed 7th day; a short quest is no good day; pause resumes; a switch keeps the streak")
    func streakByTheRules() throws {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let day1 = try #require(cal.date(from: DateComponents(year: 2027, month: 3, day: 1, hour: 19)))
        func on(_ n: Int, minutes: Double = 5) -> QuestPlay {
            QuestPlay(completedAt: cal.date(byAdding: .day, value: n - 1, to: day1) ?? day1, measuredTaskSeconds: minutes * 60)
        }
        func today(_ n: Int) -> Date { cal.date(byAdding: .day, value: n - 1, to: day1) ?? day1 }
        let sixThenEight = [on(1), on(2), on(3), on(4), on(5), on(6), on(8)]
        let joker = StreakPolicyChange(at: day1.addingTimeInterval(-86_400 * 30), from: .pause, to: .joker)
        #expect(FamilyRunner.streakByTheRules(plays: sixThenEight, changes: [joker], today: today(9), calendar: cal) == 8, "day 7 healed by the joker earned on it")
        #expect(FamilyRunner.streakByTheRules(plays: sixThenEight, changes: [], today: today(9), calendar: cal) == 6, "pause: resumes at its value")
        let short = [on(1), on(2), on(3, minutes: 1.4), on(4)]
        #expect(FamilyRunner.streakByTheRules(plays: short, changes: [joker], today: today(5), calendar: cal) == 1, "1.4 minutes is no good day, and no joker yet")
        #expect(FamilyRunner.streakByTheRules(plays: short, changes: [], today: today(5), calendar: cal) == 4, "pause counts a day played")
        let toPause = StreakPolicyChange(at: today(3), from: .joker, to: .pause)
        #expect(FamilyRunner.streakByTheRules(plays: [on(1), on(2), on(4), on(5)], changes: [joker, toPause], today: today(6), calendar: cal) == 3,
                "joker until the switch on day 3 (2), then pause: day 4 after a gap stays, day 5 +1")
    }
}
