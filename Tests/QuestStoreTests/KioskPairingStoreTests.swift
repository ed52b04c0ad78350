import Foundation
import GRDB
import QuestCore
import TestSupport
import Testing
@testable import QuestStore

/// #33: the browsers a parent paired as touch kiosks, kept by their token's hash.
@Suite("#33: paired kiosks in the store")
struct KioskPairingStoreTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("a pairing is found by its token only; the store keeps the token's hash, never the token")
    func pairAndFind() throws {
        let (db, _) = try freshDatabase()
        let token = QuestDatabase.newKioskToken()
        #expect(token.count == 64 && token != QuestDatabase.newKioskToken())
        try db.pairKiosk(name: " Kitchen display ", token: token, now: Self.now)
        #expect(throws: StoreError.self, "a token of another shape") { try db.pairKiosk(name: "X", token: "abc", now: Self.now) }
        let found = try #require(try db.pairedKiosk(token: token))
        #expect(found.name == "Kitchen display" && found.pairedAt == Self.now)
        #expect(try db.pairedKiosks() == [found])
        #expect(try db.pairedKiosk(token: String(token.dropLast()) + (token.hasSuffix("0") ? "1" : "0")) == nil)
        #expect(try db.pairedKiosk(token: "") == nil && (try db.pairedKiosk(token: "' OR 1=1 --")) == nil)
        let stored = try db.pool.read { try String.fetchAll($0, sql: "SELECT tokenHash FROM pairedKiosk") }
        #expect(stored.count == 1 && stored[0] != token && stored[0].count == 64)
        let other = QuestDatabase.newKioskToken()
        try db.pairKiosk(name: "Hall", token: other, now: Self.now)
        #expect(try db.unpairKiosk(id: found.id))
        #expect(try db.pairedKiosk(token: token) == nil, "unpaired: its buttons stop")
        #expect(try db.pairedKiosk(token: other)?.name == "Hall")
        #expect(try db.unpairKiosk(id: found.id) == false)
    }

    @Test("names follow the one name rule and a length; at most 8 kiosks")
    func bounded() throws {
        let (db, _) = try freshDatabase()
        #expect(throws: StoreError.self) { try db.pairKiosk(name: "  ", token: QuestDatabase.newKioskToken(), now: Self.now) }
        #expect(throws: StoreError.self) { try db.pairKiosk(name: "Kitchen\u{1B}[2J", token: QuestDatabase.newKioskToken(), now: Self.now) }
        #expect(throws: StoreError.self) { try db.pairKiosk(name: String(repeating: "k", count: 41), token: QuestDatabase.newKioskToken(), now: Self.now) }
        for i in 1...QuestDatabase.maximumPairedKiosks { try db.pairKiosk(name: "Display \(i)", token: QuestDatabase.newKioskToken(), now: Self.now) }
        #expect(throws: StoreError.self) { try db.pairKiosk(name: "One more", token: QuestDatabase.newKioskToken(), now: Self.now) }
        #expect(try db.pairedKiosks().count == QuestDatabase.maximumPairedKiosks)
    }
}
