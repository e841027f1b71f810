// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.
import Foundation

/// A file, folder or glob, relative to the manifest, to the root, or to the Swift file that names it.
public struct Path: ExpressibleByStringInterpolation, Codable, Hashable, Sendable {
    /// What a path is relative to.
    public enum PathType: String, Codable, Sendable {
        case relativeToCurrentFile
        case relativeToManifest
        case relativeToRoot
    }

    public var type: PathType
    public var pathString: String
    /// The Swift file a `.relativeToCurrentFile` path was written in.
    public var callerPath: String?

    init(_ pathString: String, type: PathType, callerPath: String? = nil) {
        self.type = type
        self.pathString = pathString
        self.callerPath = callerPath
    }

    /// A path relative to the manifest's folder.
    public static func path(_ path: String) -> Self {
        Path(path, type: .relativeToManifest)
    }

    /// A path relative to the folder of the Swift file that calls this.
    public static func relativeToCurrentFile(_ pathString: String, callerPath: StaticString = #filePath) -> Path {
        Path(pathString, type: .relativeToCurrentFile, callerPath: "\(callerPath)")
    }

    /// A path relative to the folder of the manifest being loaded.
    public static func relativeToManifest(_ pathString: String) -> Path {
        Path(pathString, type: .relativeToManifest)
    }

    /// A path relative to the root: the nearest folder above with a `Tuist` folder or `.git`.
    public static func relativeToRoot(_ pathString: String) -> Path {
        Path(pathString, type: .relativeToRoot)
    }

    /// `~` and `~/…` name the home folder; `//…` is relative to the root; anything else to the manifest.
    public init(stringLiteral: String) {
        if stringLiteral == "~" || stringLiteral.hasPrefix("~/") {
            let home = FileManager.default.homeDirectoryForCurrentUser
            let expanded = stringLiteral == "~" ? home.path : home.appendingPathComponent(String(stringLiteral.dropFirst(2))).path
            self.init(expanded, type: .relativeToRoot)
        } else if stringLiteral.hasPrefix("//") {
            self.init(stringLiteral.replacingOccurrences(of: "//", with: ""), type: .relativeToRoot)
        } else {
            self.init(stringLiteral, type: .relativeToManifest)
        }
    }
}
