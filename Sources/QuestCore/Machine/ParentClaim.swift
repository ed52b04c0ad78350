/// PAR-2: claiming the box (the first parent PIN, or a new one when it is forgotten) needs a
/// deliberate act at the box that play never uses: STOP and DOWN held together for 3 s while
/// the box's own screen asks. Only the idle box asks; a claim that arrives during a quest
/// waits for the box to be idle, presses made before the box asked never count, and the
/// player can always play: LOCK starts a quest (which ends the claim), UP says no.
///
/// #47: the act confirms only the claim of the one who asked. The asker's page and the box's
/// screen show the same short code (`match`, as Bluetooth's numeric comparison), so the
/// parent at the box sees whose claim she allows; and while one claim stands no other may
/// start (the second asker is refused, the first goes on), so a claim never changes owner.

/// A claim the box was asked to show (by the web app, over its socket).
public struct PendingClaim: Codable, Equatable, Sendable {
    /// The asker's name for it (never the web page's secret): told back in every update.
    public var id: String
    /// A PIN is set already: the claim replaces it.
    public var reset: Bool
    /// When the box began to ask (nil while a quest or a button check keeps it waiting).
    public var shownAt: MonotonicNanos?
    /// The short code the asker's page shows, shown on the box beside the question.
    public var match: String
    /// STOP and DOWN pressed since the box began to ask, with when each went down.
    public var held: [ButtonRole: MonotonicNanos] = [:]

    public init(id: String, reset: Bool, match: String) {
        self.id = id
        self.reset = reset
        self.match = match
    }

    /// Both buttons of the act are down, each pressed after the box asked.
    var holdingBoth: Bool { QuestMachine.claimButtons.allSatisfy { held[$0] != nil } }
}

/// What the asker sends: start showing a claim, or take it back.
public enum ClaimRequest: Codable, Equatable, Sendable {
    case start(id: String, reset: Bool, match: String)
    case cancel(id: String)
}

/// Where a claim stands, told to the asker as it moves.
public struct ClaimUpdate: Codable, Equatable, Sendable {
    public enum Progress: String, Codable, Sendable {
        /// Taken; the box is busy (a quest, a button check) and asks when it is idle.
        case waiting
        /// The box's screen, light and buzzer ask now.
        case shown
        /// STOP and DOWN are held; released early, it is `shown` again.
        case holding
        /// Held for 3 s: the asker may let the parent choose a PIN.
        case confirmed
        /// Over without the act (`reason` says why).
        case ended
    }

    /// Why a claim ended without the act.
    public enum Reason: String, Codable, Sendable {
        /// LOCK started a quest (the player always may).
        case questStarted = "quest-started"
        /// UP at the box: no.
        case declined
        /// The box asked for 2 minutes and nobody held the buttons.
        case timedOut = "timed-out"
        /// The box stayed busy for 15 minutes and never asked.
        case stayedBusy = "stayed-busy"
        /// The asker took it back (or went away).
        case cancelled
        /// Another claim stands: the box asks one thing at a time, and the first one keeps it.
        case anotherClaim = "another-claim"
    }

    public var id: String
    public var progress: Progress
    public var reason: Reason?

    public init(id: String, progress: Progress, reason: Reason? = nil) {
        self.id = id
        self.progress = progress
        self.reason = reason
    }
}

/// The box asks whether to allow a claim (on its OLED, terminal and kiosk).
public struct ClaimScreen: Codable, Equatable, Sendable {
    /// A PIN is set already: the claim sets a new one.
    public var reset: Bool
    /// STOP and DOWN are held: keep holding.
    public var holding: Bool
    /// The code the asking page shows (#47): the parent allows only when both show it.
    public var match: String

    public init(reset: Bool, holding: Bool, match: String) {
        self.reset = reset
        self.holding = holding
        self.match = match
    }

    /// The code as the big line shows it, a digit at a time ("4 7 1").
    public var spacedMatch: String { Self.spaced(match) }

    /// A claim's code a digit at a time, as the box and the asking page show it.
    public static func spaced(_ match: String) -> String { match.map(String.init).joined(separator: " ") }
}

extension QuestMachine {
    /// The two buttons held together to allow a claim: never a pair play holds (STOP ends a
    /// task, DOWN sets a guess; at idle neither starts anything).
    public static let claimButtons: [ButtonRole] = [.stop, .down]
    /// How long they are held together.
    public static let claimHoldNanos: MonotonicNanos = 3_000_000_000
    /// How long the box asks before the claim ends by itself.
    public static let claimShownNanos: MonotonicNanos = 120 * 1_000_000_000
    /// How long a claim waits for a busy box before it ends without ever being asked.
    public static let claimWaitNanos: MonotonicNanos = 15 * 60 * 1_000_000_000
    /// The digits of the code the box and the asking page both show.
    public static let claimMatchDigits = 3

    /// A code the box shows beside a claim: exactly `claimMatchDigits` ASCII digits.
    public static func isClaimMatch(_ text: String) -> Bool {
        text.utf8.count == claimMatchDigits && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}

extension Reducer {
    /// A claim shows on the idle box only, and not during a button check (whose presses
    /// belong to the parent's wiring page) or while a phone's code shows (PRIV-1: for at
    /// most 2 minutes).
    var claimCanShow: Bool {
        guard case .idle = state.phase else { return false }
        return !state.buttonCheck && state.pairing == nil
    }

