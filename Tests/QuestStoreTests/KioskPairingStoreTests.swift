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
        let token = KioskPairingStore.newToken()
        #expect(token.count == 64 && token != KioskPairingStore.newToken())
        try db.kiosks.pair(name: " Kitchen display ", token: token, now: Self.now)
        #expect(throws: StoreError.self, "a token of another shape") { try db.kiosks.pair(name: "X", token: "abc", now: Self.now) }
        let found = try #require(try db.kiosks.paired(token: token))
        #expect(found.name == "Kitchen display" && found.pairedAt == Self.now)
        #expect(try db.kiosks.all() == [found])
        #expect(try db.kiosks.paired(token: String(token.dropLast()) + (token.hasSuffix("0") ? "1" : "0")) == nil)
        #expect(try db.kiosks.paired(token: "") == nil && (try db.kiosks.paired(token: "' OR 1=1 --")) == nil)
        let stored = try db.pool.read { try String.fetchAll($0, sql: "SELECT tokenHash FROM pairedKiosk") }
        #expect(stored.count == 1 && stored[0] != token && stored[0].count == 64)
        let other = KioskPairingStore.newToken()
        try db.kiosks.pair(name: "Hall", token: other, now: Self.now)
        #expect(try db.kiosks.unpair(id: found.id))
        #expect(try db.kiosks.paired(token: token) == nil, "unpaired: its buttons stop")
        #expect(try db.kiosks.paired(token: other)?.name == "Hall")
        #expect(try db.kiosks.unpair(id: found.id) == false)
    }

    @Test("names follow the one name rule and a length; at most 8 kiosks")
    func bounded() throws {
        let (db, _) = try freshDatabase()
        #expect(throws: StoreError.self) { try db.kiosks.pair(name: "  ", token: KioskPairingStore.newToken(), now: Self.now) }
        #expect(throws: StoreError.self) { try db.kiosks.pair(name: "Kitchen\u{1B}[2J", token: KioskPairingStore.newToken(), now: Self.now) }
        #expect(throws: StoreError.self) { try db.kiosks.pair(name: String(repeating: "k", count: 41), token: KioskPairingStore.newToken(), now: Self.now) }
        for i in 1...KioskPairingStore.maximumPaired { try db.kiosks.pair(name: "Display \(i)", token: KioskPairingStore.newToken(), now: Self.now) }
        #expect(throws: StoreError.self) { try db.kiosks.pair(name: "One more", token: KioskPairingStore.newToken(), now: Self.now) }
        #expect(try db.kiosks.all().count == KioskPairingStore.maximumPaired)
    }
}
