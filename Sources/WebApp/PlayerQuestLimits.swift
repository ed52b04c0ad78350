import Foundation
import QuestCore
import Synchronization
import SystemClock

/// The player's own quests are bounded (#31: 200 posts in 35 s made 200 quests, the box's
/// idle list grew to 224): at most 12 active and 20 steps each (checked in `QuestDraft`),
/// and at most 5 made in 10 minutes, said in words on the page and in the API (429).
final class PlayerQuestLimits: Sendable {
    static let maximumActive = 12
    static let maximumSteps = 20
    static let perPeriod = 5
    static let periodNanos: Int64 = 10 * 60 * 1_000_000_000

    struct TooMany: Error {
        var seconds: Int
        var message: String {
            let minutes = (seconds + 59) / 60
            return "You made \(PlayerQuestLimits.perPeriod) quests in the last 10 minutes. Make the next one in \(CountText.counted(minutes, "minute"))."
        }
    }

    let clock: any SystemClock
    private let made = Mutex<[Int64]>([])

    init(clock: any SystemClock) { self.clock = clock }

    /// Runs `save` unless 5 quests were made in the last 10 minutes; a quest that was made
    /// counts (a refused one does not).
    func save<T>(_ save: () throws -> T) throws -> T {
        let now = clock.monotonicNanos()
        try made.withLock { times in
            times = times.filter { now - $0 < Self.periodNanos }
            if times.count >= Self.perPeriod, let first = times.first {
                throw TooMany(seconds: Int((Self.periodNanos - (now - first) + 999_999_999) / 1_000_000_000))
            }
        }
        let value = try save()
        made.withLock { $0.append(now) }
        return value
    }
}
