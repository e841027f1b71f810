import Foundation
import MAMActivation
import MAMBundle
import MAMPolicy

/// The Intune App SDK version a project resolves (a SwiftPM `Package.resolved`, a CocoaPods
/// `Podfile.lock`) judged against Microsoft's dated requirements (SDKVersionFloors): one
/// `intune-sdk-version` warning per requirement it falls under, located at the pin.
enum SDKVersionLint {
    /// The SDK's repository (SwiftPM) and pod names.
    static let packageIdentities: Set<String> = ["ms-intune-app-sdk-ios"]
    static let pods = ["IntuneMAMSwift", "IntuneMAMStatic", "IntuneMAM"]
    /// Folders a lock file of the project's own is never in.
    static let skipped: Set<String> = ["Pods", ".build", "DerivedData", "node_modules", "Carthage", ".git", "build"]

    static func reports(root: URL, displayName: String) -> [LintReport] {
        var findings: [LintFinding] = []
        for file in lockFiles(under: root) {
            guard let text = InputFile.text(of: file, limit: 8 << 20) else { continue }
            let pinned = file.lastPathComponent == "Podfile.lock" ? podVersion(text) : packageVersion(text)
            guard let (version, keyPath) = pinned else { continue }
            let shown = ProjectLinter.relative(file, to: root)
            for notice in SDKVersionFloors.notices(for: version) {
                findings.append(LintFinding(.warning, rule: "intune-sdk-version", file: shown, keyPath: keyPath,
                                            problem: "the project resolves Intune App SDK \(version): \(notice.says) (\(notice.since); \(notice.source))",
                                            fix: "update the Intune App SDK (21.1.0 or later for Xcode 26, 20.8.0 or later for Xcode 16) and resolve the packages again"))
            }
        }
        return findings.isEmpty ? [] : [LintReport(folder: displayName, findings: findings)]
    }

    /// `Package.resolved` and `Podfile.lock` files within four folders of `root`.
    static func lockFiles(under root: URL) -> [URL] {
        var found: [URL] = []
        var queue: [(URL, Int)] = [(root, 0)]
        while let (folder, depth) = queue.first {
            queue.removeFirst()
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
            for name in names where !skipped.contains(name) {
                let url = folder.appendingPathComponent(name)
                if name == "Package.resolved" || name == "Podfile.lock" { found.append(url); continue }
                var isDirectory: ObjCBool = false
                guard depth < 4, FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue,
                      (try? url.resourceValues(forKeys: [.isSymbolicLinkKey]).isSymbolicLink) != true else { continue }
                queue.append((url, depth + 1))
            }
            if found.count > 64 { break }
        }
        return found
    }

    /// The SDK's pinned version in a `Package.resolved` (format 1: `object.pins[].package`;
    /// 2 and 3: `pins[].identity`), with where it is.
    static func packageVersion(_ text: String) -> (String, String)? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return nil }
        let pins = (object["pins"] ?? (object["object"] as? [String: Any])?["pins"]) as? [[String: Any]] ?? []
        for pin in pins {
            let identity = (pin["identity"] as? String ?? pin["package"] as? String ?? "").lowercased()
            let location = pin["location"] as? String ?? pin["repositoryURL"] as? String ?? ""
            guard packageIdentities.contains(identity) || location.lowercased().contains("ms-intune-app-sdk-ios"),
                  let version = (pin["state"] as? [String: Any])?["version"] as? String else { continue }
            return (version, "pins[\(identity)].state.version")
        }
        return nil
    }

    /// `  - IntuneMAMSwift (21.3.0)` in a `Podfile.lock`'s PODS.
    static func podVersion(_ text: String) -> (String, String)? {
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces).drop { $0 == "-" || $0 == " " }
            for pod in pods where trimmed.hasPrefix(pod + " (") || trimmed.hasPrefix(pod + "/") {
                guard let open = trimmed.firstIndex(of: "("), let close = trimmed.firstIndex(of: ")"), open < close else { continue }
                return (String(trimmed[trimmed.index(after: open)..<close]), "PODS.\(pod)")
            }
        }
        return nil
    }
}
