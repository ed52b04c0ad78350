import BoxProtocol
import QuestCore
import Testing
@testable import HomeLinkService

/// #48: Home Assistant's "Quest in play" names the quest through its reveals: a reveal
/// screen carries no quest name and keeps the one in play.
@Suite("#48: the quest in play as the link follows the box's screens")
struct QuestInPlayTests {
    @Test("#48: estimating and active name the quest; a reveal keeps it; idle and the summary end it")
    func throughTheReveal() {
        var quest: String?
        var seen: [String?] = []
        let tour: [Screen] = [
            ScreenSamples.idle, ScreenSamples.estimating(seconds: 150), ScreenSamples.active, ScreenSamples.reveal,
            ScreenSamples.estimating(seconds: 165), ScreenSamples.reveal, ScreenSamples.summary, ScreenSamples.idle,
        ]
        for screen in tour {
            quest = HomeLinkService.quest(of: ScreenPayload(screen), inPlay: quest)
            seen.append(quest)
        }
        #expect(seen == [nil, "Morning Quest", "Morning Quest", "Morning Quest", "Morning Quest", "Morning Quest", nil, nil])
        // A link that meets the box mid-reveal knows no quest yet, and says none.
        #expect(HomeLinkService.quest(of: ScreenPayload(ScreenSamples.reveal), inPlay: nil) == nil)
    }
}
