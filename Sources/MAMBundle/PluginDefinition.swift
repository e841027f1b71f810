public import Foundation
public import MAMActivation

/// What the host needs to run a plugin folder (`plugins/open-in-word`): identity, what kind of
/// bundle it is, its activation rule, Intune settings, keychain and app groups, URL schemes, and
/// the program to spawn. The folder holds `Info.plist`, one `*.entitlements`, optionally an
/// `.xcconfig` with the build settings they refer to, and optionally `container/` with the
/// containing app's `Info.plist` (and entitlements).
///
/// The program is a file named `run`, or the path given by `MamsimExecutable` in the Info.plist
/// or `executable` in `plugin.json`; without one the host runs its built-in runtime.
///
/// Loading is strict where the host would otherwise act on wrong data: a malformed plist, an
/// unreadable rule, a bad executable, or a `$(VAR)` left in a value the host uses (bundle id,
/// extension point, Intune settings, groups, URL schemes) fails with the findings that say why.
/// Everything else is for `Linter` to report.
public struct PluginDefinition: Sendable {
    public enum Kind: String, Sendable, Hashable {
        /// `com.apple.share-services`.
        case share
        /// `com.apple.ui-services` or `com.apple.services` (Intune's "Open in" stub).
        case action
        /// `com.apple.keyboard-service`.
        case keyboard
        /// No `NSExtension`: an app (the `container/` folder, or an app-shaped plugin).
        case app
    }

    public enum Executable: Sendable, Hashable {
        /// No program of its own: the host's runtime acknowledges every item it receives.
        case builtInRuntime
        /// An absolute path to an executable file inside the folder.
        case program(URL)
    }

    public var folder: URL
    public var bundleIdentifier: String
    public var kind: Kind
    public var displayName: String?
    /// The Info.plist as read (rule, declared types, `activation(for:dataIsManaged:)`).
    public var manifest: ExtensionManifest
    public var keychainGroups: [String]
    public var appGroups: [String]
    public var urlSchemes: [String]
    public var executable: Executable
    /// The containing app, when the folder has `container/Info.plist`.
    public var container: ContainingApp?

    /// The app an extension ships in, as far as the host needs it.
    public struct ContainingApp: Sendable, Hashable {
        public var bundleIdentifier: String
        public var urlSchemes: [String]
        public var intuneSettings: IntuneMAMSettings
        public var keychainGroups: [String]
        public var appGroups: [String]
    }

    public var activationRule: ActivationRule? { manifest.activationRule }
    public var intuneSettings: IntuneMAMSettings { manifest.intuneSettings }
    public var isOpenInActionExtension: Bool { kind == .action && intuneSettings.openInActionExtension }

    /// Reads a plugin folder.
    ///
    /// - Parameter buildSettings: values that win over the folder's `.xcconfig` (`--set NAME=VALUE`).
    public static func load(folder: URL, buildSettings: BuildSettings = BuildSettings()) throws(PluginDefinitionError) -> PluginDefinition {
        let bundle = BundleFolder(url: folder, prefix: "", buildSettings: buildSettings)
        var blocking = bundle.problems.filter { $0.severity == .error && Self.blocks($0, in: bundle) }
        var container: ContainingApp?
        let containerURL = folder.appendingPathComponent("container")
        if FileManager.default.fileExists(atPath: containerURL.appendingPathComponent("Info.plist").path) {
            let app = BundleFolder(url: containerURL, prefix: "container/", buildSettings: buildSettings)
            blocking += app.problems.filter { $0.severity == .error && Self.blocks($0, in: app) }
            if let id = app.bundleIdentifier {
                container = ContainingApp(bundleIdentifier: id, urlSchemes: app.urlSchemes, intuneSettings: app.intuneSettings,
                                          keychainGroups: app.entitlements?.keychainAccessGroups ?? [],
                                          appGroups: app.entitlements?.applicationGroups ?? [])
            }
        }
        guard blocking.isEmpty, let manifest = bundle.manifest else {
            throw PluginDefinitionError(folder: folder.relativePath, findings: blocking)
        }
        guard let bundleIdentifier = manifest.bundleIdentifier, !bundleIdentifier.isEmpty else {
            throw PluginDefinitionError(folder: folder.relativePath, findings: [LintFinding(.error, rule: "bundle-identifier", file: bundle.infoFile,
                keyPath: "CFBundleIdentifier", problem: "is missing", fix: "add <key>CFBundleIdentifier</key><string>$(PRODUCT_BUNDLE_IDENTIFIER)</string>")])
        }
        let kind: Kind
        switch manifest.kind {
        case .share: kind = .share
        case .action: kind = .action
        case .keyboard: kind = .keyboard
        case .other(""): kind = .app
        case .other(let point):
            throw PluginDefinitionError(folder: folder.relativePath, findings: [LintFinding(.error, rule: "extension-point", file: bundle.infoFile,
                line: bundle.line(of: "NSExtension.NSExtensionPointIdentifier"), keyPath: "NSExtension.NSExtensionPointIdentifier",
                problem: "is \(point), which mamsim does not host",
                fix: "use com.apple.share-services, com.apple.ui-services, com.apple.services or com.apple.keyboard-service")])
        }
        return PluginDefinition(
            folder: folder, bundleIdentifier: bundleIdentifier, kind: kind, displayName: bundle.displayName, manifest: manifest,
            keychainGroups: bundle.entitlements?.keychainAccessGroups ?? [], appGroups: bundle.entitlements?.applicationGroups ?? [],
            urlSchemes: bundle.urlSchemes, executable: bundle.executable, container: container)
    }

    /// Unresolved variables block loading only in the values the host uses.
    private static func blocks(_ finding: LintFinding, in bundle: BundleFolder) -> Bool {
        guard bundle.isUnresolvedVariable(finding) else { return true }
        let used = ["CFBundleIdentifier", "NSExtension.NSExtensionPointIdentifier", "IntuneMAMSettings", "CFBundleURLTypes",
                    "keychain-access-groups", "com.apple.security.application-groups", "MamsimExecutable"]
        return used.contains { finding.keyPath == $0 || finding.keyPath.hasPrefix($0 + ".") || finding.keyPath.hasPrefix($0 + "[") }
    }
}

/// Why a plugin folder cannot be loaded: the findings, rendered as lint renders them.
public struct PluginDefinitionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var folder: String
    public var findings: [LintFinding]

    public var description: String {
        "plugin \(folder) cannot be loaded:\n" + findings.map { "  " + $0.rendered(inFolder: folder) }.joined(separator: "\n")
    }
}
