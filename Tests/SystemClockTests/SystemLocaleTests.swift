import Foundation
import Testing
import QuestCore
@testable import SystemClock

/// #48: pages and pushes follow the box's locale for the time of day, read from glibc's own
/// locale data. The locales are made here from glibc's sources (Debian's `locales`, which
/// test.sh installs) into a folder of this test's, as `locale-gen` makes them on a Pi.
@Suite("The box's locale: its clock from glibc's LC_TIME", .serialized)
struct SystemLocaleTests {
    @Test("LC_ALL, then LC_TIME, then LANG, else C; an empty one does not count")
    func precedence() {
        #expect(SystemLocale.timeLocale(environment: [:]) == "C")
        #expect(SystemLocale.timeLocale(environment: ["LANG": "en_US.UTF-8"]) == "en_US.UTF-8")
        #expect(SystemLocale.timeLocale(environment: ["LANG": "en_US.UTF-8", "LC_TIME": "en_GB.UTF-8"]) == "en_GB.UTF-8")
        #expect(SystemLocale.timeLocale(environment: ["LANG": "en_US.UTF-8", "LC_TIME": "en_GB.UTF-8", "LC_ALL": "de_DE.UTF-8"]) == "de_DE.UTF-8")
        #expect(SystemLocale.timeLocale(environment: ["LANG": "en_US.UTF-8", "LC_ALL": ""]) == "en_US.UTF-8")
    }

    @Test("C, an unknown or hostile name: C's 24-hour format")
    func fallBack() {
        for name in ["C", "POSIX", "C.UTF-8", "xx_YY.UTF-8", "", "../../etc/passwd", "en_US\u{0}", String(repeating: "a", count: 500)] {
            #expect(SystemLocale.timeFormat(locale: name) == "%H:%M:%S", "\(name.prefix(20))")
        }
    }

    @Test("en_US and en_CA count twelve hours; en_GB, de_DE and fr_FR 24 (glibc's data)")
    func realLocales() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("questbox-tests-locales-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let names = ["en_US", "en_CA", "en_GB", "de_DE", "fr_FR"]
        for name in names {
            let make = Process()
            make.executableURL = URL(fileURLWithPath: "/usr/bin/localedef")
            make.arguments = ["-i", name, "-f", "UTF-8", folder.appendingPathComponent("\(name).UTF-8").path]
            make.standardOutput = FileHandle.nullDevice
            make.standardError = FileHandle.nullDevice
            try make.run()
            make.waitUntilExit()
            #expect(make.terminationStatus == 0, "localedef -i \(name) (is Debian's locales installed?)")
        }
        // glibc reads LOCPATH on every newlocale: the locales made above, nothing of the system's.
        setenv("LOCPATH", folder.path, 1)
        defer { unsetenv("LOCPATH") }
        let styles = Dictionary(uniqueKeysWithValues: names.map { ($0, ClockStyle(posixTimeFormat: SystemLocale.timeFormat(environment: ["LANG": "\($0).UTF-8"]))) })
        #expect(styles == ["en_US": .twelveHour, "en_CA": .twelveHour, "en_GB": .twentyFourHour, "de_DE": .twentyFourHour, "fr_FR": .twentyFourHour])
        #expect(SystemLocale.timeFormat(locale: "en_US.UTF-8") == "%r")
    }
}
