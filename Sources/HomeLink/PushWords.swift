import QuestCore

/// #34: what a phone is told, in the box's kind words (seed 004: curiosity, never blame), and to
/// whom. Routine-level facts only (seed 003): never a guess, a duration, a pattern or the
/// weekly reflection.
public struct PushMessage: Equatable, Sendable {
    /// `notify.on`'s word for it.
    public var kind: String
    public var title: String
    public var body: String
    /// ntfy's emoji tags.
    public var tags: String
    /// For the parent (`notify.parent-url`), else for the player (`notify.url`).
    public var forParent: Bool

    /// The push for a happening, or nil for one that is never pushed.
    public static func of(_ happening: BoxHappening, reminderAt: String? = nil) -> PushMessage? {
        switch happening {
        case .reminder(let quest):
            PushMessage(kind: "reminder", title: "Time for \(quest)", body: "\(quest) is waiting on the box. Ready for a guess?", tags: "hourglass_flowing_sand", forParent: false)
        case .reminderMissed(let quest):
            PushMessage(
                kind: "reminder-missed", title: "\(quest) not started yet",
                body: "\(quest) was reminded\(reminderAt.map { " at \($0)" } ?? "") and has not started in 30 minutes.", tags: "bell", forParent: true)
        case .questPaused:
            PushMessage(kind: "quest-paused", title: "A quest is paused", body: "It picks up where it stopped at the next LOCK today.", tags: "pause_button", forParent: true)
        case .questDone(let quest, let count, let streak):
            PushMessage(
                kind: "quest-done", title: "\(quest) done",
                body: "\(quest) done · \(CountText.counted(count, "quest")) today · \(streak)-day streak", tags: "white_check_mark", forParent: true)
        case .levelUp(let level):
            PushMessage(kind: "level-up", title: "Level \(level)!", body: "A new level on the box: level \(level).", tags: "star", forParent: false)
        case .streakMilestone(let days):
            PushMessage(kind: "streak-milestone", title: "\(days)-day streak!", body: "\(days) days of quests in a row.", tags: "fire", forParent: false)
        }
    }

    /// PAR-2 (#47): a new parent PIN was asked for at the box. Always to the parent's own
    /// address (never the player's, and whatever `notify.on` says): the one who asked may be
    /// the player. `asked` and `effective` are the box's words for the times.
    public static func pinResetAsked(asked: String, from: String, effective: String) -> PushMessage {
        PushMessage(
            kind: "pin-reset", title: "A new parent PIN was asked for",
            body: "Someone held the box's buttons \(asked) (page at \(from)) to set a new parent PIN. It replaces yours \(effective) unless you sign in with your PIN and cancel it.",
            tags: "warning", forParent: true)
    }

    /// BACK-1 (#48): no backup left the box for a week. To the parent's own address; `date` is
    /// the box's words for the newest backup's day, `size` its size.
    public static func backupReminder(date: String, size: String) -> PushMessage {
        PushMessage(
            kind: "backup-reminder", title: "Keep a backup off the box",
            body: "No backup has left the box this week. The newest is from \(date) (\(size)): download it in the parent area under Backups, or leave a USB stick in the box, which copies each day's.",
            tags: "floppy_disk", forParent: true)
    }

    /// The text as a header can carry it: no control character (a CR or LF would start a
    /// header of its own), at most `limit` bytes on a character boundary.
    public static func headerSafe(_ text: String, limit: Int = 200) -> String {
        var out = ""
        for ch in text {
            let piece = ch.unicodeScalars.contains(where: DisplayText.isControl) ? " " : String(ch)
            if out.utf8.count + piece.utf8.count > limit { break }
            out += piece
        }
        return out
    }
}
