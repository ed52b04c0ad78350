import BoxProtocol
import Foundation

/// The web app's way to the running box: the daemon's local socket, never its memory.
/// Each question is one short connection, asked off the server's threads (the client
/// blocks); with no daemon the answer is "offline", never an error page.
public struct BoxLink: Sendable {
    public let socketPath: String
    /// How long the box may take to answer before the page says "offline".
    public var timeoutMs: Int32 = 800
    /// The box's state as last asked, shared by every copy of this link.
    let recentState: RecentValue<State>

    /// `stateFreshMs`: how long one `state` answer serves every page that asks.
    public init(socketPath: String, stateFreshMs: Int = 250) {
        self.socketPath = socketPath
        recentState = RecentValue(freshNanos: UInt64(stateFreshMs) * 1_000_000)
    }

    public enum State: Sendable {
        case online(BoxMessage)
        case offline(reason: String)
    }

    /// The box's current screen and status (`state` over the socket). However many pages
    /// ask at once, the box is asked once, and its answer serves for `stateFreshMs`: a flood
    /// of requests to the web costs the box a few connections a second, never one each.
    public func state() async -> State {
        await recentState.get { await ask(BoxRequest(command: "state")) }
    }

    /// Asks the box to re-read the store after a change (`applied`: now or after the quest).
    /// The next `state` is asked anew.
    public func reload() async -> State {
        defer { recentState.forget() }
        return await ask(BoxRequest(command: "reload"))
    }

    /// Why the box could not be reached, for whoever asked over the network: without the
    /// socket's path.
    static func reason(_ error: any Error, socketPath: String) -> String {
        let text = "\(error)"
        return text.hasPrefix(socketPath + ": ") ? String(text.dropFirst(socketPath.count + 2)) : text
    }

    /// Lights, buzzes or sounds one output for the wiring check (`test-output`).
    public func testOutput(_ request: BoxRequest) async -> Result<BoxMessage, Refusal> { await exchange(request) }

    /// Why a request got no yes: no box to ask, or the box said no (its one line).
    public enum Refusal: Error, Sendable {
        case offline(String)
        case refused(String)
    }

    /// One request on a short connection, where a refusal (`ok: false`) is `.offline` with
    /// the box's reason.
    func ask(_ request: BoxRequest) async -> State {
        switch await exchange(request) {
        case .success(let reply): .online(reply)
        case .failure(.offline(let reason)), .failure(.refused(let reason)): .offline(reason: reason)
        }
    }

    /// One request on a short connection, off the server's threads (the client blocks).
    func exchange(_ request: BoxRequest) async -> Result<BoxMessage, Refusal> {
        let path = socketPath, timeout = timeoutMs
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    let client = try BoxClient(path: path, timeoutMs: timeout)
                    let reply = try client.request(request, timeoutMs: timeout)
                    continuation.resume(returning: reply.ok == false ? .failure(.refused(reply.error ?? "refused")) : .success(reply))
                } catch {
                    continuation.resume(returning: .failure(.offline(Self.reason(error, socketPath: path))))
                }
            }
        }
    }
}
