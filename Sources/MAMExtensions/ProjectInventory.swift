public import Foundation
import MAMActivation
import MAMBundle

/// The iOS apps and extensions of a project, read as `mamsim lint` reads them (an
/// `.xcodeproj`, a workspace's folder, a repository, a .NET MAUI project, an app or plugin
/// folder), with what a scenario needs of each: `mamsim init` writes a fleet from it.
public enum ProjectInventory {
    /// One app or extension target.
    public struct Bundle: Sendable {
        /// The target's name, or the folder of a bundle found by its files.
        public var name: String
        /// Where it was read, for a person: `chatr.xcodeproj, target chatr` or a plist's path.
        public var source: String
        public var bundleID: String?
        /// `com.apple.share-services` and the like; `nil` for an app.
        public var extensionPoint: String?
        /// A custom keyboard (`com.apple.keyboard-service`), and whether it asks the user for
        /// full access (`RequestsOpenAccess`).
        public var isKeyboard: Bool
        public var requestsOpenAccess: Bool
        /// For an extension: the bundle id of the app that embeds it.
        public var containerBundleID: String?
        /// `IntuneMAMSettings` is in its Info.plist: taken as an app that links the Intune SDK.
        public var hasIntuneSettings: Bool
        public var multiIdentity: Bool
        public var urlSchemes: [String]
        /// The entries of `urlSchemes` that are URL schemes, by lint's own check
        /// (`url-scheme-invalid`: a placeholder left in is not one).
        public var validURLSchemes: [String] { urlSchemes.filter(LintContext.isURLScheme) }
        /// `keychain-access-groups`, without the team prefix.
        public var keychainGroups: [String]
        public var appGroups: [String]
        /// For an extension: its Info.plist as the build would write it (build settings expanded,
        /// the activation rule as written), for a plugin folder of its own.
        public var resolvedInfoPlist: Data?
        /// `$(NAME)`s nothing defined, for a comment.
        public var unresolvedSettings: [String]
    }

