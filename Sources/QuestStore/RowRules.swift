import Foundation
import GRDB
import QuestCore

/// What every stored value must be for the box to read it: the types the readers decode and
/// the range rules of the game (weekdays 1–7, finite durations, ratings, percentages …), as
/// SQL predicates. One list serves four places: `restore` refuses a file with any broken row,
/// `doctor` reports them, the daemon logs them at start, and every reader selects only the
/// rows that keep them — so a damaged row (an edited backup, a bit flip on an SD card) is
/// skipped and named, never decoded into a crash.
enum RowRules {
    struct Rule: Sendable {
        var column: String
        /// The predicate for columns qualified by a prefix ("" or "e."); never NULL: true for a
        /// good value, false otherwise.
        var check: @Sendable (String) -> String
        /// What a good value is, for the one-line message.
        var expected: String

        var valid: String { check("") }

        init(column: String, expected: String, check: @escaping @Sendable (String) -> String) {
            self.column = column
            self.expected = expected
            self.check = check
        }
    }

    // Bounds wide enough for any real play, narrow enough that arithmetic cannot overflow.
    static let maxSeconds = 7 * 86_400.0
    static let maxNameBytes = 1_024
    static let wallRange = (-1e10, 1e11)  // seconds since 1970: a Pi without RTC may start anywhere

    static func uuid(_ c: String) -> Rule {
        Rule(column: c, expected: "a 16-byte UUID") { p in "(typeof(\(p)\(c)) = 'blob' AND length(\(p)\(c)) = 16)" }
    }

    static func text(_ c: String, maxBytes: Int = maxNameBytes, nonEmpty: Bool = false) -> Rule {
        Rule(column: c, expected: "\(nonEmpty ? "non-empty " : "")text of at most \(maxBytes) bytes") { p in
            "(typeof(\(p)\(c)) = 'text' AND length(CAST(\(p)\(c) AS BLOB)) BETWEEN \(nonEmpty ? 1 : 0) AND \(maxBytes))"
        }
    }

    /// GAME-5: a task bridged over a reboot (a trusted wall clock) keeps its lock on this
    /// boot's monotonic clock, which can lie before the boot's zero: by up to a day (a task
    /// ends by GAME-4's 3 h limit). The family's month (#32) found such rows refused.
    static let lockNanos = int("lockMonotonicNanos", -86_400_000_000_000, Int64.max, "nanoseconds")

    /// #34: a broker's or push service's address, name, password or topic: text of at most
    /// `HomeLinkSettings.maximumBytes` bytes with no control characters.
    static func linkText(_ c: String) -> Rule {
        Rule(column: c, expected: "text of at most \(HomeLinkSettings.maximumBytes) bytes without control characters") { p in
            "(typeof(\(p)\(c)) = 'text' AND length(CAST(\(p)\(c) AS BLOB)) <= \(HomeLinkSettings.maximumBytes) AND \(p)\(c) NOT GLOB ('*[' || char(1) || '-' || char(31) || char(127) || ']*'))"
        }
    }

    static func int(_ c: String, _ low: Int64, _ high: Int64, _ what: String) -> Rule {
        Rule(column: c, expected: "\(what) \(low)–\(high)") { p in "(typeof(\(p)\(c)) = 'integer' AND \(p)\(c) BETWEEN \(low) AND \(high))" }
    }

    static func real(_ c: String, _ low: Double, _ high: Double, _ what: String) -> Rule {
        Rule(column: c, expected: "\(what) \(format(low))–\(format(high))") { p in
            "(typeof(\(p)\(c)) IN ('real', 'integer') AND \(p)\(c) BETWEEN \(low) AND \(high))"
        }
    }

    static func bool(_ c: String) -> Rule {
        Rule(column: c, expected: "0 or 1") { p in "(typeof(\(p)\(c)) = 'integer' AND \(p)\(c) IN (0, 1))" }
    }

    static func oneOf(_ c: String, _ values: [String]) -> Rule {
        let list = values.map { "'\($0)'" }.joined(separator: ", ")
        return Rule(column: c, expected: "one of \(values.joined(separator: ", "))") { p in "(typeof(\(p)\(c)) = 'text' AND \(p)\(c) IN (\(list)))" }
    }

