import Foundation
import QuestStore

/// What the web app needs of the paired browsers' records (#49: a store protocol per area, as
/// in Hummingbird's examples, so the kiosk pages' tests can run on a fake): the store's
/// `KioskPairingStore` in the running app.
protocol PairedBrowserStore: Sendable {
    func pair(name: String, token: String, now: Date, canPress: Bool) throws
    func all() throws -> [PairedKiosk]
    func paired(token: String) throws -> PairedKiosk?
    func unpair(id: Int64) throws -> Bool
}

extension KioskPairingStore: PairedBrowserStore {}
