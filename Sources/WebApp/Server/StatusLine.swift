import Foundation
import QuestCore

/// What the last change did, as the redirect after it says: a word from a fixed list and
/// the thing it names (a routine's id, a backup's file name), looked up here, so no text in
/// an address ever becomes a status line (#31: `/parent?done=The box was reset. Enter your
/// PIN at http://evil…` was printed as one).
enum StatusLine: String, CaseIterable {
    case routineSaved = "saved"
    case routinePaused = "paused"
    case routineOffered = "offered"
    case routineRemoved = "removed"
    case backupMade = "backup-made"
    case restored
    case pinResetCancelled = "pin-reset-cancelled"

    /// The routine's status line; the name comes from the store (a removed one has none).
    func text(routine: Routine?) -> String? {
        let name = routine.map { "“\($0.displayName.isEmpty ? $0.name : $0.displayName)”" }
        switch self {
        case .routineSaved: return name.map { "\($0) is saved" }
        // #48: one word for a routine not offered, the player's and the parent's ("set
        // aside"); "paused" is a quest stopped part-way (GAME-7).
        case .routinePaused: return name.map { "\($0) is set aside; its plays stay" }
        case .routineOffered: return name.map { "\($0) is offered again" }
        case .routineRemoved: return "The routine is removed; its plays stay in the history"
        case .pinResetCancelled: return "The new PIN is cancelled; your PIN stays"
        case .backupMade, .restored: return nil
        }
    }

    /// The backups page's status line; the file must be one of the listed backups.
    func text(backup file: String?, listed: [String]) -> String? {
        guard let file, listed.contains(file) else { return nil }
        switch self {
        case .backupMade: return "Backup \(file) is made"
        case .restored: return "Restored from the uploaded backup; the data it replaced is saved as \(file)"
        case .routineSaved, .routinePaused, .routineOffered, .routineRemoved, .pinResetCancelled: return nil
        }
    }
}