    /// Every iOS app and extension under `path`. Bad input (a missing path, an unreadable
    /// project, an unknown `--target`) throws as lint's does.
    public static func read(path: URL, displayName: String, options: ProjectLinter.Options = ProjectLinter.Options()) throws(LintInputError) -> [Bundle] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
            throw LintInputError("\(displayName) does not exist; name an .xcodeproj, a repository, a .NET MAUI project or an app folder")
        }
        var root = path
        if !isDirectory.boolValue, path.lastPathComponent == "project.pbxproj" { root = path.deletingLastPathComponent() }
        if root.pathExtension == "xcworkspace" { root = root.deletingLastPathComponent() }
        let projects = root.pathExtension == "xcodeproj" ? [root] : try ProjectLinter.findProjects(in: root, displayName: displayName)
        let base = root.pathExtension == "xcodeproj" ? root.deletingLastPathComponent() : root
        if !projects.isEmpty {
            var found: [Bundle] = []
            for url in projects {
                let project: XcodeProject
                switch ProjectLinter.read(url, name: ProjectLinter.relative(url, to: base)) {
                case .success(let p): project = p
                case .failure(let unreadable): throw LintInputError(unreadable.finding.description)
                }
                found += try bundles(of: project, root: base, options: options)
            }
            return found
        }
        let discovered = ProjectLinter.discoveredBundles(in: root, options: options)
        func isExtension(_ b: BundleFolder) -> Bool { b.manifest?.extensionPointIdentifier != nil || extensionKitPoint(b.info) != nil }
        let apps = discovered.filter { !isExtension($0.bundle) }
        return discovered.map { entry in
            var container: String?
            if isExtension(entry.bundle), let id = entry.bundle.bundleIdentifier {
                container = apps.compactMap(\.bundle.bundleIdentifier).first { id.hasPrefix($0 + ".") }
            }
            let folder = ProjectLinter.relative(entry.url.deletingLastPathComponent(), to: root)
            return describe(entry.bundle, name: folder.isEmpty ? root.lastPathComponent : folder,
                            source: ProjectLinter.relative(entry.url, to: root), infoPlist: entry.url, container: container)
        }
    }

    static func bundles(of project: XcodeProject, root: URL, options: ProjectLinter.Options) throws(LintInputError) -> [Bundle] {
        let candidates = project.targets.filter { $0.isApplication || $0.isAppExtension }
        if let missing = options.targets.first(where: { name in !project.targets.contains { $0.name == name } }) {
            throw LintInputError("\(project.displayName) has no target \(missing); its targets are \(project.targets.map(\.name).joined(separator: ", "))")
        }
        let chosen = candidates.filter { (options.targets.isEmpty || options.targets.contains($0.name))
            && ProjectLinter.platform(of: $0, in: project, root: root, options: options) == nil }
        var folders: [String: (BundleFolder, URL?)] = [:]
        func folder(_ target: XcodeProject.Target) -> (BundleFolder, URL?) {
            if let made = folders[target.name] { return made }
            let made = ProjectLinter.bundle(of: target, in: project, root: root, options: options)
            let info = made.infoFileURL
            folders[target.name] = (made, info)
            return (made, info)
        }
        return chosen.sorted { $0.isApplication && !$1.isApplication }.map { target in
            let (bundle, info) = folder(target)
            var container: String?
            if target.isAppExtension {
                let app = candidates.first { $0.isApplication && $0.embeddedTargets.contains(target.name) }
                    ?? candidates.first { $0.isApplication && $0.dependencies.contains(target.name) }
                container = app.flatMap { folder($0).0.bundleIdentifier }
            }
            return describe(bundle, name: target.name, source: "\(project.displayName), target \(target.name)", infoPlist: info, container: container,
                            extensionTarget: target.isAppExtension)
        }
    }

    /// An ExtensionKit extension's point (`EXAppExtensionAttributes.EXExtensionPointIdentifier`):
    /// it has no `NSExtension`, and is never an app.
    static func extensionKitPoint(_ info: [String: Any]?) -> String? {
        guard let attributes = info?["EXAppExtensionAttributes"] as? [String: Any] else { return nil }
        return attributes["EXExtensionPointIdentifier"] as? String ?? "extensionkit"
    }

    static func describe(_ b: BundleFolder, name: String, source: String, infoPlist: URL?, container: String?, extensionTarget: Bool = false) -> Bundle {
        let settings = b.intuneSettings
        var resolved: Data?
        if b.manifest?.extensionPointIdentifier != nil, var info = b.info {
            // The rule as the file writes it: `info` leaves it out.
            if let infoPlist, let raw = FileManager.default.contents(atPath: infoPlist.path),
               let plist = try? PropertyListSerialization.propertyList(from: raw, format: nil) as? [String: Any],
               let rule = ((plist["NSExtension"] as? [String: Any])?["NSExtensionAttributes"] as? [String: Any])?["NSExtensionActivationRule"] {
                var ext = info["NSExtension"] as? [String: Any] ?? [:]
                var attributes = ext["NSExtensionAttributes"] as? [String: Any] ?? [:]
                attributes["NSExtensionActivationRule"] = rule
                ext["NSExtensionAttributes"] = attributes
                info["NSExtension"] = ext
            }
            resolved = try? PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0)
        }
        let unresolved = b.unresolvedSettingNames.sorted()
        return Bundle(
            name: name, source: source, bundleID: b.bundleIdentifier,
            // An extension target with no NSExtension point (ExtensionKit, or a broken plist)
            // is still an extension, never an app of the fleet.
            extensionPoint: b.manifest?.extensionPointIdentifier ?? extensionKitPoint(b.info) ?? (extensionTarget ? "extensionkit" : nil),
            isKeyboard: b.manifest?.kind == .keyboard, requestsOpenAccess: b.manifest?.requestsOpenAccess ?? false,
            containerBundleID: container, hasIntuneSettings: !settings.raw.isEmpty, multiIdentity: settings.multiIdentity,
            urlSchemes: b.urlSchemes, keychainGroups: (b.entitlements?.keychainAccessGroups ?? []).map(b.bareKeychainGroup),
            appGroups: b.entitlements?.applicationGroups ?? settings.appGroupIdentifiers,
            resolvedInfoPlist: resolved, unresolvedSettings: unresolved)
    }
}