    static func optional(_ rule: Rule) -> Rule {
        Rule(column: rule.column, expected: "empty or \(rule.expected)") { p in "(\(p)\(rule.column) IS NULL OR \(rule.check(p)))" }
    }

    static func wallTime(_ c: String) -> Rule { real(c, wallRange.0, wallRange.1, "seconds since 1970") }

    /// Whether a wall time can be stored and read back (the rule `wallTime` checks).
    static func isStorableWallTime(_ date: Date) -> Bool {
        let t = date.timeIntervalSince1970
        return t.isFinite && t >= wallRange.0 && t <= wallRange.1
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// "2,3,4,5,6": single weekday digits 1–7 separated by commas (or no day at all).
    static let activeDays = Rule(column: "activeDays", expected: "weekdays 1–7 separated by commas (1 = Sunday)") { p in
        let c = p + "activeDays"
        return """
            (typeof(\(c)) = 'text' AND length(\(c)) <= 13 AND \(c) NOT GLOB '*[^1-7,]*' AND \(c) NOT GLOB '*[1-7][1-7]*'
             AND \(c) NOT GLOB ',*' AND \(c) NOT GLOB '*,' AND \(c) NOT GLOB '*,,*')
            """
    }

    /// "HH:MM" that `ClockTime` reads.
    static func clockTime(_ c: String) -> String {
        "(typeof(\(c)) = 'text' AND length(\(c)) = 5 AND \(c) GLOB '[0-2][0-9]:[0-5][0-9]' AND \(c) < '24')"
    }

    static let ratings = ["spot_on", "close", "off", "way_off"]

    static let tables: [(name: String, rules: [Rule])] = [
        ("routine", [
            uuid("id"), text("name", nonEmpty: true), text("displayName"), activeDays, bool("isActive"),
            oneOf("createdBy", ["parent", "player"]), int("position", 0, 1_000_000, "a position"),
            Rule(column: "reminder", expected: "empty, off or a time HH:MM") { p in
                "(\(p)reminder IS NULL OR \(p)reminder = 'off' OR \(clockTime(p + "reminder")))"
            },
        ]),
        ("routineTask", [
            uuid("id"), uuid("routineId"), int("position", 0, 1_000_000, "a position"), text("name"), text("displayName"),
            optional(int("referenceDurationSeconds", 0, Int64(maxSeconds), "seconds")),
        ]),
        ("session", [
            uuid("id"), uuid("routineId"), text("routineDisplayName"), wallTime("startedAt"),
            int("startedMonotonicNanos", 0, Int64.max, "nanoseconds"), text("bootId", maxBytes: 64), bool("wallClockTrusted"),
            optional(wallTime("completedAt")), oneOf("status", ["in_progress", "completed", "abandoned", "paused"]), bool("isCalibration"),
            int("xpEarned", 0, 10_000_000, "XP"),
        ]),
        ("estimation", [
            uuid("id"), uuid("sessionId"), uuid("taskId"), text("taskDisplayName"), text("routineDisplayName"),
            int("orderIndex", 0, 1_000_000, "a task index"), real("estimatedSeconds", 0, maxSeconds, "seconds"),
            real("actualSeconds", 0, maxSeconds, "seconds"), real("differenceSeconds", -maxSeconds, maxSeconds, "seconds"),
            real("accuracyPercent", 0, 100, "a percentage"), oneOf("rating", ratings), int("xpEarned", 0, 1_000_000, "XP"),
            bool("isCalibration"), wallTime("recordedAt"), lockNanos,
            Rule(column: "stopMonotonicNanos", expected: "nanoseconds no earlier than lockMonotonicNanos") { p in
                "(typeof(\(p)stopMonotonicNanos) = 'integer' AND typeof(\(p)lockMonotonicNanos) = 'integer' AND \(p)stopMonotonicNanos >= \(p)lockMonotonicNanos)"
            },
            text("bootId", maxBytes: 64), bool("wallClockTrusted"),
        ]),
        ("inProgressTask", [
            uuid("sessionId"), int("taskIndex", 0, 1_000_000, "a task index"), uuid("taskId"),
            int("estimatedSeconds", 0, Int64(maxSeconds), "seconds"), lockNanos,
            text("bootId", maxBytes: 64), wallTime("lockedAt"), bool("lockedAtTrusted"),
        ]),
        ("settings", [
            optional(text("pinHash", maxBytes: 512)), int("pinFailedAttempts", 0, 1_000_000_000, "a count"),
            optional(wallTime("pinLockedUntil")),
            int("pinLockouts", 0, 1_000_000, "a count"), optional(int("pinLockedUntilMonotonic", 0, Int64.max, "nanoseconds")),
            optional(text("pinLockBootId", maxBytes: 64)),
            Rule(column: "reminderTime", expected: "a time HH:MM") { p in clockTime(p + "reminderTime") },
            bool("remindersEnabled"), oneOf("streakPolicy", ["pause", "joker"]), bool("soundEnabled"),
            int("volumePercent", 0, 100, "a volume"), bool("hintsEnabled"), optional(int("firstWeekday", Int64(WeekdayNumber.all.lowerBound), Int64(WeekdayNumber.all.upperBound), "a weekday")),
            bool("estimateReadBack"),
            optional(int("stopGuardSeconds", Int64(GameSettings.stopGuardRange.lowerBound), Int64(GameSettings.stopGuardRange.upperBound), "seconds")),
            optional(text("webHosts", maxBytes: WebHosts.maximumStoredBytes)),
            Rule(column: "boardName", expected: "empty or a board profile's name (a–z, 0–9, - and _)") { p in
                "(\(p)boardName IS NULL OR (typeof(\(p)boardName) = 'text' AND length(\(p)boardName) BETWEEN 1 AND \(StoredSettings.maximumBoardNameBytes) AND \(p)boardName NOT GLOB '*[^a-z0-9_-]*'))"
            },
            bool("lockSoundMute"), bool("lockHints"), bool("lockReminders"), bool("playerPagesPaired"), bool("firstQuestIntro"),
            optional(linkText("mqttURL")), optional(linkText("mqttUsername")), optional(linkText("mqttPassword")), optional(linkText("mqttTopic")),
            optional(linkText("mqttDiscovery")), optional(linkText("notifyURL")), optional(linkText("notifyParentURL")), linkText("notifyOn"),
            oneOf("mqttProtocol", HomeLinkSettings.mqttProtocols),
            oneOf("voiceMode", VoiceChoice.Mode.allCases.map(\.rawValue)),
            Rule(column: "voiceLanguage", expected: "empty or an eSpeak NG voice name (a–z, A–Z, 0–9, -, _ and +)") { p in
                "(\(p)voiceLanguage IS NULL OR (typeof(\(p)voiceLanguage) = 'text' AND length(\(p)voiceLanguage) BETWEEN 1 AND 32 AND \(p)voiceLanguage NOT GLOB '*[^a-zA-Z0-9_+-]*'))"
            },
            int("voiceRate", Int64(VoiceChoice.rateRange.lowerBound), Int64(VoiceChoice.rateRange.upperBound), "words per minute"),
            int("voiceVolume", Int64(VoiceChoice.volumeRange.lowerBound), Int64(VoiceChoice.volumeRange.upperBound), "%"),
        ]),
        ("linkStatus", [optional(text("mqtt", maxBytes: 512)), optional(wallTime("mqttAt")), optional(text("pushProblem", maxBytes: 512)), optional(wallTime("pushProblemAt")),
                         optional(wallTime("backupReminderAt"))]),
        ("boxStart", [
            oneOf("state", BoxStartRecord.State.allCases.map(\.rawValue)), optional(text("board", maxBytes: BoxStartRecord.maximumBoardBytes)),
            optional(text("reason", maxBytes: BoxStartRecord.maximumReasonBytes)), wallTime("at"),
        ]),
        ("pinReset", [
            oneOf("state", PINReset.State.allCases.map(\.rawValue)), wallTime("askedAt"), text("fromAddress", maxBytes: PINReset.maximumFromBytes),
            optional(text("pinHash", maxBytes: 512, nonEmpty: true)), int("askedMonotonic", Int64.min, Int64.max, "nanoseconds"),
            text("askedBootId", maxBytes: 64), optional(wallTime("settledAt")), optional(wallTime("pushedAt")), optional(wallTime("shownAt")),
        ]),
        ("offCardCopy", [
            text("label", maxBytes: 256, nonEmpty: true), wallTime("lastUsedAt"), optional(text("fileName", maxBytes: 256, nonEmpty: true)),
            optional(int("sizeBytes", 0, Int64.max, "bytes")), optional(wallTime("copiedAt")), optional(text("problem", maxBytes: 512)),
            optional(wallTime("problemAt")),
        ]),
        ("houseBox", [
            text("boxId", maxBytes: 64, nonEmpty: true), text("name", maxBytes: 128, nonEmpty: true), text("state", maxBytes: 32, nonEmpty: true),
            optional(text("web", maxBytes: 256)), wallTime("seenAt"),
        ]),
        ("boxIdentity", [Rule(column: "boxId", expected: "10 hex digits") { p in
            "(typeof(\(p)boxId) = 'text' AND length(\(p)boxId) = 10 AND \(p)boxId NOT GLOB '*[^0-9a-f]*')"
        }]),
        ("reminderLog", [uuid("routineId"), wallTime("soundedAt")]),
        ("streakPolicyChange", [wallTime("changedAt"), oneOf("fromPolicy", ["pause", "joker"]), oneOf("toPolicy", ["pause", "joker"])]),
        ("reflectionTracking", [optional(text("lastShownWeek", maxBytes: 16)), optional(text("dismissedWeek", maxBytes: 16))]),
        ("backupLog", [wallTime("createdAt"), text("fileName"), int("sizeBytes", 0, Int64.max, "bytes"), text("kind", maxBytes: 32)]),
        ("pairedKiosk", [text("name", maxBytes: 200, nonEmpty: true), text("tokenHash", maxBytes: 64, nonEmpty: true), wallTime("pairedAt"), bool("canPress")]),
    ]

    /// The rows of `table` that keep the rules, as a WHERE condition: every rule, or only
    /// those of the columns a query decodes (cheaper on years of history), with the columns
    /// qualified by `prefix` ("e.") for joins.
    static func valid(_ table: String, prefix: String = "", columns: Set<String>? = nil) -> String {
        guard let rules = tables.first(where: { $0.name == table })?.rules else { return "1" }
        let chosen = rules.filter { columns?.contains($0.column) ?? true }
        return chosen.isEmpty ? "1" : chosen.map { $0.check(prefix) }.joined(separator: " AND ")
    }

    /// A column's value as SQL text, at most 40 characters, in the same words whatever the
    /// SQLite: quote() wrote an infinite REAL as Inf up to 3.42 (bookworm) and as 9.0e+999 from
    /// 3.43 (trixie).
    static func quoted(_ column: String) -> String {
        "CASE WHEN typeof(\(column)) = 'real' AND \(column) > 1.7976931348623157e308 THEN 'Inf'"
            + " WHEN typeof(\(column)) = 'real' AND \(column) < -1.7976931348623157e308 THEN '-Inf'"
            + " ELSE substr(quote(\(column)), 1, 40) END"
    }

    /// One line per broken value ("estimation row 12: actualSeconds is NULL, expected …"),
    /// at most `limit` lines, plus how many broken values there are in all.
    static func problems(_ db: Database, limit: Int = 20) throws -> (lines: [String], total: Int) {
        var lines: [String] = [], total = 0
        for (table, allRules) in tables where try db.tableExists(table) {
            // A backup of an older schema has fewer columns (its schema was compared with that
            // version's): check the columns it has.
            let columns = Set(try db.columns(in: table).map(\.name))
            let rules = allRules.filter { columns.contains($0.column) }
            guard !rules.isEmpty else { continue }
            let all = rules.map(\.valid).joined(separator: " AND ")
            // One scan per table when all is well (the daemon checks at every start).
            guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE NOT coalesce(\(all), 0)") ?? 0 > 0 else { continue }
            for rule in rules {
                let bad = "NOT coalesce(\(rule.valid), 0)"
                let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE \(bad)") ?? 0
                guard count > 0 else { continue }
                total += count
                for row in try Row.fetchAll(
                    db, sql: "SELECT rowid, \(quoted(rule.column)) FROM \(table) WHERE \(bad) LIMIT ?",
                    arguments: [max(0, limit - lines.count)])
                {
                    let rowid: Int64 = row[0]
                    let value: String = row[1] ?? "?"
                    lines.append("\(table) row \(rowid): \(rule.column) is \(value), expected \(rule.expected)")
                }
            }
        }
        // Rows that point at a row that is not there (a session, a routine).
        let dangling = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
        total += dangling.count
        for row in dangling.prefix(max(0, limit - lines.count)) {
            let table: String = row[0], rowid: Int64? = row[1], parent: String = row[2]
            lines.append("\(table) row \(rowid.map(String.init) ?? "?"): refers to a \(parent) that does not exist")
        }
        return (lines, total)
    }
}

/// What a database holds beyond its integrity and identity: whether its schema is exactly the
/// one this version's migrations make, and which rows break `RowRules`.
public struct ContentReport: Equatable, Sendable {
    /// One line per difference ("extra table foo", "missing trigger estimation_no_delete").
    public var schema: [String]
    /// One line per broken value or dangling row (at most the limit asked for).
    public var rows: [String]
    /// How many broken values and dangling rows there are in all.
    public var rowTotal: Int

