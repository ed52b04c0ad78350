import Foundation
import QuestCore
import Synchronization
import SystemClock

/// The player's own quests are bounded (#31: 200 posts in 35 s made 200 quests, the box's
/// idle list grew to 224): at most 12 active and 20 steps each (checked in `QuestDraft`),
/// at most 5 made in 10 minutes, and (#47: 40 edits in 1.7 s churned the voice's clips) at
/// most 10 changes in 10 minutes; said in words on the page and in the API (429).
final class PlayerQuestLimits: Sendable {
    static let maximumActive = 12
    static let maximumSteps = 20
    static let perPeriod = 5
    static let changesPerPeriod = 10
    static let periodNanos: Int64 = 10 * 60 * 1_000_000_000

    enum Kind: Sendable {
        case made, changed

        var allowed: Int { self == .made ? PlayerQuestLimits.perPeriod : PlayerQuestLimits.changesPerPeriod }
    }

    struct TooMany: Error {
        var seconds: Int
        var kind: Kind = .made
        var message: String {
            let minutes = CountText.counted((seconds + 59) / 60, "minute")
            switch kind {
            case .made: return "You made \(PlayerQuestLimits.perPeriod) quests in the last 10 minutes. Make the next one in \(minutes)."
            case .changed: return "You changed your quests \(PlayerQuestLimits.changesPerPeriod) times in the last 10 minutes. Change this one in \(minutes)."
            }
        }
    }

    let clock: any SystemClock
    /// When quests were made and changed, within the period.
    private let saves = Mutex<(made: [Int64], changed: [Int64])>(([], []))

    init(clock: any SystemClock) { self.clock = clock }

    /// Runs `save` unless the period's quests of that kind were saved already; a save that
    /// went through counts (a refused one does not).
    func save<T>(_ kind: Kind = .made, _ save: () throws -> T) throws -> T {
        let now = clock.monotonicNanos()
        try saves.withLock { all in
            all.made = all.made.filter { now - $0 < Self.periodNanos }
            all.changed = all.changed.filter { now - $0 < Self.periodNanos }
            let times = kind == .made ? all.made : all.changed
            if times.count >= kind.allowed, let first = times.first {
                throw TooMany(seconds: Int((Self.periodNanos - (now - first) + 999_999_999) / 1_000_000_000), kind: kind)
            }
        }
        let value = try save()
        saves.withLock { all in
            switch kind {
            case .made: all.made.append(now)
            case .changed: all.changed.append(now)
            }
        }
        return value
    }
}
