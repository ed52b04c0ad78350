// swift-tools-version: 6.1
import PackageDescription

// QuestCore is the pure game: rules and the quest state machine. Hardware, storage and
// sound live in their own modules (later issues) and only feed it events.
let package = Package(
    name: "TimeQuestBox",
    products: [
        .library(name: "QuestCore", targets: ["QuestCore"]),
        .executable(name: "questbox-demo", targets: ["questbox-demo"]),
        .executable(name: "core-bench", targets: ["CoreBench"]),
    ],
    targets: [
        .target(name: "QuestCore"),
        .executableTarget(name: "questbox-demo", dependencies: ["QuestCore"]),
        .executableTarget(name: "CoreBench", dependencies: ["QuestCore"], path: "Benchmarks/CoreBench"),
        .testTarget(name: "QuestCoreTests", dependencies: ["QuestCore"]),
    ],
    swiftLanguageModes: [.v6]
)
