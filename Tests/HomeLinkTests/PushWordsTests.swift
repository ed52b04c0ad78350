@testable import HomeLink
import Testing

/// #34: what a phone is told: the box's kind words, the right phone, routine-level facts only.
@Suite("NOTF-1 (#34): the pushes' words")
struct PushWordsTests {
    @Test("each happening in the box's words, to the player or the parent; the kinds are notify.on's words")
    func words() throws {
        let reminder = try #require(PushMessage.of(.reminder(quest: "Morning Quest")))
        #expect(reminder.kind == "reminder" && !reminder.forParent && reminder.title == "Time for Morning Quest")
        let missed = try #require(PushMessage.of(.reminderMissed(quest: "Morning Quest"), reminderAt: "07:30"))
        #expect(missed.forParent && missed.body == "Morning Quest was reminded at 07:30 and has not started in 30 minutes.")
        let done = try #require(PushMessage.of(.questDone(quest: "Morning Quest", questsToday: 2, streak: 7)))
        #expect(done.forParent && done.body == "Morning Quest done · 2 quests today · 7-day streak")
        #expect(PushMessage.of(.questPaused)?.forParent == true)
        #expect(PushMessage.of(.levelUp(level: 5))?.title == "Level 5!")
        #expect(PushMessage.of(.streakMilestone(days: 7))?.title == "7-day streak!")
        let all = [BoxHappening.reminder(quest: "q"), .reminderMissed(quest: "q"), .questPaused, .questDone(quest: "q", questsToday: 1, streak: 1), .levelUp(level: 2), .streakMilestone(days: 3)]
            .compactMap { PushMessage.of($0) }
        #expect(all.map(\.kind) == ["reminder", "reminder-missed", "quest-paused", "quest-done", "level-up", "streak-milestone"])
        // Seed 004: never blame.
        for message in all {
            for word in ["late", "fail", "bad", "wrong", "should"] { #expect(!(message.title + message.body).lowercased().contains(word), "\(message)") }
        }
    }

    @Test("a title fit for a header: no CR or LF (no header of its own), cut between characters")
    func headerSafe() {
        #expect(PushMessage.headerSafe("Morning\r\nX-Evil: 1") == "Morning X-Evil: 1", "CR LF is one character: one space")
        let long = PushMessage.headerSafe(String(repeating: "é", count: 150), limit: 201)
        #expect(long.utf8.count == 200 && long.count == 100)
    }

    @Test("a streak milestone is a happening once, when the streak reaches it")
    func milestone() {
        var before = BoxFacts(
            state: "idle", quest: nil, level: 1, xp: 10, streak: 6, questsToday: 0, lastWeekAccuracy: nil, muted: false, lastReminder: nil,
            lastReminderQuest: nil, reminderMissed: false, routines: [], lastCompleted: nil, lastCompletedQuest: nil, pausedSessions: [], day: .distantPast)
        var after = before
        after.streak = 7
        #expect(BoxHappening.between(before, after) == [.streakMilestone(days: 7)])
        before = after
        #expect(BoxHappening.between(before, after).isEmpty)
        after.streak = 8
        #expect(BoxHappening.between(before, after).isEmpty)
    }
}
