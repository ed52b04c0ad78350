import Foundation
import NIOCore
import TestSupport
import Testing
@testable import WebApp

/// #47: "260 open /kiosk/events streams fill the connection cap": one client address keeps
/// at most `BoxEventRelay.streamsPerClient` event streams; its next ends its oldest, and no
/// other address's stream is touched.
@Suite("#47: event streams per client address")
struct EventStreamShareTests {
    @Test("#47: a client's ninth event stream ends its oldest; another client's stays")
    func ninthEndsOldest() async throws {
        let dir = temporaryDirectory()
        let box = try FakeBox(path: dir + "/questbox.sock")
        defer { box.stop() }
        let relay = BoxEventRelay(socketPath: box.path, channel: .kiosk)
        let neighbour = relay.stream(client: "192.168.1.20")
        var streams = (0..<BoxEventRelay.streamsPerClient).map { _ in relay.stream(client: "192.168.1.66") }
        #expect(relay.pagesOpen(client: "192.168.1.66") == BoxEventRelay.streamsPerClient)
        streams.append(relay.stream(client: "192.168.1.66"))
        #expect(relay.pagesOpen(client: "192.168.1.66") == BoxEventRelay.streamsPerClient)
        #expect(relay.pagesOpen(client: "192.168.1.20") == 1)
        // The oldest ended: its frames run out (the retry line, whatever it had), then nil;
        // a stream still open would be waited on for 10 s at most.
        let oldest = streams[0]
        let ended = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in oldest {}
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(ended, "the oldest stream was not ended")
        _ = neighbour
    }
}
