import Foundation
import Glibc
import Synchronization

/// A stand-in for the running box on its socket, for tests of what the web app asks it: it
/// greets each client, answers every request line with `ok` (a `reload` with `applied`),
/// and keeps the commands it was sent. The real box is exercised by the browser tests.
final class FakeBox: Sendable {
    let path: String
    private let listener: Int32
    private let received = Mutex<[String]>([])
    private let subscribers = Mutex<[Int32]>([])

    var commands: [String] { received.withLock { $0 } }

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
        defer {
            subscribers.withLock { $0.removeAll { $0 == client } }
            close(client)
        }
        send(#"{"type":"hello","protocol":1,"box":{"board":"fake","clockTrusted":true,"dataVersion":1,"unsavedPlays":0,"phase":"idle"}}"#, to: client)
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(client, &buffer, buffer.count)
            guard n > 0 else { return }
            pending += buffer[0..<n]
            while let end = pending.firstIndex(of: 10) {
                let line = Array(pending[..<end])
                pending.removeFirst(end + 1)
                let command = (try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])?["command"] as? String ?? "?"
                received.withLock { $0.append(command) }
                if command == "subscribe" { subscribers.withLock { $0.append(client) } }
                let applied = command == "reload" ? #","applied":"now""# : ""
                send(#"{"type":"reply","command":"\#(command)","ok":true\#(applied)}"#, to: client)
            }
        }
    }

    private func send(_ line: String, to client: Int32) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
    }

    /// How many clients receive events now.
    var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// An event line to every subscriber, as the box sends them.
    func emit(_ json: String) {
        subscribers.withLock { all in for client in all { send(json, to: client) } }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        unlink(path)
    }
}
