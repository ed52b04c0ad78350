import Foundation

/// A restore never cuts a quest in half (#31: a restore during a task, then the quest
/// finished, stored the session with one of its two estimations). Before the store is
/// replaced the running box is asked to hold its buttons (`button-check`): it refuses while
/// a quest is in play, so the restore is refused with a word; once held, no press can start
/// a quest until the restore is done and `release()` (or this value's end) lets go.
public final class BoxHold {
    public enum Outcome {
        /// The box holds its buttons until `release`.
        case held(BoxHold)
        /// No box runs here: nothing can be in play.
        case noBox
        /// The box refused (a quest in play) or did not answer: the restore must wait.
        case refused(String)
    }

    let client: BoxClient

    init(client: BoxClient) { self.client = client }

    /// `purpose`: what waits for the quest to end, as a verb ("restore", "update").
    public static func take(socketPath: String, for purpose: String = "restore", timeoutMs: Int32 = 2_000) -> Outcome {
        guard FileManager.default.fileExists(atPath: socketPath), let client = try? BoxClient(path: socketPath, timeoutMs: timeoutMs) else {
            return .noBox
        }
        guard let reply = try? client.request(BoxRequest(command: "button-check", id: purpose), timeoutMs: timeoutMs) else {
            return .refused("the box did not answer; try again in a moment")
        }
        guard reply.ok == true else {
            return .refused(reply.error?.contains("a quest is running") == true
                ? "a quest is being played on the box; \(purpose) once it is over (nothing was changed)"
                : "the box refused: \(reply.error ?? "no reason given")")
        }
        return .held(BoxHold(client: client))
    }

    /// The box's buttons are its own again.
    public func release() {
        _ = try? client.request(BoxRequest(command: "button-check", id: "restore-done", action: "stop"), timeoutMs: 2_000)
    }
}

extension BoxHold.Outcome {
    public var isNoBox: Bool { if case .noBox = self { true } else { false } }
}
