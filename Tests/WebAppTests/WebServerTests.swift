import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Logging
import ServiceLifecycle
import Testing
@testable import WebApp

@Suite("Web server")
struct WebServerTests {
    @Test("the Date header in RFC 9110's IMF-fixdate, from the wall clock's second", arguments: [
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (1_795_564_800, "Wed, 25 Nov 2026 00:00:00 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),       // a leap day
        (1_798_761_599, "Thu, 31 Dec 2026 23:59:59 GMT"),     // a year's last second
    ])
    func dateFormat(seconds: Int, expected: String) {
        #expect(HTTPDateHeader.format(epochSeconds: seconds) == expected)
    }

    @Test("the running server answers with a Date header of now, made when asked (no timer keeps it)")
    func dateOfALiveAnswer() async throws {
        let router = Router()
        router.get("/") { _, _ in "ok" }
        let (ports, portFound) = AsyncStream<Int>.makeStream()
        let server = WebServer(
            responder: router.buildResponder(), configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            logger: Logger(label: "web-server-test"), onServerRunning: { portFound.yield($0.localAddress?.port ?? 0) })
        let group = ServiceGroup(configuration: .init(services: [server], logger: Logger(label: "web-server-test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/"))
            let before = Date()
            let (body, response) = try await URLSession.shared.data(from: url)
            let after = Date()
            let http = try #require(response as? HTTPURLResponse)
            #expect(String(decoding: body, as: UTF8.self) == "ok")
            let header = try #require(http.value(forHTTPHeaderField: "Date"))
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            let date = try #require(formatter.date(from: header), "Date: \(header)")
            // Stamped while the request was answered (whole seconds: the header drops the
            // fraction), however long a busy machine took to answer it.
            #expect(date >= before.addingTimeInterval(-1) && date <= after, "Date: \(header), asked at \(before), answered by \(after)")
            await group.triggerGracefulShutdown()
        }
    }
}
