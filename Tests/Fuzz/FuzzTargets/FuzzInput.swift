import BoardProfile
import Foundation
import QuestCLI
import RoutineFormat

/// The three file formats the box reads from people, behind one entry for the fuzzer
/// (`Tests/Fuzz`) and for the corpus replay in the unit tests. The first byte picks the
/// format; the rest is the file. Every outcome but a crash or a hang is fine: refusals are
/// the expected answer to almost all of it.
public enum FuzzInput {
    public enum Format: UInt8, CaseIterable, Sendable {
        case routineJSON = 0, events = 1, boardYAML = 2
    }

    /// Parses `bytes` as the format its first byte names (modulo the formats); returns
    /// whether the file was accepted.
    @discardableResult
    public static func check(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first, let format = Format(rawValue: first % UInt8(Format.allCases.count)) else { return false }
        let file = Array(bytes.dropFirst())
        switch format {
        case .routineJSON:
            guard file.count <= RoutineDocument.maximumBytes else { return false }
            return (try? RoutineDocument.parse(Data(file), file: "fuzz.json")) != nil
        case .events:
            guard file.count <= EventScript.maximumBytes, let text = String(validating: file, as: UTF8.self) else { return false }
            return (try? EventScript.parse(text, file: "fuzz.events")) != nil
        case .boardYAML:
            guard file.count <= BoardProfile.maximumBytes, let text = String(validating: file, as: UTF8.self) else { return false }
            return (try? BoardProfile.parse(text, file: "fuzz.yaml")) != nil
        }
    }
}
