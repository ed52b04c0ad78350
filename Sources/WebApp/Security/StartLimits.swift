/// #47: how often something that asks the box may start (a PIN claim, a phone's code): at
/// most one per `spacingNanos`, `perClient` in `periodNanos` from one client address and
/// `inAll` from all together, so one address cannot use up everyone's.
struct StartLimits: Sendable {
    enum Refusal: Equatable, Sendable {
        /// Within `spacingNanos` of the last start.
        case tooSoon
        /// The period's starts are used up: the seconds until the next may start.
        case tooMany(retryAfter: Int)
    }

    let spacingNanos: Int64
    let perClient: Int
    let inAll: Int
    let periodNanos: Int64
    private var starts: [(at: Int64, client: String)] = []

    init(spacingNanos: Int64, perClient: Int, inAll: Int, periodNanos: Int64) {
        self.spacingNanos = spacingNanos
        self.perClient = perClient
        self.inAll = inAll
        self.periodNanos = periodNanos
    }

    /// Counts a start by `client` at `now`; nil when it may start, else why not.
    mutating func take(client: String, at now: Int64) -> Refusal? {
        if let last = starts.last, now - last.at < spacingNanos { return .tooSoon }
        starts = starts.filter { now - $0.at < periodNanos }
        let mine = starts.filter { $0.client == client }
        for (counted, limit) in [(mine, perClient), (starts, inAll)] where counted.count >= limit {
            let first = counted[counted.count - limit].at
            return .tooMany(retryAfter: Int((periodNanos - (now - first) + 999_999_999) / 1_000_000_000))
        }
        starts.append((now, client))
        return nil
    }
}
