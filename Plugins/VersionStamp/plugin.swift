import Foundation
import PackagePlugin

/// Runs scripts/version.sh before every build: the version follows the checkout's commit
/// without a step to remember, and an unchanged version leaves the file (and the build) alone.
@main
struct VersionStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        let script = context.package.directoryURL.appending(path: "scripts/version.sh")
        return [
            .prebuildCommand(
                displayName: "Version from git describe",
                executable: URL(filePath: "/bin/sh"),
                arguments: [script.path, "--swift", output.appending(path: "BuildVersionText.swift").path],
                outputFilesDirectory: output)
        ]
    }
}
