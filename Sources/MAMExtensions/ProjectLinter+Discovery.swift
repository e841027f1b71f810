import Foundation
import MAMActivation
import MAMBundle

// The bundles a path holds where no project names them: app and plugin folders found by walking
// it, a .NET MAUI project's Info.plist and settings, and paths said relative to the root.
extension ProjectLinter {
    // MARK: Discovery

    /// Bundles found by their files: a plist with `CFBundleIdentifier` (not an entitlements
    /// plist), with the `.entitlements` (or MAUI's `Entitlements.plist`) in its folder and the
    /// folder's xcconfigs; an extension is paired with the app whose bundle id prefixes its own.
    static func discover(in root: URL, displayName: String, options: Options) throws(LintInputError) -> [LintReport] {
        let bundles = discoveredBundles(in: root, options: options)
        // A Swift package (the one `init --facade` writes: a team's Intune code as a fleet app)
        // has no bundle; its Swift is read for the SDK's delegate names (DelegateLint), said.
        if bundles.isEmpty, FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            return [LintReport(folder: displayName, findings: [], skipped: "a Swift package with no app bundle (its Swift is read for the SDK's delegate names, delegate-drift)")]
        }
        if bundles.isEmpty {
            throw LintInputError("\(displayName) holds no .xcodeproj, no XcodeGen project.yml and no Info.plist with a CFBundleIdentifier, so there is nothing to lint; name the folder of an app, a plugin or a project (a Tuist or CocoaPods workspace: generate the .xcodeproj first)")
        }
        var seen = Set<LintFinding>()
        let ordered = bundles.sorted { ($0.bundle.manifest?.extensionPointIdentifier == nil) && ($1.bundle.manifest?.extensionPointIdentifier != nil) }
        return ordered.map { entry in
            let folder = relative(entry.url.deletingLastPathComponent(), to: root)
            if entry.bundle.manifest?.extensionPointIdentifier == nil, ProjectInventory.extensionKitPoint(entry.bundle.info) != nil {
                var report = LintReport(folder: displayName, findings: [], skipped: Self.extensionKitSkip)
                report.bundle = folder.isEmpty ? "." : folder
                return report
            }
            var container: BundleFolder?
            if let point = entry.bundle.manifest?.extensionPointIdentifier, !point.isEmpty, let id = entry.bundle.bundleIdentifier {
                container = bundles.map(\.bundle).filter { $0.manifest?.extensionPointIdentifier == nil }
                    .first { app in app.bundleIdentifier.map { id.hasPrefix($0 + ".") } == true }
            }
            var report = Linter.lint(entry.bundle, container: container, folderName: displayName)
            // As for a project's targets: the Intune SDK's requirements only where the SDK is.
            let name = folder.isEmpty ? root.lastPathComponent : folder
            let declared = options.sdkTargets.contains(name) || options.sdkTargets.contains((folder as NSString).lastPathComponent)
            if !declared, !Self.showsIntuneSDK(entry.bundle), !(container.map(Self.showsIntuneSDK) ?? false) {
                report.findings = report.findings.filter { !LintRules.intuneRules.contains($0.rule) }
                report.findings.append(LintFinding(.note, rule: "intune-sdk-absent", file: entry.bundle.infoFile, keyPath: "",
                    problem: "shows no sign of the Intune SDK (no IntuneMAMSettings, no com.microsoft.intune.mam keychain group, no -intunemam URL scheme, no Microsoft.Intune NuGet package): its Intune requirements were not checked",
                    fix: "if it links the SDK (a module added at build time), lint it with --sdk \((folder as NSString).lastPathComponent.isEmpty ? root.lastPathComponent : (folder as NSString).lastPathComponent)"))
            }
            report.bundle = folder.isEmpty ? "." : folder
            report.findings = report.findings.filter { seen.insert($0).inserted }
            return report
        }
    }

    /// The bundles under `root` found by their files (see `discover`), each with its Info.plist.
    static func discoveredBundles(in root: URL, options: Options) -> [(url: URL, bundle: BundleFolder)] {
        let plists = find(in: root) { url in
            url.pathExtension == "plist" && url.lastPathComponent != "Entitlements.plist" && (hasBundleIdentifier(url) || isMAUIInfoPlist(url) || isDotNetAppInfoPlist(url))
        }
        var bundles: [(url: URL, bundle: BundleFolder)] = []
        for plist in plists {
            let folder = plist.deletingLastPathComponent()
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.sorted() ?? []
            let entitlements = names.first { $0.hasSuffix(".entitlements") } ?? names.first { $0 == "Entitlements.plist" }
            var problems: [XCConfig.LoadProblem] = []
            var values: [String: String] = [:]
            for name in names where name.hasSuffix(".xcconfig") {
                values = XCConfig.load(folder.appendingPathComponent(name), name: relative(folder.appendingPathComponent(name), to: root), base: values, root: root, problems: &problems)
            }
            var generated: [String: Any] = [:]
            if isMAUIInfoPlist(plist), let project = mauiProject(above: folder, root: root) {
                generated = project.info
                values.merge(project.settings) { mine, _ in mine }
            }
            var bundle = BundleFolder(infoPlist: plist, infoName: relative(plist, to: root),
                                      entitlements: entitlements.map { folder.appendingPathComponent($0) },
                                      entitlementsName: entitlements.map { relative(folder.appendingPathComponent($0), to: root) },
                                      generatedInfo: generated, buildSettings: BuildSettings(values).overlaid(with: options.buildSettings))
            bundle.problems += problems.map { $0.finding() }
            bundle.intunePackage = intunePackage(near: folder, root: root)
            bundles.append((plist, bundle))
        }
        return bundles
    }

    /// A .NET MAUI app's iOS Info.plist: `Platforms/iOS/Info.plist` (or MacCatalyst), whose
    /// bundle id and versions the project file gives.
    static func isMAUIInfoPlist(_ url: URL) -> Bool {
        let parts = url.pathComponents
        guard parts.count >= 3, url.lastPathComponent == "Info.plist" else { return false }
        return parts[parts.count - 3] == "Platforms" && ["iOS", "MacCatalyst"].contains(parts[parts.count - 2])
    }

    /// A .NET for iOS (Xamarin.iOS) app's `Info.plist`: beside its `.csproj`, its bundle id may
    /// come from the build (`ApplicationId`, `Directory.Build.props`) rather than the file: the
    /// app is still one, given a stand-in where no id can be read.
    static func isDotNetAppInfoPlist(_ url: URL) -> Bool {
        guard url.lastPathComponent == "Info.plist",
              let names = try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) else { return false }
        guard names.contains(where: { $0.hasSuffix(".csproj") }), let text = InputFile.text(of: url, limit: 4 << 20) else { return false }
        return !text.contains("<key>NSExtension</key>") && !text.contains("<key>EXAppExtensionAttributes</key>")
    }

    /// What the nearest `.csproj` above a MAUI platform folder says of the app: `ApplicationId`
    /// (the bundle id), `ApplicationTitle`, `ApplicationDisplayVersion`, `ApplicationVersion`;
    /// its other properties become build settings for `$(...)` references.
    static func mauiProject(above folder: URL, root: URL) -> (info: [String: Any], settings: [String: String])? {
        var current = folder
        for _ in 0..<4 {
            current = current.deletingLastPathComponent()
            let names = (try? FileManager.default.contentsOfDirectory(atPath: current.path))?.sorted() ?? []
            guard let name = names.first(where: { $0.hasSuffix(".csproj") }),
                  let text = InputFile.text(of: current.appendingPathComponent(name)) else {
                if current.standardizedFileURL.path == root.standardizedFileURL.path { return nil }
                continue
            }
            var settings: [String: String] = [:]
            // Unconditional `<Name>value</Name>` properties; conditional ones vary by platform.
            let regex = try? NSRegularExpression(pattern: #"<([A-Za-z][A-Za-z0-9_]*)>([^<]*)</\1>"#)
            let ns = text as NSString
            for match in regex?.matches(in: text, range: NSRange(location: 0, length: ns.length)) ?? [] where settings[ns.substring(with: match.range(at: 1))] == nil {
                settings[ns.substring(with: match.range(at: 1))] = ns.substring(with: match.range(at: 2)).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            var info: [String: Any] = [:]
            let keys = ["ApplicationId": "CFBundleIdentifier", "ApplicationTitle": "CFBundleDisplayName",
                        "ApplicationDisplayVersion": "CFBundleShortVersionString", "ApplicationVersion": "CFBundleVersion"]
            for (property, key) in keys { if let v = settings[property] { info[key] = v } }
            return (info, settings)
        }
        return nil
    }

    /// The Intune NuGet package (`Microsoft.Intune.…`) that the nearest `.csproj` (in the
    /// Info.plist's folder, as Xamarin.iOS keeps it, or above, as .NET MAUI does) references
    /// in a `PackageReference`; `nil` when there is no project or no such reference.
    static func intunePackage(near folder: URL, root: URL) -> String? {
        var current = folder
        for _ in 0..<5 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: current.path))?.sorted() ?? []
            if let name = names.first(where: { $0.hasSuffix(".csproj") }) {
                let file = current.appendingPathComponent(name)
                guard let data = (try? InputFile.contents(of: file)), data.count < 4 << 20 else { return nil }
                let text = String(decoding: data, as: UTF8.self)
                return text.firstMatch(of: #/<PackageReference\s+Include\s*=\s*"(Microsoft\.Intune\.[A-Za-z0-9_.]+)"/#.ignoresCase()).map { String($0.1) }
            }
            if current.standardizedFileURL.path == root.standardizedFileURL.path { return nil }
            current = current.deletingLastPathComponent()
        }
        return nil
    }

    /// Whether the Info.plist at `url` declares an app extension (`NSExtension`, or ExtensionKit's
    /// `EXAppExtensionAttributes`).
    static func isExtensionInfoPlist(_ url: URL) -> Bool {
        guard let text = InputFile.text(of: url, limit: 4 << 20) else { return true }
        return text.contains("<key>NSExtension</key>") || text.contains("<key>EXAppExtensionAttributes</key>") || !text.contains("<key>CFBundleIdentifier</key>")
    }

    static func hasBundleIdentifier(_ url: URL) -> Bool {
        guard let data = (try? InputFile.contents(of: url)), data.count < 4 << 20 else { return false }
        // A built bundle's Info.plist (a prebuilt .appex a .NET app embeds) is binary.
        if data.starts(with: Array("bplist".utf8)) {
            return ((try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [String: Any])?["CFBundleIdentifier"] != nil
        }
        return String(decoding: data, as: UTF8.self).contains("<key>CFBundleIdentifier</key>")
    }

    /// Files (or `.xcodeproj` folders) under `root` matching `accept`, sorted, not descending
    /// into skipped folders, packages or hidden folders; at most 10,000 entries are looked at.
    static func find(in root: URL, _ accept: (URL) -> Bool) -> [URL] {
        var found: [URL] = []
        var queue = [root]
        var visited = 0
        while let folder = queue.first, visited < 10_000 {
            queue.removeFirst()
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
            for name in names where !name.hasPrefix(".") {
                visited += 1
                let url = folder.appendingPathComponent(name)
                if accept(url) { found.append(url); continue }
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue,
                      !skippedFolders.contains(name), !["xcodeproj", "xcworkspace", "xcassets", "framework", "xcframework", "lproj", "bundle"].contains(url.pathExtension)
                else { continue }
                // Symbolic links to folders are not followed: a loop would never end.
                if (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) != nil { continue }
                queue.append(url)
            }
        }
        return found
    }

    /// `url` relative to `root` (as a user names it from where they ran lint).
    static func relative(_ url: URL, to root: URL) -> String {
        let base = root.standardizedFileURL.path
        let full = url.standardizedFileURL.path
        if full == base { return "" }
        return full.hasPrefix(base + "/") ? String(full.dropFirst(base.count + 1)) : full
    }

    /// `path` as a path from `folder`, with `..` where it is not under it (both standardized).
    package static func path(_ path: String, from folder: String) -> String {
        let from = folder.split(separator: "/"), to = path.split(separator: "/")
        let common = zip(from, to).prefix { $0 == $1 }.count
        let parts = Array(repeating: "..", count: from.count - common) + to.dropFirst(common).map(String.init)
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    /// The folder part of a path as the user wrote it (`a/b/` → `a`, `b` → `""`).
    static func parent(of name: String) -> String {
        var trimmed = Substring(name)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    public static func join(_ a: String, _ b: String) -> String {
        if a.isEmpty || a == "." { return b }
        if b.isEmpty { return a }
        return a.hasSuffix("/") ? a + b : a + "/" + b
    }
}
