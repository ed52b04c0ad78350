import Foundation
import Mustache

/// The web app's templates and assets, read once at start from the resource folder
/// (`templates/*.mustache`, `assets/*`). A request never names a file: assets are served
/// from this table, so no path outside it can be reached.
public struct WebResources: Sendable {
    public let templates: MustacheLibrary
    /// File name → (content type, bytes).
    public let assets: [String: (type: String, bytes: [UInt8])]

    /// The largest asset read; anything bigger in the folder is refused at start.
    static let maximumAssetBytes = 512 * 1024

    public init(directory: String) async throws {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: directory + "/templates", isDirectory: &isDirectory), isDirectory.boolValue else {
            throw WebError("\(directory)/templates: no template folder (set --resources or QUESTBOX_WEB_RESOURCES)")
        }
        do {
            templates = try await MustacheLibrary(directory: directory + "/templates")
        } catch {
            throw WebError("\(directory)/templates: \(error)")
        }
        var assets: [String: (String, [UInt8])] = [:]
        for name in (try? fm.contentsOfDirectory(atPath: directory + "/assets")) ?? [] {
            let path = directory + "/assets/" + name
            guard let attributes = try? fm.attributesOfItem(atPath: path), attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            guard let size = attributes[.size] as? Int, size <= Self.maximumAssetBytes else {
                throw WebError("\(path): larger than \(Self.maximumAssetBytes) bytes")
            }
            guard let data = fm.contents(atPath: path) else { throw WebError("\(path): cannot be read") }
            assets[name] = (Self.contentType(of: name), [UInt8](data))
        }
        self.assets = assets
    }

    static func contentType(of name: String) -> String {
        switch (name as NSString).pathExtension {
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }

    /// Where the Debian package installs them.
    public static let packagedDirectory = "/usr/share/questbox/web"

    /// Where the resources are: `explicit` (a flag or $QUESTBOX_WEB_RESOURCES), the package's
    /// `/usr/share/questbox/web`, or the folder SwiftPM copied beside the executable.
    public static func locate(explicit: String?, executable: String = CommandLine.arguments.first ?? "") -> String? {
        if let explicit { return explicit }
        let beside = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [packagedDirectory, beside.appendingPathComponent("TimeQuestBox_WebApp.resources").path]
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/templates") }
    }
}

/// A one-line problem with the web app's set-up.
public struct WebError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
