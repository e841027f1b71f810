import Foundation
import MAMModel

/// Where a Strict Mode finding's source file is in the repository, for code scanning: the
/// façade reports Swift's `#fileID` (`Module/File.swift`), which SwiftPM builds from
/// `Sources/Module/File.swift` of the package that built the app's program. The package is the
/// folder above the program's `.build`; the path is said relative to the git repository that
/// holds the file, else to that package. `nil` when no such file is there.
enum StrictSources {
    static func path(of fileID: String, program: URL?) -> String? {
        guard let program, fileID.contains("/"), !fileID.hasPrefix("/"), !fileID.contains(".."), !fileID.contains(":"), UntrustedText.isSafe(fileID) else { return nil }
        let fm = FileManager.default
        var folder = program.standardizedFileURL.deletingLastPathComponent()
        while folder.path != "/" && !folder.lastPathComponent.hasPrefix(".build") {
            folder.deleteLastPathComponent()
        }
        guard folder.path != "/" else { return nil }
        let package = folder.deletingLastPathComponent()
        let source = package.appendingPathComponent("Sources").appendingPathComponent(fileID).standardizedFileURL
        guard fm.fileExists(atPath: source.path) else { return nil }
        let root = repository(holding: package) ?? package
        let base = root.standardizedFileURL.path + "/"
        let full = source.path
        return full.hasPrefix(base) ? String(full.dropFirst(base.count)) : nil
    }

    /// The git repository `folder` is in, if any.
    static func repository(holding folder: URL) -> URL? {
        var candidate = folder.standardizedFileURL
        while candidate.path != "/" {
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent(".git").path) { return candidate }
            candidate.deleteLastPathComponent()
        }
        return nil
    }
}
