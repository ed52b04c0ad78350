import Foundation
import QuestCore
import QuestStore

/// What the web app reads of the box's own records for the parent's pages (#48's start, the
/// last play, #47's house): the store itself in the running app, a fake in the tests.
protocol BoxRecords: Sendable {
    func boxStart() throws -> BoxStartRecord?
    func lastPlayedAt() throws -> Date?
    func houseLinkStatus() throws -> LinkStatus
    func houseBoxes() throws -> [HouseBox]
}

extension QuestDatabase: BoxRecords {
    func lastPlayedAt() throws -> Date? { try plays.lastPlayedAt() }
    func houseLinkStatus() throws -> LinkStatus { try homeLink.status() }
    func houseBoxes() throws -> [HouseBox] { try homeLink.houseBoxes() }
}
