import Foundation
import HomeLink
import Hummingbird
import Logging
import QuestCore
import QuestStore

/// `/parent` (PAR-1): the parent's area behind the PIN. Signing in checks the PIN with the
/// store's salted hash and its lockouts (429 with Retry-After while locked); the session is
/// an HttpOnly, SameSite=Strict cookie; every change carries the CSRF token. The parent sees
/// aggregates only ("played 12 times in the last 30 days"), never a task's estimates.
struct ParentController {
    let box: BoxLink
    let forms: PageForms
    let calendar: Calendar
    let clockStyle: ClockStyle
    let logger: Logger
    let parents: ParentSessions
    let pinChecks: PINChecks
    let reads: PlayerPageReads
    let routines: any RoutineLibrary
    let settings: any FamilySettings
    let pins: any ParentPINStore
    let records: any BoxRecords
    let pinResets: PINResets
    let firstRun: FirstRunController

    func addRoutes(to router: RoomRoutes<WebRequestContext>) {
        router.get("/parent") { request, _ in try await home(request) }
        router.post("/parent/sign-in") { request, context in try await signIn(request, client: context.clientName) }
        router.post("/parent/sign-out") { request, _ in
            _ = try await forms.changeForm(request)
            parents.close(request)
            var response = Response.redirect(to: "/parent")
            response.setCookie(ParentSessions.expiredCookie)
            return response
        }
    }

    /// PAR-2: the signed-in parent (her PIN, the old one) cancels a reset waiting its 24 hours
    /// (`/parent/pin-reset/cancel`).
    func addSignedInRoutes(to router: RoomRoutes<WebRequestContext>) {
        router.post("pin-reset/cancel") { request, _ in
            _ = try await forms.changeForm(request)
            if try pins.cancelPINReset(at: Date()) {
                logger.notice("parent PIN reset cancelled with the current PIN")
            }
            return Response.redirect(to: "/parent?done=\(StatusLine.pinResetCancelled.rawValue)")
        }
    }

    func addAPIRoutes(to group: RoomRoutes<WebRequestContext>) {
        group.post("parent/session") { request, context in
            try forms.csrf.check(request, sent: request.headers[CSRFTokens.headerName])
            let buffer = try await FormBody.collect(request, limit: 1024, what: "A PIN")
            guard let body = strictJSON([String: String].self, from: buffer), let pin = body["pin"] else {
                return try APIProblem(field: "pin", message: "expected {\"pin\": \"1234\"}").json(status: .badRequest)
            }
            let outcome = try await checkPIN(pin, client: context.clientName)
            // No PIN yet: a conflict for a program (the page redirects instead).
            let status = outcome.status == .seeOther ? .conflict : outcome.status
            var response = try APIProblem(field: outcome.signedIn ? "" : "pin", message: outcome.message).json(status: status)
            outcome.headers.forEach { response.headers.append($0) }
            if outcome.signedIn { response.setCookie(parents.open()) }
            return response
        }
    }

    func home(_ request: Request) async throws -> Response {
        guard try settings.current().hasPIN else {
            return try await firstRun.page(request)
        }
        let reset = try pinResets.settlePINReset()
        let now = Date()
        guard parents.isSignedIn(request) else {
            let waiting = reset.flatMap { PINResetWords.signIn($0, now: now, calendar: self.calendar, clock: clockStyle) }
            return try forms.formPage("parent-sign-in", for: request) { SignInView(csrf: $0, resetWaiting: waiting) }
        }
        let routines = try ParentHome.routines(self.routines, calendar: try settings.familyCalendar(from: self.calendar))
        // What the last change did: a word from a fixed list, the routine named by its id.
        let routineID = request.uri.queryParameters["routine"].flatMap { UUID(uuidString: String($0)) }
        let done = request.uri.queryParameters["done"].flatMap { StatusLine(rawValue: String($0)) }?
            .text(routine: try routineID.flatMap { try self.routines.withID($0) })
        // PAR-2: a reset waiting (with its cancel), or one applied, said once.
        let resetLine = reset.flatMap { PINResetWords.home($0, now: now, calendar: self.calendar, clock: clockStyle) }
        if reset?.state == .applied, reset?.shown == false { try pins.markPINResetShown(at: now) }
        let box = request.uri.queryParameters["box"].map(String.init)
        let state = await self.box.state()
        let board: String? = switch state {
        case .online(let reply): reply.box?.board
        case .offline: try settings.current().boardName
        }
        let started = GettingStarted(hasRoutine: !routines.isEmpty, hasBoard: board != nil)
        let others = ((try? records.houseBoxes()) ?? []).map { box in
            // #47: the one address rule again on what the store holds (written before it, or by hand).
            let address = box.web.flatMap(HouseWebAddress.parse)
            return ParentHome.OtherBox(
                name: box.name, state: box.state, web: address?.url, host: address?.shown,
                seen: CalendarWords.day(box.seenAt, now: now, calendar: self.calendar, clock: clockStyle))
        }
        // #48: the parent home says when the box is down, and why as far as the box wrote it.
        var boxDown: String?
        if case .offline = state, board != nil {
            boxDown = BoxDownWords.of(try records.boxStart(), storedBoard: board, now: now, calendar: self.calendar, clock: clockStyle).line
        }
        let summary = routines.isEmpty ? nil : FamilySummary(home: try await reads.playerHome(), report: try await reads.stats().report, box: state, calendar: self.calendar)
        return try forms.formPage("parent-home", for: request) {
            var home = ParentHome(routines: routines, csrf: $0, done: done, box: box)
            home.gettingStarted = started
            home.summary = summary
            home.otherBoxes = others
            home.hasOtherBoxes = !others.isEmpty
            home.boxDown = boxDown
            home.pinReset = resetLine
            home.pinResetWaiting = reset?.state == .waiting
            return home
        }
    }

