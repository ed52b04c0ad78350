import Foundation
import GRDB

/// #48: what the box said of its start, for the pages when its socket does not answer: it
/// waits for a board, starts with one, runs, could not start (with its one line and the next
/// step), or stopped. Written by `questbox run` only; `at` is a calendar fact ("since 07:12").
public struct BoxStartRecord: Equatable, Sendable {
    public enum State: String, CaseIterable, Sendable {
        case waiting, starting, running, failed, stopped
    }

    public var state: State
    public var board: String?
    /// Why it could not start, in one line (failed only).
    public var reason: String?
    public var at: Date

    public init(state: State, board: String? = nil, reason: String? = nil, at: Date) {
        self.state = state
        self.board = board
        self.reason = reason
        self.at = at
    }

    /// Longest reason kept (one line).
    static let maximumReasonBytes = 512
    /// Longest board name kept: a profile's name is at most this (`StoredSettings.isBoardName`).
    static let maximumBoardBytes = StoredSettings.maximumBoardNameBytes
}

extension QuestDatabase {
    /// Keeps what the box says of its start (the board and the reason cut to what the store
    /// keeps, on one line).
    public func recordBoxStart(_ record: BoxStartRecord) throws {
        try pool.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO boxStart (id, state, board, reason, at) VALUES (1, ?, ?, ?, ?)",
                arguments: [
                    record.state.rawValue, record.board.map { Self.storable($0, bytes: BoxStartRecord.maximumBoardBytes) },
                    record.reason.map { Self.storable($0, bytes: BoxStartRecord.maximumReasonBytes) }, record.at.timeIntervalSince1970,
                ])
        }
    }

    /// What the box last said of its start, or nil (never started since this store has the
    /// table, or a row that breaks its rules).
    public func boxStart() throws -> BoxStartRecord? {
        try pool.read { db in
            guard try db.tableExists("boxStart"),
                  let row = try Row.fetchOne(db, sql: "SELECT * FROM boxStart WHERE id = 1 AND \(RowRules.valid("boxStart"))"),
                  let state = BoxStartRecord.State(rawValue: row["state"])
            else { return nil }
            return BoxStartRecord(state: state, board: row["board"], reason: row["reason"], at: Date(timeIntervalSince1970: row["at"]))
        }
    }
}
