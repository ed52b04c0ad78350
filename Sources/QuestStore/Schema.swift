import Foundation
import GRDB

/// The database's shape, one migration per change. A migration is never edited after it
/// lands: a change is a new migration appended to `migrations`.
///
/// Conventions: wall times are UTC seconds since 1970 as REAL (calendar facts only);
/// monotonic times are CLOCK_MONOTONIC nanoseconds as INTEGER with the boot id beside them;
/// ids are UUIDs stored as 16-byte BLOBs.
public enum Schema {
    /// PRAGMA application_id: "TQBX". Tells a TimeQuest database from any other SQLite file.
    public static let applicationID: Int32 = 0x5451_4258

    /// The schema number is the count of migrations (also PRAGMA user_version).
    public static var currentVersion: Int { migrations.count }

    static let migrations: [(identifier: String, migrate: @Sendable (Database) throws -> Void)] = [
        ("v1-initial", v1),
        ("v2-estimation-task-index", v2),
        ("v3-derived-profile", v3),
        ("v4-pin-lockout-escalation", v4),
        ("v5-live-settings", v5),
        ("v6-web-hosts", v6),
        ("v7-streak-policy-changes", v7),
        ("v8-board-choice", v8),
        ("v9-player-switch-locks", v9),
        ("v10-paired-kiosks", v10),
        ("v11-player-pages", v11),
        ("v12-home-link", v12),
        ("v13-mqtt-protocol", v13),
        ("v14-voice", v14),
        ("v15-private-player-pages", v15),
        ("v16-first-quest-intro", v16),
        ("v17-box-start", v17),
        ("v18-pin-reset-wait", v18),
        ("v19-off-card-copies", v19),
    ]

    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (number, migration) in migrations.enumerated() {
            migrator.registerMigration(migration.identifier) { db in
                try migration.migrate(db)
                try db.execute(sql: "PRAGMA user_version = \(number + 1)")
            }
        }
        return migrator
    }

    /// #34: the box in the house: an MQTT broker (Home Assistant), pushes to phones, and the
    /// box's own id (random, made once; a restored backup brings its box's id with it).
    static func v12(_ db: Database) throws {
        try db.alter(table: "settings") { t in
            t.add(column: "mqttURL", .text)
            t.add(column: "mqttUsername", .text)
            t.add(column: "mqttPassword", .text)
            t.add(column: "mqttTopic", .text)
            t.add(column: "mqttDiscovery", .text).defaults(to: "homeassistant")
            t.add(column: "notifyURL", .text)
            t.add(column: "notifyParentURL", .text)
            t.add(column: "notifyOn", .text).notNull().defaults(to: "reminder")
        }
        try db.create(table: "boxIdentity") { t in
            t.column("id", .integer).primaryKey(onConflict: .replace).check { $0 == 1 }
            t.column("boxId", .text).notNull()
        }
        try db.execute(sql: "INSERT INTO boxIdentity (id, boxId) VALUES (1, lower(hex(randomblob(5))))")
        // What `questbox link` last saw of the broker and the pushes (the parent's health page).
        try db.create(table: "linkStatus") { t in
            t.column("id", .integer).primaryKey(onConflict: .replace).check { $0 == 1 }
            t.column("mqtt", .text)
            t.column("mqttAt", .double)
            t.column("pushProblem", .text)
            t.column("pushProblemAt", .double)
        }
        // The other boxes the link hears on the same broker (the parent's page lists them).
        try db.create(table: "houseBox") { t in
            t.column("boxId", .text).primaryKey()
            t.column("name", .text).notNull()
            t.column("state", .text).notNull()
            t.column("web", .text)
            t.column("seenAt", .double).notNull()
        }
    }

    /// #33: the player's pages for the family's paired browsers only (`web.player-pages`), and
    /// a paired browser that only shows them (a phone) beside one that presses (a kiosk).
    static func v11(_ db: Database) throws {
        try db.alter(table: "settings") { t in
            t.add(column: "playerPagesPaired", .integer).notNull().defaults(to: 0)
        }
        try db.alter(table: "pairedKiosk") { t in
            t.add(column: "canPress", .integer).notNull().defaults(to: 1)
        }
    }

    /// #33: the browsers a parent paired as touch kiosks (the box's buttons on a screen), each
    /// by the SHA-256 of the token its browser keeps.
    static func v10(_ db: Database) throws {
        try db.create(table: "pairedKiosk") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull()
            t.column("tokenHash", .text).notNull().unique()
            t.column("pairedAt", .double).notNull()
        }
    }

    /// #32: the player's own switches (sound, hints, reminders) that a parent has locked.
    static func v9(_ db: Database) throws {
        try db.alter(table: "settings") { t in
            t.add(column: "lockSoundMute", .integer).notNull().defaults(to: 0)
            t.add(column: "lockHints", .integer).notNull().defaults(to: 0)
            t.add(column: "lockReminders", .integer).notNull().defaults(to: 0)
        }
    }

    /// #32: the board chosen on the web's first run (NULL: none yet), so a fresh install is
    /// set up from a phone; the box waiting for a board picks it up.
    static func v8(_ db: Database) throws {
        try db.alter(table: "settings") { t in
            t.add(column: "boardName", .text)
        }
    }

    /// STREAK-3 (#32): every switch of the streak policy, so each policy judges only the days
    /// it was in force and a switch never lowers the streak already shown.
    static func v7(_ db: Database) throws {
        try db.create(table: "streakPolicyChange") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("changedAt", .double).notNull()
            t.column("fromPolicy", .text).notNull()
            t.column("toPolicy", .text).notNull()
        }
    }

    /// #31: the names the web app answers to besides the box's own (`web.hosts`), space-
    /// separated; NULL: none (DNS rebinding is refused by the Host check).
    static func v6(_ db: Database) throws {
        try db.alter(table: "settings") { t in
            t.add(column: "webHosts", .text)
        }
    }

    /// Every setting the box offers is stored: the estimate read-back (§2) and GAME-4's stop
    /// guard (NULL: the default), and each routine's reminder (REM-1; NULL: at the box's
    /// reminder time, 'off', or its own 'HH:MM').
    static func v5(_ db: Database) throws {
        try db.alter(table: "settings") { t in
            t.add(column: "estimateReadBack", .boolean).notNull().defaults(to: false)
            t.add(column: "stopGuardSeconds", .integer)
        }
        try db.alter(table: "routine") { t in
            t.add(column: "reminder", .text)
        }
        // REM-1: one row per reminder sounded, so a restart never sounds one twice a day.
        try db.create(table: "reminderLog") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("routineId", .blob).notNull()
            t.column("soundedAt", .double).notNull()
        }
        try db.create(index: "reminderLog_routine_time", on: "reminderLog", columns: ["routineId", "soundedAt"])
    }

    /// PAR-1: lockouts that escalate (a 4-digit PIN must not fall to a week of patient
    /// guessing), timed on CLOCK_MONOTONIC within a boot (a Pi without RTC jumps its wall
    /// clock) and re-armed in full after a reboot.
    static func v4(_ db: Database) throws {
        try db.alter(table: "settings") { t in
            t.add(column: "pinLockouts", .integer).notNull().defaults(to: 0)
            t.add(column: "pinLockedUntilMonotonic", .integer)
            t.add(column: "pinLockBootId", .text)
        }
    }

    /// The profile row held totals written back from a writer's memory, so two writers lost
    /// each other's plays. Totals are now derived from the history (`profile()`); the row goes,
    /// so no stale copy is left to disagree.
    static func v3(_ db: Database) throws {
        try db.drop(table: "playerProfile")
    }

    /// Per-task history in time order without a sort (the daemon's start-up, INS-1, HINT-1).
    static func v2(_ db: Database) throws {
        try db.create(index: "estimation_task_time", on: "estimation", columns: ["taskId", "recordedAt"])
    }

    static func v1(_ db: Database) throws {
        try db.execute(sql: "PRAGMA application_id = \(applicationID)")

        try db.create(table: "routine") { t in
            t.primaryKey("id", .blob)
            t.column("name", .text).notNull().unique()
            t.column("displayName", .text).notNull()
            t.column("activeDays", .text).notNull()  // "2,3,4,5,6": 1 = Sunday … 7 = Saturday
            t.column("isActive", .boolean).notNull()
            t.column("createdBy", .text).notNull()
            t.column("position", .integer).notNull()
        }
        try db.create(table: "routineTask") { t in
            t.primaryKey("id", .blob)
            t.column("routineId", .blob).notNull().references("routine", onDelete: .cascade)
            t.column("position", .integer).notNull()
            t.column("name", .text).notNull()
            t.column("displayName", .text).notNull()
            t.column("referenceDurationSeconds", .integer)
            t.uniqueKey(["routineId", "position"])
        }
        // History keeps the names it was played under, so removing a routine loses no play.
        try db.create(table: "session") { t in
            t.primaryKey("id", .blob)
            t.column("routineId", .blob).notNull()
            t.column("routineDisplayName", .text).notNull()
            t.column("startedAt", .double).notNull()
            t.column("startedMonotonicNanos", .integer).notNull()
            t.column("bootId", .text).notNull()
            t.column("wallClockTrusted", .boolean).notNull()
            t.column("completedAt", .double)
            t.column("status", .text).notNull()
            t.column("isCalibration", .boolean).notNull()
            t.column("xpEarned", .integer).notNull()
        }
        try db.create(index: "session_completedAt", on: "session", columns: ["completedAt"])
        try db.create(table: "estimation") { t in
            t.primaryKey("id", .blob)
            t.column("sessionId", .blob).notNull().references("session")
            t.column("taskId", .blob).notNull()
            t.column("taskDisplayName", .text).notNull()
            t.column("routineDisplayName", .text).notNull()
            t.column("orderIndex", .integer).notNull()
            t.column("estimatedSeconds", .double).notNull()
            t.column("actualSeconds", .double).notNull()
            t.column("differenceSeconds", .double).notNull()
            t.column("accuracyPercent", .double).notNull()
            t.column("rating", .text).notNull()
            t.column("xpEarned", .integer).notNull()
            t.column("isCalibration", .boolean).notNull()
            t.column("recordedAt", .double).notNull()
            t.column("lockMonotonicNanos", .integer).notNull()
            t.column("stopMonotonicNanos", .integer).notNull()
            t.column("bootId", .text).notNull()
            t.column("wallClockTrusted", .boolean).notNull()
        }
        try db.create(index: "estimation_recordedAt", on: "estimation", columns: ["recordedAt"])
        try db.create(index: "estimation_sessionId", on: "estimation", columns: ["sessionId"])
        // Append-only: no delete, no change to what was measured; only a wall time taken
        // before the clock was trusted may be corrected, once.
        try db.execute(sql: """
            CREATE TRIGGER estimation_no_delete BEFORE DELETE ON estimation
            BEGIN SELECT RAISE(ABORT, 'estimations are append-only'); END;
            CREATE TRIGGER estimation_no_change BEFORE UPDATE OF id, sessionId, taskId, taskDisplayName,
                routineDisplayName, orderIndex, estimatedSeconds, actualSeconds, differenceSeconds, accuracyPercent,
                rating, xpEarned, isCalibration, lockMonotonicNanos, stopMonotonicNanos, bootId ON estimation
            BEGIN SELECT RAISE(ABORT, 'estimations are append-only'); END;
            CREATE TRIGGER estimation_trusted_time_final BEFORE UPDATE OF recordedAt, wallClockTrusted ON estimation
            WHEN OLD.wallClockTrusted
            BEGIN SELECT RAISE(ABORT, 'a trusted wall time is final'); END;
            """)

        try db.create(table: "playerProfile") { t in
            t.primaryKey("id", .integer).check { $0 == 1 }
            t.column("totalXP", .integer).notNull()
            t.column("currentStreak", .integer).notNull()
            t.column("lastPlayedDate", .double)
            t.column("sessionsCompleted", .integer).notNull()
        }
        try db.create(table: "settings") { t in
            t.primaryKey("id", .integer).check { $0 == 1 }
            t.column("pinHash", .text)
            t.column("pinFailedAttempts", .integer).notNull().defaults(to: 0)
            t.column("pinLockedUntil", .double)
            t.column("reminderTime", .text).notNull().defaults(to: "07:30")
            t.column("remindersEnabled", .boolean).notNull().defaults(to: true)
            t.column("streakPolicy", .text).notNull().defaults(to: "pause")
            t.column("soundEnabled", .boolean).notNull().defaults(to: true)
            t.column("volumePercent", .integer).notNull().defaults(to: 80)
            t.column("hintsEnabled", .boolean).notNull().defaults(to: true)
            t.column("firstWeekday", .integer)  // NULL: the locale's
        }
        try db.create(table: "reflectionTracking") { t in
            t.primaryKey("id", .integer).check { $0 == 1 }
            t.column("lastShownWeek", .text)
            t.column("dismissedWeek", .text)
        }
        // GAME-5: at most one task is being timed.
        try db.create(table: "inProgressTask") { t in
            t.primaryKey("id", .integer).check { $0 == 1 }
            t.column("sessionId", .blob).notNull()
            t.column("taskIndex", .integer).notNull()
            t.column("taskId", .blob).notNull()
            t.column("estimatedSeconds", .integer).notNull()
            t.column("lockMonotonicNanos", .integer).notNull()
            t.column("bootId", .text).notNull()
            t.column("lockedAt", .double).notNull()
            t.column("lockedAtTrusted", .boolean).notNull()
        }
        try db.create(table: "backupLog") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("createdAt", .double).notNull()
            t.column("fileName", .text).notNull()
            t.column("sizeBytes", .integer).notNull()
            t.column("kind", .text).notNull()  // automatic, manual, before-restore
        }
    }

    /// PRIV-1 (#48): her pages are private by default. A box never used (no routine, no
    /// play, no PIN: a fresh install) gets `web.player-pages paired`; a box in use keeps what
    /// it had, now written down rather than resting on a default. And her reminders switch
    /// can no longer be locked.
    static func v15(_ db: Database) throws {
        let used = try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM routine) OR EXISTS (SELECT 1 FROM session)
                OR EXISTS (SELECT 1 FROM settings WHERE pinHash IS NOT NULL)
            """) ?? true
        try db.execute(sql: "INSERT INTO settings (id) VALUES (1) ON CONFLICT(id) DO NOTHING")
        if !used { try db.execute(sql: "UPDATE settings SET playerPagesPaired = 1 WHERE id = 1") }
        // Seed 004 (#48): her reminders switch is hers; a parent's lock on it is lifted.
        try db.execute(sql: "UPDATE settings SET lockReminders = 0 WHERE id = 1")
    }

    /// PAR-2 (#47): a PIN asked for over an existing one waits 24 hours (monotonic within a
    /// boot, with its boot id), its asker's address and whether the parent was told.
    static func v18(_ db: Database) throws {
        try db.create(table: "pinReset") { t in
            t.column("id", .integer).primaryKey(onConflict: .replace).check { $0 == 1 }
            t.column("state", .text).notNull()
            t.column("askedAt", .double).notNull()
            t.column("fromAddress", .text).notNull()
            t.column("pinHash", .text)
            t.column("askedMonotonic", .integer).notNull()
            t.column("askedBootId", .text).notNull()
            t.column("settledAt", .double)
            t.column("pushedAt", .double)
            t.column("shownAt", .double)
        }
    }

    /// BACK-1, off the card: each stick's last copy, or why its last try failed; when the
    /// parent was last reminded to take a backup off the box.
    static func v19(_ db: Database) throws {
        try db.alter(table: "linkStatus") { t in t.add(column: "backupReminderAt", .double) }
        try db.create(table: "offCardCopy") { t in
            t.column("label", .text).primaryKey()
            t.column("lastUsedAt", .double).notNull()
            t.column("fileName", .text)
            t.column("sizeBytes", .integer)
            t.column("copiedAt", .double)
            t.column("problem", .text)
            t.column("problemAt", .double)
        }
    }

    /// #48: what the box said of its start (waiting, starting, running, failed and why,
    /// stopped), for the pages when its socket does not answer.
    static func v17(_ db: Database) throws {
        try db.create(table: "boxStart") { t in
            t.column("id", .integer).primaryKey(onConflict: .replace).check { $0 == 1 }
            t.column("state", .text).notNull()
            t.column("board", .text)
            t.column("reason", .text)
            t.column("at", .double).notNull()
        }
    }

    /// GAME-9 (#48): the first quest explains itself (`intro`), on unless a parent turns it
    /// off; a box with quests played never shows it anyway.
    static func v16(_ db: Database) throws {
        try db.alter(table: "settings") { t in
            t.add(column: "firstQuestIntro", .integer).notNull().defaults(to: 1)
        }
    }

    /// #34: the MQTT protocol the link speaks (3.1.1, which every broker takes, or 5), and
    /// the sessions by their start (the link reads today's after every press).
    static func v13(_ db: Database) throws {
        try db.alter(table: "settings") { t in
            t.add(column: "mqttProtocol", .text).notNull().defaults(to: "3.1.1")
        }
        try db.create(index: "session_startedAt", on: "session", columns: ["startedAt"])
    }

    /// #35: the box's voice: whether it speaks (auto: when the board has no screen), its
    /// eSpeak NG voice (NULL: from the locale), words per minute, loudness beside the sounds.
    static func v14(_ db: Database) throws {
        try db.alter(table: "settings") { t in
            t.add(column: "voiceMode", .text).notNull().defaults(to: "auto")
            t.add(column: "voiceLanguage", .text)
            t.add(column: "voiceRate", .integer).notNull().defaults(to: 150)
            t.add(column: "voiceVolume", .integer).notNull().defaults(to: 100)
        }
    }
}
