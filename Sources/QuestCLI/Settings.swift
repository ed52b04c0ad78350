import ArgumentParser
import Foundation
import QuestCore
import QuestStore
import QuestReports

/// `questbox settings`: every stored setting, read and changed by key.
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings", abstract: "List, read or change the box's settings (a running box follows at once).",
        subcommands: [List.self, Get.self, Set.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every setting with its value and what it accepts.")
        @Flag(name: .long, help: "Print JSON.") var json = false
        @OptionGroup var options: DataOptions

        func run() throws {
            let db = try options.open(access: .readOnly)
            let values = SettingsCatalog.list(try db.settings.current(), routines: try db.routines.all())
            if json { return try printJSON(values) }
            let width = values.map { DisplayText.escaped($0.key).count }.max() ?? 0
            for v in values {
                let key = DisplayText.escaped(v.key)
                print(key + String(repeating: " ", count: width - key.count) + "  " + v.value + "  (" + v.allowed + ")")
            }
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One setting's value.")
        @Argument(help: "The setting's key (see `questbox settings`).") var key: String
        @Flag(name: .long, help: "Print JSON.") var json = false
        @OptionGroup var options: DataOptions

        func run() throws {
            let db = try options.open(access: .readOnly)
            let value = try SettingsCatalog.value(of: key, in: try db.settings.current(), routines: try db.routines.all())
            if json { return try printJSON(value) }
            print(value.value)
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change one setting; a bad key or value changes nothing.")
        @Argument(help: "The setting's key (see `questbox settings`).") var key: String
        // Unrecognized-parsing lets a value start with "-" ("-1" is refused by the setting, not
        // taken for an option).
        @Argument(parsing: .allUnrecognized, help: "The new value.") var value: [String]
        @Flag(name: .long, help: "Print JSON.") var json = false
        @OptionGroup var options: DataOptions

        func validate() throws {
            guard value.count == 1 else { throw ValidationError(value.isEmpty ? "Missing expected argument '<value>'" : "one value, got \(value.count)") }
        }

        func run() throws {
            let db = try options.open()
            let changed = try SettingsCatalog.set(key, to: value[0], in: db.settings)
            BoxNotifier.reload(options)
            if json { return try printJSON(changed) }
            print("\(DisplayText.escaped(changed.key)) = \(changed.value)")
        }
    }
}
