/// When the box looks at the store's version again after a write in the data directory left
/// it unchanged.
///
/// SQLite appends a commit to the WAL (the inotify event), syncs the WAL (`synchronous=FULL`)
/// and only then publishes the commit in shared memory, which makes no event. On an SD card
/// or a busy disk that sync can take longer than a second, so the box keeps looking — often
/// at first, then every `steadyGapMs` — until `lookForMs` after the event. Only a write by
/// someone else starts it, so an idle box still sleeps; a change is seen within `steadyGapMs`
/// of its publication.
public enum StoreRecheckSchedule {
    public static let firstGapsMs: [Int64] = [30, 100, 200]
    public static let steadyGapMs: Int64 = 250
    public static let lookForMs: Int64 = 10_000

    /// The gaps between looks, each from the one before (made once, handed out per event).
    public static let gapsMs: [Int64] = {
        var gaps = firstGapsMs
        var total = gaps.reduce(0, +)
        while total < lookForMs {
            gaps.append(steadyGapMs)
            total += steadyGapMs
        }
        return gaps
    }()
}
