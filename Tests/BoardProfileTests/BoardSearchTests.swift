import BoardProfile
import Foundation
import TestSupport
import Testing

/// #48: "Started outside the source tree, the web app lists no boards": the installed and
/// the built program find their profiles wherever they are started.
@Suite("#48: board profiles found wherever the program starts")
struct BoardSearchTests {
    @Test("#48: a program built in a source tree (.build/<triple>/<configuration>/) searches the tree's Boards; one outside a tree does not")
    func builtInATree() throws {
        let tree = temporaryDirectory()
        let fm = FileManager.default
        try fm.createDirectory(atPath: tree + "/Boards", withIntermediateDirectories: true)
        let exe = tree + "/.build/x86_64-unknown-linux-gnu/debug/questbox-web"
        #expect(!BoardCatalog.searchDirectories(environment: [:], executable: exe).contains(tree + "/Boards"), "no Package.swift: not a source tree")
        #expect(fm.createFile(atPath: tree + "/Package.swift", contents: Data("// swift-tools-version:6.0\n".utf8)))
        #expect(BoardCatalog.searchDirectories(environment: [:], executable: exe).contains(tree + "/Boards"))
        // An installed program: its prefix's share folder.
        #expect(BoardCatalog.searchDirectories(environment: [:], executable: "/opt/qb/bin/questbox").contains("/opt/qb/share/questbox/boards"))
    }

    @Test("#48: the running program is its real file, not argv[0]")
    func runningExecutable() {
        let exe = BoardCatalog.runningExecutable()
        #expect(exe.hasPrefix("/") && FileManager.default.isExecutableFile(atPath: exe), "\(exe)")
    }

    @Test("#48: the built questbox started from / lists the source tree's boards")
    func listedFromRoot() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: productPath("questbox"))
        process.arguments = ["boards", "list"]
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        process.environment = ["PATH": "/usr/bin:/bin"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0 && text.contains("questbox-sim"), "\(text)")
    }
}
