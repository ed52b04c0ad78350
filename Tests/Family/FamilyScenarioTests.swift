import Foundation
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
}
