import Foundation
import Glibc
import Synchronization
@testable import WebApp

/// A stand-in for the running box on its socket, for tests of what the web app asks it: it
/// greets each client, answers every request line with `ok` (a `reload` with `applied`, a
/// `button-check` with the box holding its buttons) or with the refusal set for its command,
/// and keeps the commands it was sent. The real box is exercised by the browser tests.
final class FakeBox: Sendable {
    let path: String
    private let listener: Int32
    private let received = Mutex<[String]>([])
    private let subscribers = Mutex<[Int32]>([])
    private let connected = Mutex<Set<Int32>>([])
    /// A command's refusal (`ok: false` with this error), as the box refuses during a quest.
    let refusals = Mutex<[String: String]>([:])
    /// The last `claim` asked (its name, whether it resets a PIN, its action).
    let claims = Mutex<[(name: String, reset: Bool, action: String, match: String)]>([])
    /// The `pair` requests (PRIV-1): the phone's name, the action and the code.
    let pairs = Mutex<[(name: String, action: String, code: String)]>([])
    /// The `touch` presses asked (#33), as "button action".
    let touches = Mutex<[String]>([])
    /// The screen `state` answers with (a JSON object), if any.
    let stateScreen = Mutex<String?>(nil)
    /// How long the box takes to answer a command (ms), as a busy box does.
    let replyDelaysMs = Mutex<[String: UInt32]>([:])

    var commands: [String] { received.withLock { $0 } }

    /// A link to this box that waits 10 s for an answer: the app's 800 ms are a real box's, and
    /// on a loaded 2-core machine the fake's thread answered later (ci26: a PRIV-1 ask came
    /// back "offline"). For the tests that are not about the wait.
    var patientLink: BoxLink {
        var link = BoxLink(socketPath: path)
        link.timeoutMs = 10_000
        return link
    }

    init(path: String) throws {
        self.path = path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                Thread.detachNewThread { [self] in serve(client) }
            }
        }
    }

    private func serve(_ client: Int32) {
        connected.withLock { _ = $0.insert(client) }
        defer {
            subscribers.withLock { $0.removeAll { $0 == client } }
            connected.withLock { _ = $0.remove(client) }
            close(client)
        }
        send(#"{"type":"hello","protocol":1,"box":{"board":"fake","clockTrusted":true,"dataVersion":1,"unsavedPlays":0,"phase":"idle","buttonCheck":false}}"#, to: client)
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(client, &buffer, buffer.count)
            guard n > 0 else { return }
            pending += buffer[0..<n]
            while let end = pending.firstIndex(of: 10) {
                let line = Array(pending[..<end])
                pending.removeFirst(end + 1)
                let object = (try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]) ?? [:]
                let command = object["command"] as? String ?? "?"
                received.withLock { $0.append(command) }
                if command == "claim" {
                    claims.withLock {
                        $0.append((object["claim"] as? String ?? "", object["reset"] as? Bool ?? false, object["action"] as? String ?? "start", object["match"] as? String ?? ""))
                    }
                }
                if command == "pair" {
                    pairs.withLock { $0.append((object["pair"] as? String ?? "", object["action"] as? String ?? "show", object["code"] as? String ?? "")) }
                }
                if command == "touch" {
                    touches.withLock { $0.append("\(object["button"] as? String ?? "") \(object["action"] as? String ?? "tap")") }
                }
                if let delay = replyDelaysMs.withLock({ $0[command] }) { usleep(delay * 1000) }
                if let refusal = refusals.withLock({ $0[command] }) {
                    send(#"{"type":"reply","command":"\#(command)","ok":false,"error":"\#(refusal)"}"#, to: client)
                    continue
                }
                if command == "subscribe" || command == "claim" { subscribers.withLock { $0.append(client) } }
                let extra = switch command {
                case "reload": #","applied":"now""#
                case "state": #","box":{"board":"fake","clockTrusted":true,"dataVersion":1,"unsavedPlays":0,"phase":"idle","buttonCheck":false,"version":"9.9.9-fake","upMinutes":1565}"#
                    + (stateScreen.withLock { $0 }.map { #","screen":"# + $0 } ?? "")
                case "button-check": #","box":{"board":"fake","clockTrusted":true,"dataVersion":1,"unsavedPlays":0,"phase":"idle","buttonCheck":true}"#
                default: ""
                }
                send(#"{"type":"reply","command":"\#(command)","ok":true\#(extra)}"#, to: client)
            }
        }
    }

    private func send(_ line: String, to client: Int32) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
    }

    /// How many clients receive events now.
    var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// The name of the claim the web app asked the box to show.
    var claimName: String? { claims.withLock { $0.last?.name } }

    /// A `claim` event for the claim asked last, as the box tells it.
    func claimMoved(_ progress: String, reason: String? = nil) {
        let reasonField = reason.map { #","reason":"\#($0)""# } ?? ""
        emit(#"{"type":"event","event":"claim","claim":{"id":"\#(claimName ?? "")","progress":"\#(progress)"\#(reasonField)}}"#)
    }

    /// An event line to every subscriber, as the box sends them.
    func emit(_ json: String) {
        subscribers.withLock { all in for client in all { send(json, to: client) } }
    }

    /// Closes every client's connection, as a box that stops does.
    func disconnectAll() {
        connected.withLock { all in for client in all { shutdown(client, Int32(SHUT_RDWR)) } }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        unlink(path)
    }
}