    func signIn(_ request: Request, client: String) async throws -> Response {
        let form = try await forms.changeForm(request, limit: 1024)
        let outcome = try await checkPIN(form.value("pin") ?? "", client: client)
        if outcome.signedIn || outcome.status == .seeOther {
            var response = Response.redirect(to: "/parent")
            if outcome.signedIn { response.setCookie(parents.open()) }
            return response
        }
        var response = try forms.formPage("parent-sign-in", for: request, status: outcome.status) {
            SignInView(csrf: $0, error: outcome.message)
        }
        outcome.headers.forEach { response.headers.append($0) }
        return response
    }

    struct Outcome {
        var signedIn = false
        var status: HTTPResponse.Status
        var message: String
        var headers: HTTPFields = [:]
    }

    /// The PIN's verdict in the page's words, with its status (401 wrong, 429 locked out or
    /// too many tries waiting, with Retry-After). #47: `client`'s own wrong tries pause it
    /// alone; the store's count of every wrong try closes the area for everyone.
    func checkPIN(_ pin: String, client: String) async throws -> Outcome {
        // The store's own rule (4 to 8 digits), before any hashing.
        do {
            try PINHasher.validate(pin)
        } catch {
            return Outcome(status: .unauthorized, message: "\(error)")
        }
        // PAR-2: a reset whose 24 hours are over is the PIN from now on.
        try pinResets.settlePINReset()
        switch try await pinChecks.check(pin, client: client) {
        case .accepted:
            return Outcome(signedIn: true, status: .ok, message: "signed in")
        case .rejected(let left):
            return Outcome(status: .unauthorized, message: "That PIN is not right. \(left) more \(left == 1 ? "try" : "tries") before a pause.")
        case .addressPaused(let seconds):
            return Outcome(
                status: .tooManyRequests,
                message: "Too many wrong PINs from this device. It may try again in \(Self.minutes(seconds)).",
                headers: [.retryAfter: "\(seconds)"])
        case .areaClosed(let seconds):
            return Outcome(
                status: .tooManyRequests,
                message: "Too many wrong PINs. The parent area opens again in \(Self.minutes(seconds)).",
                headers: [.retryAfter: "\(seconds)"])
        case .notSet:
            return Outcome(status: .seeOther, message: "No PIN is set yet.")
        case nil:
            return Outcome(status: .tooManyRequests, message: "Other PIN tries are being checked; try again in a moment.", headers: [.retryAfter: "1"])
        }
    }

    private static func minutes(_ seconds: Int) -> String { CountText.counted((seconds + 59) / 60, "minute") }
}

struct SignInView: Encodable {
    var csrf: String
    var error: String?
    /// PAR-2: a new PIN waits its 24 hours (said to anyone at the door, without its address).
    var resetWaiting: String?
}

/// PAR-2's words: what the door and the parent's home say of a PIN reset.
enum PINResetWords {
    /// For the sign-in page: only that one waits, and when it takes effect.
    static func signIn(_ reset: PINReset, now: Date, calendar: Calendar, clock: ClockStyle) -> String? {
        guard reset.state == .waiting else { return nil }
        return "A new PIN was asked for at the box \(CalendarWords.day(reset.askedAt, now: now, calendar: calendar, clock: clock)). "
            + "It replaces the current PIN \(CalendarWords.day(reset.takesEffectAt, now: now, calendar: calendar, clock: clock)); until then the current PIN signs in and can cancel it."
    }

    /// For the signed-in parent: when and from where; an applied one until it was said once.
    static func home(_ reset: PINReset, now: Date, calendar: Calendar, clock: ClockStyle) -> String? {
        let asked = CalendarWords.day(reset.askedAt, now: now, calendar: calendar, clock: clock)
        switch reset.state {
        case .waiting:
            return "A new PIN was asked for at the box \(asked), from the page at \(reset.from). "
                + "It replaces yours \(CalendarWords.day(reset.takesEffectAt, now: now, calendar: calendar, clock: clock)) unless you cancel it."
        case .applied where !reset.shown:
            let when = reset.settledAt.map { CalendarWords.day($0, now: now, calendar: calendar, clock: clock) } ?? "after 24 hours"
            return "The PIN was replaced \(when): it was asked for at the box \(asked), from the page at \(reset.from)."
        case .applied, .cancelled:
            return nil
        }
    }
}

