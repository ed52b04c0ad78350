import BoxProtocol
import Foundation

/// The web app's way to the running box: the daemon's local socket, never its memory.
/// Each question is one short connection, asked off the server's threads (the client
/// blocks); with no daemon the answer is "offline", never an error page.
public struct BoxLink: Sendable {
    public let socketPath: String
    /// How long the box may take to answer before the page says "offline".
    public var timeoutMs: Int32 = 800

    public init(socketPath: String) { self.socketPath = socketPath }

    public enum State: Sendable {
        case online(BoxMessage)
        case offline(reason: String)
    }

    /// The box's current screen and status (`state` over the socket).
    public func state() async -> State { await ask(BoxRequest(command: "state")) }

    /// Asks the box to re-read the store after a change (`applied`: now or after the quest).
    public func reload() async -> State { await ask(BoxRequest(command: "reload")) }

    /// One request on a short connection, off the server's threads (the client blocks). A
    /// refusal (`ok: false`) is `.offline` with the box's reason.
    func ask(_ request: BoxRequest) async -> State {
        let path = socketPath, timeout = timeoutMs
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    let client = try BoxClient(path: path, timeoutMs: timeout)
                    let reply = try client.request(request, timeoutMs: timeout)
                    continuation.resume(returning: reply.ok == false ? .offline(reason: reply.error ?? "refused") : .online(reply))
                } catch {
                    // The reason goes to whoever asked over the network: without the path.
                    let text = "\(error)"
                    continuation.resume(returning: .offline(reason: text.hasPrefix(path + ": ") ? String(text.dropFirst(path.count + 2)) : text))
                }
            }
        }
    }
}