    public var isClean: Bool { schema.isEmpty && rowTotal == 0 }
}

extension QuestDatabase {
    /// The live database's content report (`doctor`). The schema comparison opens an
    /// in-memory reference database: the daemon, which must never drop a GRDB connection
    /// (its dispatch queue would start libdispatch's 1 Hz monitor), uses `unreadableRows`.
    public func contentReport(limit: Int = 20) throws -> ContentReport {
        try pool.read { db in try Self.contentReport(db, limit: limit) }
    }

    /// The rows that break `RowRules` (skipped by every reader): lines and the total count.
    /// `onWriter`: read on the writer's connection, so a process with one reader (the
    /// daemon's small footprint) can load its world on the reader meanwhile.
    public func unreadableRows(limit: Int = 20, onWriter: Bool = false) throws -> (lines: [String], total: Int) {
        if onWriter, let pool = pool as? DatabasePool {
            return try pool.writeWithoutTransaction { db in try RowRules.problems(db, limit: limit) }
        }
        return try pool.read { db in try RowRules.problems(db, limit: limit) }
    }

    static func contentReport(_ db: Database, limit: Int = 20) throws -> ContentReport {
        let rows = try RowRules.problems(db, limit: limit)
        return ContentReport(schema: try schemaDifferences(db), rows: rows.lines, rowTotal: rows.total)
    }

