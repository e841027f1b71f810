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
        /// The Info.plist the project names, where it is missing from the checkout (a file a
        /// build step writes, or one left out): why nothing of it could be read.
        public var missingInfoPlist: String? = nil
        /// The Intune NuGet package its .NET project references (Xamarin.iOS, .NET MAUI): it
        /// links the SDK at build time.
        public var intunePackage: String? = nil
        /// The project's own Info.plist file, where it is one in the checkout (not generated):
        /// what a fix of its activation rule edits.
        public var infoPlistFile: URL? = nil
    }

    /// A target of the project that is not an app or extension of the fleet, and why.
    public struct LeftOut: Sendable {
        public var name: String
        /// `chatr.xcodeproj, target chatrTests`.
        public var source: String
        public var why: String
        public init(name: String, source: String, why: String) {
            self.name = name
            self.source = source
            self.why = why
        }
    }

    /// What `init` makes a fleet of: the bundles, every other target with why it is left out,
    /// and notes for the person (which project a `--target` was found in, a project that
    /// could not be read while others could).
    public struct Inventory: Sendable {
        public var bundles: [Bundle] = []
        public var leftOut: [LeftOut] = []
        public var notes: [String] = []
        /// Projects that could not be read while others could: their targets are left out.
        public var warnings: [String] = []
    }

    /// Every iOS app and extension under `path`, and every other target with why it is not
    /// one. With several projects, `--target` names a target of any of them (each applies to
    /// the project that has it), and a project that cannot be read is a note when another can.
    public static func inventory(path: URL, displayName: String, options: ProjectLinter.Options = ProjectLinter.Options()) throws(LintInputError) -> Inventory {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
            throw LintInputError("\(displayName) does not exist; name an .xcodeproj, a repository, a .NET MAUI project or an app folder")
        }
        var root = path
        if !isDirectory.boolValue, path.lastPathComponent == "project.pbxproj" { root = path.deletingLastPathComponent() }
        // A .NET project file names its folder: its Info.plist and ApplicationId are there, and
        // the app extensions it references (`<ProjectReference>` with `<IsAppExtension>`).
        if !isDirectory.boolValue, path.pathExtension == "csproj" {
            var inventory = fromFiles(root: path.deletingLastPathComponent(), options: options)
            for folder in referencedExtensions(of: path) {
                inventory.bundles += fromFiles(root: folder, options: options).bundles.filter { $0.extensionPoint != nil }
            }
            return inventory
        }
        if root.pathExtension == "xcworkspace" { root = root.deletingLastPathComponent() }
        let projects: [URL]
        let base: URL
        if !isDirectory.boolValue, ProjectLinter.isXcodeGenSpec(path) || path.lastPathComponent == "Project.swift" {
            (projects, base) = ([path], path.deletingLastPathComponent())
        } else if root.pathExtension == "xcodeproj" {
            (projects, base) = ([root], root.deletingLastPathComponent())
        } else {
            (projects, base) = (try ProjectLinter.findProjects(in: root, displayName: displayName), root)
        }
        if !projects.isEmpty {
            var inventory = Inventory()
            var unreadable: [String] = []
            var matched = Set<String>()
            var all: [String] = []
            for url in projects {
                let project: XcodeProject
                switch ProjectLinter.read(url, name: ProjectLinter.relative(url, to: base), within: base) {
                case .success(let p): project = p
                case .failure(let problem):
                    let f = problem.finding
                    unreadable.append(f.description)
                    inventory.warnings.append("\(f.file): \(f.problem.replacingOccurrences(of: "; its targets were not linted", with: "")); its targets are left out; \(f.fix)")
                    continue
                }
                all += project.targets.map(\.name)
                inventory.notes += project.notes.map { "\(ProjectLinter.relative(project.manifest, to: base)): \($0)" }
                for what in project.unread {
                    let source = ProjectLinter.relative(project.manifest, to: base)
                    inventory.warnings.append("\(source): \(what)")
                    inventory.leftOut.append(LeftOut(name: source, source: source, why: what))
                }
                var scoped = options
                scoped.targets = options.targets.filter { name in project.targets.contains { $0.name == name } }
                if !options.targets.isEmpty {
                    guard !scoped.targets.isEmpty else { continue }
                    matched.formUnion(scoped.targets)
                    if projects.count > 1 {
                        inventory.notes.append("\(scoped.targets.joined(separator: ", ")): \(scoped.targets.count == 1 ? "a target" : "targets") of \(project.displayName) (\(ProjectLinter.relative(project.manifest, to: base)))")
                    }
                }
                let (bundles, leftOut) = try self.bundles(of: project, root: base, options: scoped)
                inventory.bundles += bundles
                inventory.leftOut += leftOut
            }
            // One project that cannot be read stops nothing when another can; alone, it is the error.
            if let first = unreadable.first, unreadable.count == projects.count { throw LintInputError(first) }
            if let missing = options.targets.first(where: { !matched.contains($0) }) {
                throw LintInputError(projects.count > 1
                    ? "no project under \(displayName) has a target named \(missing); their targets are \(all.joined(separator: ", "))"
                    : "\(displayName) has no target \(missing); its targets are \(all.joined(separator: ", "))")
            }
            // A repository of Xcode projects may hold a .NET for iOS app beside them: named, with
            // how to read it, never passed over in silence.
            if isDirectory.boolValue, root.pathExtension != "xcodeproj" {
                let dotnet = ProjectLinter.find(in: base) { ProjectLinter.isDotNetAppInfoPlist($0) || ProjectLinter.isMAUIInfoPlist($0) }
                for plist in dotnet where !inventory.bundles.contains(where: { $0.source == ProjectLinter.relative(plist, to: base) }) {
                    let source = ProjectLinter.relative(plist, to: base)
                    inventory.leftOut.append(LeftOut(name: plist.deletingLastPathComponent().lastPathComponent, source: source,
                        why: "a .NET for iOS app beside the Xcode projects: `mamsim init` reads it when its folder or .csproj is named alone"))
                }
            }
            // Never a dead end: when the projects give no app (a Tuist manifest whose targets
            // its code computes), the apps and extensions are read from their Info.plists.
            if options.targets.isEmpty, !inventory.bundles.contains(where: { $0.extensionPoint == nil && $0.bundleID?.isEmpty == false }) {
                let found = fromFiles(root: base, options: options).bundles.filter { b in !inventory.bundles.contains { $0.bundleID == b.bundleID } }
                if !found.isEmpty {
                    inventory.notes.append("no app of \(displayName)'s projects could be read whole, so its apps and extensions are read from their Info.plist files (\(found.count))")
                    inventory.bundles += found
                }
            }
            return inventory
        }
        return fromFiles(root: root, options: options)
    }

    /// The bundles of `root` found by their Info.plist files, an extension paired with the app
    /// whose bundle id prefixes its own.
    static func fromFiles(root: URL, options: ProjectLinter.Options) -> Inventory {
        let discovered = ProjectLinter.discoveredBundles(in: root, options: options)
        func isExtension(_ b: BundleFolder) -> Bool { b.manifest?.extensionPointIdentifier != nil || extensionKitPoint(b.info) != nil }
        let apps = discovered.filter { !isExtension($0.bundle) }
        return Inventory(bundles: discovered.map { entry in
            var container: String?
            if isExtension(entry.bundle), let id = entry.bundle.bundleIdentifier {
                container = apps.compactMap(\.bundle.bundleIdentifier).first { id.hasPrefix($0 + ".") }
            }
            let folder = ProjectLinter.relative(entry.url.deletingLastPathComponent(), to: root)
            return describe(entry.bundle, name: folder.isEmpty ? root.lastPathComponent : folder,
                            source: ProjectLinter.relative(entry.url, to: root), infoPlist: entry.url, container: container)
        })
    }

    static func bundles(of project: XcodeProject, root: URL, options: ProjectLinter.Options) throws(LintInputError) -> ([Bundle], [LeftOut]) {
        let candidates = project.targets.filter { $0.isApplication || $0.isAppExtension }
        if let missing = options.targets.first(where: { name in !project.targets.contains { $0.name == name } }) {
            throw LintInputError("\(project.displayName) has no target \(missing); its targets are \(project.targets.map(\.name).joined(separator: ", "))")
        }
        let named = project.targets.filter { options.targets.isEmpty || options.targets.contains($0.name) }
        var leftOut: [LeftOut] = []
        var chosen: [XcodeProject.Target] = []
        for target in named {
            let source = "\(project.displayName), target \(target.name)"
            if let other = ProjectLinter.platform(of: target, in: project, root: root, options: options) {
                leftOut.append(LeftOut(name: target.name, source: source, why: "\(other): the Intune App SDK for iOS has nothing to do there"))
            } else if target.isApplication || target.isAppExtension {
                chosen.append(target)
            } else {
                leftOut.append(LeftOut(name: target.name, source: source, why: whyNotInFleet(productType: target.productType)))
            }
        }
        var folders: [String: (BundleFolder, URL?)] = [:]
        func folder(_ target: XcodeProject.Target) -> (BundleFolder, URL?) {
            if let made = folders[target.name] { return made }
            let made = Self.builtWithItsID(target, in: project, root: root, options: options)
            let info = made.infoFileURL
            folders[target.name] = (made, info)
            return (made, info)
        }
        var containers: [String: String] = [:]
        var bundles = chosen.sorted { $0.isApplication && !$1.isApplication }.map { target in
            let (bundle, info) = folder(target)
            var container: String?
            if target.isAppExtension {
                let app = candidates.first { $0.isApplication && $0.embeddedTargets.contains(target.name) }
                    ?? candidates.first { $0.isApplication && $0.dependencies.contains(target.name) }
                container = app.flatMap { folder($0).0.bundleIdentifier }
                containers[target.name] = app?.name
            }
            let generated = info.flatMap { project.generatedFiles[$0.standardizedFileURL.path] }
            return describe(bundle, name: target.name, source: "\(project.displayName), target \(target.name)", infoPlist: info, container: container,
                            extensionTarget: target.isAppExtension, infoData: generated)
        }
        // An extension names its app by the id the app is described with (settings no layer
        // sets built empty, as Xcode builds them), never by the id as written.
        for i in bundles.indices {
            guard let app = containers[bundles[i].name], let described = bundles.first(where: { $0.name == app && $0.extensionPoint == nil }) else { continue }
            bundles[i].containerBundleID = described.bundleID
        }
        return (bundles, leftOut)
    }

    /// The target as its default configuration builds it — or, when that leaves its bundle id
    /// to a setting nothing in the repository sets (a developer's own `Local/` xcconfig, a
    /// Debug suffix) and no configuration was asked for, as the first of its Release-like
    /// configurations, then the others, that builds a whole id: the app the project ships.
    static func builtWithItsID(_ target: XcodeProject.Target, in project: XcodeProject, root: URL, options: ProjectLinter.Options) -> BundleFolder {
        let made = ProjectLinter.bundle(of: target, in: project, root: root, options: options)
        func whole(_ b: BundleFolder) -> Bool {
            guard let id = b.bundleIdentifier, !id.isEmpty, !id.hasPrefix("."), !id.hasSuffix("."), !id.contains("..") else { return false }
            return !BuildSettings.hasReference(id)
        }
        guard options.configuration == nil, !whole(made) else { return made }
        let names = Set(target.configurations.map(\.name)).union(project.configurations.map(\.name)).sorted()
        let ordered = names.filter { $0.lowercased().contains("release") } + names.filter { !$0.lowercased().contains("release") }
        for name in ordered where name != ProjectLinter.configuration(of: target, in: project, options: options) {
            var asked = options
            asked.configuration = name
            let other = ProjectLinter.bundle(of: target, in: project, root: root, options: asked)
            if whole(other) { return other }
        }
        return made
    }

    /// The folders of the app extension projects a .NET project references, beside it (within
    /// the folder that holds its own).
    static func referencedExtensions(of csproj: URL) -> [URL] {
        guard let text = InputFile.text(of: csproj) else { return [] }
        let solution = csproj.deletingLastPathComponent().deletingLastPathComponent().standardizedFileURL
        return text.matches(of: #/<ProjectReference\s+Include\s*=\s*"([^"]+)"\s*>((?:(?!</ProjectReference>)[\s\S])*)</ProjectReference>/#)
            .filter { $0.2.contains("<IsAppExtension>true</IsAppExtension>") }
            .map { csproj.deletingLastPathComponent().appendingPathComponent(String($0.1).replacingOccurrences(of: "\\", with: "/")).deletingLastPathComponent().standardizedFileURL }
            .filter { ProjectRoot.contains(solution, $0) }
    }

    /// `PRODUCT_BUNDLE_IDENTIFIER` as the bundle's build settings expand it, when whole.
    static func settingsBundleID(_ b: BundleFolder) -> String? {
        guard let raw = b.settings.variables["PRODUCT_BUNDLE_IDENTIFIER"] else { return nil }
        var unresolved: [UnresolvedBuildSetting] = []
        let id = b.settings.expand(raw, keyPath: "PRODUCT_BUNDLE_IDENTIFIER", unresolved: &unresolved)
        return unresolved.isEmpty && !id.isEmpty && !BuildSettings.hasReference(id) ? id : nil
    }

    /// Why a target of this product type is not an app or extension of the fleet.
    public static func whyNotInFleet(productType: String) -> String {
        let kind = productType.replacingOccurrences(of: "com.apple.product-type.", with: "")
        switch kind {
        case "bundle.unit-test": return "a unit-test bundle; it runs inside the app under test, not as an app of the fleet"
        case "bundle.ui-testing": return "a UI-test bundle; it drives the app from outside, not an app of the fleet"
        case "framework", "framework.static", "library.static", "library.dynamic", "xcframework":
            return "a \(kind.hasPrefix("library") ? "library" : "framework") linked into the apps; its code runs as part of each app that links it"
        case "bundle": return "a resource bundle; no code of its own"
        case "tool": return "a command-line tool, not an iOS app"
        case "application.on-demand-install-capable":
            return "an App Clip; a fleet app is a full app (give the full app the App Clip's code paths to test them)"
        case "application.watchapp", "application.watchapp2", "application.watchapp2-container", "watchkit-extension", "watchkit2-extension":
            return "a watchOS app or extension: the Intune App SDK for iOS has nothing to do there"
        case "application.messages": return "an iMessage app; the policy's outbound rule applies to what the containing app shares (`share` steps)"
        case "app-extension.messages": return "an iMessage extension; the policy's outbound rule applies to what the containing app shares (`share` steps)"
        case "app-extension.messages-sticker-pack": return "a sticker pack; no code and no org data"
        case "xpc-service", "system-extension", "driver-extension", "kernel-extension", "instruments-package", "xcode-extension", "metal-library":
            return "a \(kind) target, not an iOS app or extension"
        case "": return "a target without a product type (an aggregate or legacy target): nothing is built to run"
        default: return "a \(kind) target, not an iOS app or extension"
        }
    }

    /// An ExtensionKit extension's point (`EXAppExtensionAttributes.EXExtensionPointIdentifier`):
    /// it has no `NSExtension`, and is never an app.
    static func extensionKitPoint(_ info: [String: Any]?) -> String? {
        guard let attributes = info?["EXAppExtensionAttributes"] as? [String: Any] else { return nil }
        return attributes["EXExtensionPointIdentifier"] as? String ?? "extensionkit"
    }

    static func describe(_ b: BundleFolder, name: String, source: String, infoPlist: URL?, container: String?, extensionTarget: Bool = false,
                         infoData: Data? = nil) -> Bundle {
        let settings = b.intuneSettings
        var resolved: Data?
        if b.manifest?.extensionPointIdentifier != nil, var info = b.info {
            // The rule as the file writes it: `info` leaves it out.
            if let infoPlist, let raw = infoData ?? (try? InputFile.contents(of: infoPlist)),
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
        // Xcode expands a setting no layer defines to empty; the scenario's comment names them.
        let built = { (text: String) in emptyingUnset(text, unresolved) }
        if let data = resolved, let text = String(data: data, encoding: .utf8) { resolved = Data(built(text).utf8) }
        return Bundle(
            // Without its Info.plist in the checkout (one a build step writes), an app's id is
            // still what its build settings say.
            name: name, source: source, bundleID: b.bundleIdentifier.map(built) ?? (infoData == nil && !extensionTarget && b.info == nil ? Self.settingsBundleID(b) : nil),
            // An extension target with no NSExtension point (ExtensionKit, or a broken plist)
            // is still an extension, never an app of the fleet.
            extensionPoint: b.manifest?.extensionPointIdentifier ?? extensionKitPoint(b.info) ?? (extensionTarget ? "extensionkit" : nil),
            isKeyboard: b.manifest?.kind == .keyboard, requestsOpenAccess: b.manifest?.requestsOpenAccess ?? false,
            containerBundleID: container, hasIntuneSettings: !settings.raw.isEmpty, multiIdentity: settings.multiIdentity,
            urlSchemes: b.urlSchemes.map(built), keychainGroups: (b.entitlements?.keychainAccessGroups ?? []).map(b.bareKeychainGroup).map(built),
            appGroups: (b.entitlements?.applicationGroups ?? settings.appGroupIdentifiers).map(built),
            resolvedInfoPlist: resolved, unresolvedSettings: unresolved,
            missingInfoPlist: infoPlist.flatMap { infoData == nil && !FileManager.default.fileExists(atPath: $0.path) ? ProjectLinter.relative($0, to: $0.deletingLastPathComponent().deletingLastPathComponent()) : nil }, intunePackage: b.intunePackage,
            infoPlistFile: infoPlist.flatMap { infoData == nil && FileManager.default.fileExists(atPath: $0.path) ? $0.standardizedFileURL : nil })
    }

    /// `text` with each plain reference to a setting of `names` (`$(NAME)`, `${NAME}`) made
    /// empty, as Xcode builds it; a reference with a modifier stays as written.
    static func emptyingUnset(_ text: String, _ names: [String]) -> String {
        guard text.contains("$") else { return text }
        var out = text
        for name in names {
            out = out.replacingOccurrences(of: "$(\(name))", with: "").replacingOccurrences(of: "${\(name)}", with: "")
        }
        // `$NAME` unbraced: only where the name ends (a longer name is another setting).
        for name in names.sorted(by: { $0.count > $1.count }) {
            var result = "", rest = Substring(out)
            while let r = rest.range(of: "$" + name) {
                let after = rest[r.upperBound...].first
                result += rest[..<r.lowerBound]
                if let after, after.isASCII, after.isLetter || after.isNumber || after == "_" { result += rest[r] }
                rest = rest[r.upperBound...]
            }
            out = result + rest
        }
        return out
    }
}
