// swift-tools-version: 6.1
import PackageDescription

// The toolchain's ICU names its C functions with a swift_ prefix from Swift 6.3 on (earlier
// toolchains, Debian's 6.2 that builds for arm64 among them, without): CConfusables calls them.
#if compiler(>=6.3)
let icuNaming: [CSetting] = [.define("QUESTBOX_ICU_SWIFT_PREFIX")]
#else
let icuNaming: [CSetting] = []
#endif

// QuestCore is the pure game: rules and the quest state machine. Everything else is the
// imperative shell around it, one job per module: the clock, the SQLite store, the CLI.
let package = Package(
    name: "TimeQuestBox",
    products: [
        .library(name: "QuestCore", targets: ["QuestCore"]),
        .library(name: "QuestStore", targets: ["QuestStore"]),
        .executable(name: "questbox", targets: ["questbox"]),
        .executable(name: "questbox-web", targets: ["questbox-web"]),
        .executable(name: "questbox-link", targets: ["questbox-link"]),
        .executable(name: "core-bench", targets: ["CoreBench"]),
        .executable(name: "store-bench", targets: ["StoreBench"]),
        .executable(name: "daemon-figures", targets: ["DaemonFigures"]),
        .executable(name: "sound-recipe", targets: ["SoundRecipe"]),
        .executable(name: "sound-figures", targets: ["SoundFigures"]),
        .executable(name: "link-figures", targets: ["LinkFigures"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .target(name: "QuestCore"),
        // The version from `git describe`, written before every build (scripts/version.sh).
        .plugin(name: "VersionStamp", capability: .buildTool()),
        .target(name: "BuildVersion", plugins: ["VersionStamp"]),
        // Reading files handed to the box as hostile input: regular files only, size-capped.
        .target(name: "InputFiles"),
        .target(name: "BoardProfile", dependencies: ["Yams", "InputFiles", "QuestCore"]),
        // The box's own screen: frames, the pixel font, and every screen drawn (#14).
        .target(name: "ScreenRender", dependencies: ["QuestCore"]),
        // The screen's devices: an SSD1306/SH1106 over i2c-dev, or a framebuffer (ioctls in C).
        .target(name: "CDisplay"),
        .target(name: "Display", dependencies: ["CDisplay", "CSystemClock", "ScreenRender", "BoardProfile", "QuestCore"]),
        // The routine format the parent writes (JSON file, web form): parsed strictly, checked field by field.
        .target(name: "RoutineFormat", dependencies: ["QuestCore"]),
        // libgpiod 1.6 (v1 API) or 2.x (v2 API): the shim picks at compile time.
        .systemLibrary(name: "CLibGPIOD", pkgConfig: "libgpiod", providers: [.apt(["libgpiod-dev"])]),
        .target(name: "CGPIOD", dependencies: ["CLibGPIOD"]),
        .target(name: "GPIO", dependencies: ["CGPIOD", "BoardProfile", "QuestCore"]),
        .target(name: "CEventLoop"),
        // ALSA's libasound: one PCM kept open, a mixer thread writing periods (SPEC §6).
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .target(name: "CAudioShim", dependencies: ["CALSA"]),
        .target(name: "Audio", dependencies: ["CAudioShim", "CEventLoop", "CSystemClock", "InputFiles", .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "BoxRuntime",
            dependencies: ["QuestCore", "QuestStore", "GPIO", "SystemClock", "CSystemClock", "CEventLoop", "Audio", "Speech", "BoxProtocol", "Display", "ScreenRender", "BuildVersion", .product(name: "Logging", package: "swift-log")]),
        // The running box's local socket: its JSON-lines messages and a client (docs/box-protocol.md).
        .target(name: "BoxProtocol", dependencies: ["QuestCore", "CEventLoop"]),
        .target(name: "CSystemClock"),
        // SHA-256, HMAC and scrypt from OpenSSL's libcrypto, opened at first use (see its header).
        .target(name: "CLibCrypto", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "Hashing", dependencies: ["CLibCrypto"]),
        .target(name: "SystemClock", dependencies: ["CSystemClock"]),
        .target(
            name: "QuestStore",
            dependencies: [
                "QuestCore", "SystemClock", "InputFiles",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "Hashing",
            ]),
        // What every surface shows from the store: the stats report, the settings catalog.
        .target(name: "QuestReports", dependencies: ["QuestCore", "QuestStore", "BoardProfile", "HomeLink"]),
        .target(
            name: "QuestCLI",
            dependencies: [
                "QuestCore", "QuestStore", "QuestReports", "SystemClock", "BoardProfile", "GPIO", "BoxRuntime", "InputFiles", "BoxProtocol", "RoutineFormat", "BuildVersion",
                "Display", "ScreenRender", "Speech", "Audio", "CEventLoop",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(name: "questbox", dependencies: ["QuestCLI"]),
        .target(name: "HistoryFixtures", dependencies: ["QuestCore"], path: "Benchmarks/HistoryFixtures"),
        .executableTarget(name: "CoreBench", dependencies: ["QuestCore", "HistoryFixtures"], path: "Benchmarks/CoreBench"),
        .executableTarget(name: "StoreBench", dependencies: ["QuestStore", "HistoryFixtures"], path: "Benchmarks/StoreBench"),
        .executableTarget(
            name: "DaemonFigures",
            dependencies: ["BoxRuntime", "GPIO", "BoardProfile", "QuestStore", "SystemClock", "CEventLoop", "HistoryFixtures", .product(name: "Logging", package: "swift-log")],
            path: "Benchmarks/DaemonFigures"),
        .executableTarget(
            name: "SoundFigures",
            dependencies: ["Audio", "BoxRuntime", "GPIO", "BoardProfile", "QuestStore", "QuestCore", "SystemClock", "HistoryFixtures", .product(name: "Logging", package: "swift-log")],
            path: "Benchmarks/SoundFigures"),
        // #34: many boxes on one broker: latency, messages per second, the broker's CPU.
        .executableTarget(name: "LinkFigures", dependencies: ["MQTT", "BoxProtocol"], path: "Benchmarks/LinkFigures"),
        // libFuzzer over routine JSON, events and board YAML (Tests/Fuzz/run.sh; never shipped).
        .target(name: "FuzzTargets", dependencies: ["QuestCLI", "RoutineFormat", "BoardProfile"], path: "Tests/Fuzz/FuzzTargets"),
        .executableTarget(name: "FuzzInputs", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/FuzzInputs"),
        // What the test targets share: history written straight into a store, temporary
        // folders, the built programs and running them (never shipped).
        .target(name: "TestSupport", dependencies: ["QuestStore", "QuestCore"], path: "Tests/TestSupport"),
        .target(name: "AudioTestSupport", dependencies: ["Audio", .product(name: "Logging", package: "swift-log")], path: "Tests/AudioTestSupport"),
        // Writes plays in a loop for the crash-safety test to kill (never shipped).
        .executableTarget(name: "StoreCrashWriter", dependencies: ["QuestStore", "SystemClock"], path: "Tests/StoreCrashWriter"),
        // The recipe that makes Sounds/*.wav (run by Sounds/make.sh).
        .executableTarget(name: "SoundRecipe", dependencies: ["Audio", "QuestCore"], path: "Sounds/Recipe"),
        // The family's web app (its own process): Hummingbird, templates as resources.
        .target(
            name: "WebApp",
            dependencies: [
                "QuestCore", "QuestStore", "QuestReports", "HomeLink", "BoxProtocol", "RoutineFormat", "SystemClock", "CEventLoop", "InputFiles", "BuildVersion", "BoardProfile",
                "ConfusableNames",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "Hashing",
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/templates"), .copy("Resources/assets")]),
        // #34: the box in the house: what is told (pure), libmosquitto, and the link's process.
        .target(name: "HomeLink", dependencies: ["QuestCore"]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // libespeak-ng is opened when the box first speaks (dlopen), not linked (see its header).
        .target(name: "CEspeakNG", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "Speech", dependencies: ["CEspeakNG", "Audio", "QuestCore", "InputFiles"]),
        .target(name: "MQTT", dependencies: ["CMosquitto"]),
        // libcurl for the pushes to phones (its setopt is variadic: a C function over it).
        .target(name: "CPushHTTP", linkerSettings: [.linkedLibrary("curl")]),
        // #47: names compared by TR39's confusable skeleton, through the toolchain's own ICU.
        .target(name: "CConfusables", cSettings: icuNaming, linkerSettings: [.linkedLibrary("_FoundationICU")]),
        .target(name: "ConfusableNames", dependencies: ["CConfusables"]),
        .target(
            name: "HomeLinkService",
            dependencies: ["HomeLink", "MQTT", "CPushHTTP", "QuestCore", "QuestStore", "BoxProtocol", "SystemClock", .product(name: "Logging", package: "swift-log")]),
        .executableTarget(
            name: "questbox-link",
            dependencies: ["HomeLinkService", "QuestStore", "BoxProtocol", "BuildVersion", .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "Logging", package: "swift-log")]),
        .executableTarget(
            name: "questbox-web",
            dependencies: ["WebApp", "QuestStore", "BoxProtocol", "CEventLoop", "BuildVersion", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .testTarget(name: "QuestCoreTests", dependencies: ["QuestCore"]),
        .testTarget(name: "SystemClockTests", dependencies: ["SystemClock", "QuestCore"]),
        .testTarget(name: "CEventLoopTests", dependencies: ["CEventLoop"]),
        .testTarget(name: "HashingTests", dependencies: ["Hashing"]),
        .testTarget(name: "DisplayTests", dependencies: ["Display", "ScreenRender", "BoardProfile", "QuestCore"]),
        .testTarget(name: "ScreenRenderTests", dependencies: ["ScreenRender", "QuestCore"], exclude: ["Frames"]),
        // #32: a family's weeks through the daemon on a fake clock (scenario files in Tests/Family/Scenarios).
        .testTarget(
            name: "FamilyTests",
            dependencies: ["BoxRuntime", "BoxProtocol", "GPIO", "BoardProfile", "QuestStore", "QuestCore", "QuestReports", "SystemClock", .product(name: "Logging", package: "swift-log")],
            path: "Tests/Family", exclude: ["Scenarios"]),
        .testTarget(
            name: "WebAppTests",
            dependencies: [
                "WebApp", "QuestCore", "QuestStore", "QuestReports", "BoxProtocol", "TestSupport", "BuildVersion", "ConfusableNames",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(name: "BoxProtocolTests", dependencies: ["BoxProtocol", "QuestCore"]),
        // Home Assistant's discovery schema as written down, and Debian's Mosquitto on a loopback port.
        .target(name: "HomeLinkTestSupport", dependencies: ["HomeLink"], path: "Tests/HomeLinkTestSupport"),
        .testTarget(name: "MQTTTests", dependencies: ["MQTT", "HomeLinkTestSupport"]),
        .testTarget(name: "HomeLinkTests", dependencies: ["HomeLink", "HomeLinkTestSupport", "QuestCore", "QuestStore"]),
        // The link (questbox-link, HomeLinkService) against a real Mosquitto and push endpoint.
        .testTarget(
            name: "HomeLinkServiceTests",
            dependencies: ["HomeLink", "HomeLinkService", "HomeLinkTestSupport", "MQTT", "QuestCore", "QuestStore", "BoxProtocol", "TestSupport", "questbox-link", "questbox"],
            exclude: ["Fixtures"]),
        .testTarget(name: "RoutineFormatTests", dependencies: ["RoutineFormat", "QuestCore"]),
        .testTarget(name: "SpeechTests", dependencies: ["Speech", "Audio", "BoxRuntime", "QuestCore", "TestSupport", "questbox", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "AudioTests", dependencies: ["Audio", "AudioTestSupport", "BoxRuntime", "QuestCore", "Speech", "SoundRecipe", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "GPIOTests", dependencies: ["GPIO", "BoardProfile", "QuestCore"]),
        .testTarget(
            name: "BoxRuntimeTests",
            dependencies: [
                "BoxRuntime", "GPIO", "BoardProfile", "QuestCore", "ScreenRender", "QuestStore", "SystemClock", "BoxProtocol", "CEventLoop",
                // VoiceProcessTests run `questbox voice serve`, the box's voice process.
                "Audio", "AudioTestSupport", "Speech", "TestSupport", "questbox", .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "QuestStoreTests",
            dependencies: [
                "QuestStore", "QuestCore", "SystemClock", "StoreCrashWriter", "questbox", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            exclude: ["Fixtures"]),
        .testTarget(name: "QuestReportsTests", dependencies: ["QuestReports", "QuestStore", "QuestCore", "questbox", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "BoardProfileTests", dependencies: ["BoardProfile", "questbox", "TestSupport"]),
        .testTarget(
            name: "QuestCLITests",
            dependencies: [
                "QuestCLI", "QuestStore", "QuestCore", "RoutineFormat", "BoardProfile", "GPIO", "BoxRuntime", "BoxProtocol", "Audio", "Display",
                "ScreenRender", "questbox", "FuzzTargets", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)

// QUESTBOX_PURE_MODULES=1 (Tests/Arm64/run.sh): only the pure modules and their tests, which
// the arm64 build runs under qemu-user; the rest of the tests needs devices, sockets, a
// broker and subprocesses of this machine's architecture. BoardProfile's tests come without
// their two that run the `questbox` program (compiled out by QUESTBOX_PURE_MODULES), and
// TestSupport as its Foundation-only part.
if Context.environment["QUESTBOX_PURE_MODULES"] != nil {
    let pure: Set = [
        "QuestCore", "InputFiles", "ScreenRender", "RoutineFormat", "BoxProtocol", "CEventLoop", "BoardProfile", "TestSupport",
        "QuestCoreTests", "ScreenRenderTests", "RoutineFormatTests", "BoxProtocolTests", "BoardProfileTests",
    ]
    package.targets.removeAll { !pure.contains($0.name) }
    for target in package.targets {
        switch target.name {
        case "TestSupport":
            target.dependencies = []
            target.sources = ["Processes.swift"]
        case "BoardProfileTests":
            target.dependencies = ["BoardProfile", "TestSupport"]
            target.swiftSettings = [.define("QUESTBOX_PURE_MODULES")]
        default: break
        }
    }
    package.products = []
    package.dependencies.removeAll { dependency in
        guard case .sourceControl(_, let location, _) = dependency.kind else { return true }
        return !location.hasSuffix("/Yams")
    }
}