/// The parent's overview: each routine with its days and how often it was played, never its
/// estimates (SPEC §9).
struct ParentHome: Encodable {
    struct Routine: Codable, Sendable {
        var id: UUID
        var name: String
        var displayName: String
        var days: String
        var isActive: Bool
        var createdByPlayer: Bool
        var taskCount: Int
        var playedLast28Days: Int
        /// The page's words for the two counts ("1 task", "played twice"); not in the API.
        var tasksText = ""
        var playedText = ""

        enum CodingKeys: String, CodingKey { case id, name, displayName, days, isActive, createdByPlayer, taskCount, playedLast28Days }
    }

    var routines: [Routine]
    var csrf: String
    // Stored, not computed: templates see stored properties only.
    var noRoutines: Bool
    /// After a change: what was done, and when the box takes it up.
    var done: String?
    var boxNote: String?
    /// #32: what a fresh box still lacks (a board, a first routine).
    var gettingStarted: GettingStarted?
    /// #33: how it goes, in ten seconds (aggregates only).
    var summary: FamilySummary?
    /// #34: the other boxes `questbox link` hears on the broker.
    var otherBoxes: [OtherBox] = []
    var hasOtherBoxes = false
    /// #48: the box's socket is silent: why, as far as the box wrote it down.
    var boxDown: String?
    /// PAR-2: a PIN reset waiting (with a cancel button), or one applied, said once.
    var pinReset: String?
    var pinResetWaiting = false

    struct OtherBox: Encodable {
        var name: String
        var state: String
        var web: String?
        /// Where the link goes, printed plainly (#47).
        var host: String?
        var seen: String
    }

    init(routines: [Routine], csrf: String, done: String? = nil, box: String? = nil) {
        self.routines = routines
        self.csrf = csrf
        noRoutines = routines.isEmpty
        self.done = done
        boxNote = done == nil ? nil : BoxNote.text(box)
    }

    /// `calendar`: the family's.
    static func routines(_ library: any RoutineLibrary, calendar: Calendar) throws -> [Routine] {
        // The summary's window (#48): the 28 days ending today.
        let since = calendar.date(byAdding: .day, value: 1 - FamilySummary.windowDays, to: calendar.startOfDay(for: Date())) ?? Date()
        let counts = try library.completedPlayCounts(since: since)
        return try library.all().map { r in
            let played = counts[r.id] ?? 0
            return Routine(
                id: r.id, name: r.name, displayName: r.displayName, days: WeekdayText.list(r.activeDays, calendar: calendar),
                isActive: r.isActive, createdByPlayer: r.createdBy == .player, taskCount: r.tasks.count,
                playedLast28Days: played, tasksText: r.tasks.count == 1 ? "1 task" : "\(r.tasks.count) tasks",
                playedText: played == 0 ? "not played in the last 4 weeks" : "played \(PlayCountText.times(played)) in the last 4 weeks")
        }
    }
}

enum BoxNote {
    /// When the box takes a change up, from `reload`'s answer.
    static func text(_ applied: String?) -> String {
        switch applied {
        case "now": "The box has it now."
        case "after-quest": "The box takes it up when the quest it is running ends."
        default: "The box is offline; it reads the change when it starts."
        }
    }
}

enum WeekdayText {
    /// The weekdays (1 = Sunday … 7 = Saturday) as the family's calendar starts the week.
    static func order(_ calendar: Calendar) -> [Int] {
        (0..<7).map { (calendar.firstWeekday - 1 + $0) % 7 + 1 }
    }

    /// "Every day", "Mon–Fri", or "Mon, Wed, Sat", in the calendar's week order.
    static func list(_ days: [Int], calendar: Calendar) -> String {
        let set = Set(days)
        if set == Set(WeekdayNumber.all) { return "Every day" }
        let order = order(calendar)
        let chosen = order.filter(set.contains)
        let symbols = calendar.shortWeekdaySymbols
        // A run of three or more days in the week's order is shown as its ends.
        if chosen.count >= 3, let first = order.firstIndex(of: chosen[0]), first + chosen.count <= 7,
           order[first..<(first + chosen.count)].elementsEqual(chosen) {
            return "\(symbols[chosen[0] - 1])–\(symbols[chosen[chosen.count - 1] - 1])"
        }
        return chosen.map { symbols[$0 - 1] }.joined(separator: ", ")
    }
}

/// A day's checkbox on a form with days (a quest's, a routine's), in the week's order.
struct WeekdayChoice: Encodable {
    var value: Int
    var label: String
    var checked: Bool

    static func week(_ calendar: Calendar, checked: [Int]) -> [WeekdayChoice] {
        let symbols = calendar.shortWeekdaySymbols
        return WeekdayText.order(calendar).map { WeekdayChoice(value: $0, label: symbols[$0 - 1], checked: checked.contains($0)) }
    }
}