    /// Compares tables, columns, indexes and triggers with a fresh database that went through
    /// the same migrations (a backup of an older version is compared with that version's schema).
    static func schemaDifferences(_ db: Database) throws -> [String] {
        let applied = try db.tableExists("grdb_migrations")
            ? try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") : []
        let known = Schema.migrations.map(\.identifier)
        // Applied migrations must be this version's first ones, each once.
        let order = applied.map { known.firstIndex(of: $0) ?? Int.max }.sorted()
        guard order == Array(0..<applied.count) else {
            return ["migrations \(applied.joined(separator: ", ")) are not this version's sequence (\(known.joined(separator: ", ")))"]
        }
        let reference = try DatabaseQueue()
        if !applied.isEmpty { try Schema.migrator().migrate(reference, upTo: known[applied.count - 1]) }
        func entries(_ db: Database) throws -> [String: (type: String, sql: String)] {
            var result: [String: (type: String, sql: String)] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master") {
                let sql: String = row[2] ?? ""
                result[row[1]] = (row[0], sql.split(whereSeparator: \.isWhitespace).joined(separator: " "))
            }
            return result
        }
        let expected = try reference.read(entries)
        let found = try entries(db)
        var differences: [String] = []
        for (name, f) in found.sorted(by: { $0.key < $1.key }) {
            if let e = expected[name] {
                if e.type != f.type || e.sql != f.sql { differences.append("\(e.type) \(name) differs from this version's") }
            } else {
                differences.append("extra \(f.type) \(name)")
            }
        }
        for (name, e) in expected.sorted(by: { $0.key < $1.key }) where found[name] == nil {
            differences.append("missing \(e.type) \(name)")
        }
        return differences
    }
}