    var claimShown: Bool { state.claim?.shownAt != nil }

    mutating func handleClaim(_ request: ClaimRequest, at t: MonotonicNanos) {
        switch request {
        case .start(let id, let reset, let match):
            guard state.claim?.id != id else { return }  // asked twice: it stands as it is
            guard state.claim == nil, QuestMachine.isClaimMatch(match) else {
                // #47: the first claim keeps the box; the second never replaces it.
                emit(.claimChanged(ClaimUpdate(id: id, progress: .ended, reason: .anotherClaim)))
                return
            }
            state.claim = PendingClaim(id: id, reset: reset, match: match)
            emit(.claimChanged(ClaimUpdate(id: id, progress: .waiting)))
            emit(.scheduleTimer(.claimLimit, atNanos: t + QuestMachine.claimWaitNanos))
            if claimCanShow { enterIdle(notice: nil) }
        case .cancel(let id):
            guard state.claim?.id == id else { return }
            endClaim(.cancelled, at: t)
        }
    }

    /// Called by `enterIdle`: the claim's screen instead of the idle one while a claim
    /// waits; true when it showed. Shown for the first time, it starts its 2 minutes.
    mutating func showClaimIfWaiting() -> Bool {
        guard var claim = state.claim else { return false }
        guard claimCanShow else {
            if claim.shownAt != nil {
                // A button check took the buttons: the claim waits again, its holds forgotten.
                claim.shownAt = nil
                claim.held = [:]
                state.claim = claim
                emit(.cancelTimer(.claimHold))
                emit(.claimChanged(ClaimUpdate(id: claim.id, progress: .waiting)))
            }
            return false
        }
        if claim.shownAt == nil {
            claim.shownAt = now
            state.claim = claim
            emit(.scheduleTimer(.claimLimit, atNanos: now + QuestMachine.claimShownNanos))
            emit(.buzzer(.claim))
            emit(.claimChanged(ClaimUpdate(id: claim.id, progress: .shown)))
        }
        let holding = claim.holdingBoth
        emit(.led(.claim(holding: holding)))
        emit(.display(.claim(ClaimScreen(reset: claim.reset, holding: holding, match: claim.match))))
        return true
    }

    /// A press while the box asks: LOCK plays (ending the claim), UP says no, STOP and DOWN
    /// are the act. True when the press was the claim's.
    mutating func claimPress(_ role: ButtonRole, at t: MonotonicNanos) -> Bool {
        guard claimShown, var claim = state.claim else { return false }
        switch role {
        case .lock:
            endClaim(.questStarted, at: t)
            return false  // and the press goes on to start the quest
        case .up:
            endClaim(.declined, at: t)
        case .stop, .down:
            // #33: the act is done at the box; a touch screen's press never holds for it.
            guard !state.touched.contains(role) else { return true }
            claim.held[role] = t
            state.claim = claim
            if claim.holdingBoth {
                emit(.scheduleTimer(.claimHold, atNanos: t + QuestMachine.claimHoldNanos))
                emit(.buzzer(.tap))
                emit(.claimChanged(ClaimUpdate(id: claim.id, progress: .holding)))
                _ = showClaimIfWaiting()
            }
        }
        return true
    }

    /// A release while the box asks: the hold is broken and must begin again.
    mutating func claimRelease(_ role: ButtonRole) {
        guard claimShown, var claim = state.claim, claim.held[role] != nil else { return }
        let wasHolding = claim.holdingBoth
        claim.held[role] = nil
        state.claim = claim
        if wasHolding {
            emit(.cancelTimer(.claimHold))
            emit(.claimChanged(ClaimUpdate(id: claim.id, progress: .shown)))
            _ = showClaimIfWaiting()
        }
    }

    mutating func claimTimerFired(_ timer: QuestTimer, at t: MonotonicNanos) {
        guard let claim = state.claim else { return }
        switch timer {
        case .claimHold:
            // Both still down (the debouncer's levels, not only the recorded presses).
            guard claimShown, claim.holdingBoth, QuestMachine.claimButtons.allSatisfy({ state.debouncer.isPressed($0) }) else { return }
            state.claim = nil
            emit(.cancelTimer(.claimLimit))
            emit(.claimChanged(ClaimUpdate(id: claim.id, progress: .confirmed)))
            emit(.playSound(.lockIn))
            emit(.buzzer(.celebration))
            enterIdle(notice: ScreenPhrases.claimAllowed, expiringAt: t)
        case .claimLimit:
            endClaim(claim.shownAt == nil ? .stayedBusy : .timedOut, at: t)
        default:
            break
        }
    }

    /// The claim is over without the act; the idle screen comes back if it was showing.
    mutating func endClaim(_ reason: ClaimUpdate.Reason, at t: MonotonicNanos) {
        guard let claim = state.claim else { return }
        state.claim = nil
        emit(.cancelTimer(.claimHold))
        emit(.cancelTimer(.claimLimit))
        emit(.claimChanged(ClaimUpdate(id: claim.id, progress: .ended, reason: reason)))
        if claim.shownAt != nil, case .idle = state.phase { enterIdle(notice: nil) }
    }
}
