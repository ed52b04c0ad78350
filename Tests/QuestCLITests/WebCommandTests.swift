import Foundation
import TestSupport
import Testing
@testable import QuestCLI

@Suite("questbox web")
struct WebCommandTests {
    @Test("finds questbox-web beside the running program, through its link; none there is nil")
    func findsTheWebProgram() throws {
        let dir = NSTemporaryDirectory() + "questbox-web-cmd-\(UUID().uuidString.prefix(8))"
        let bin = dir + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: bin + "/questbox", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755]))
        try FileManager.default.createSymbolicLink(atPath: dir + "/exe", withDestinationPath: bin + "/questbox")
        #expect(WebCommand.webProgram(executable: dir + "/exe") == nil)
        #expect(FileManager.default.createFile(atPath: bin + "/questbox-web", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o644]))
        #expect(WebCommand.webProgram(executable: dir + "/exe") == nil, "not executable")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin + "/questbox-web")
        #expect(WebCommand.webProgram(executable: dir + "/exe") == bin + "/questbox-web")
    }
}
