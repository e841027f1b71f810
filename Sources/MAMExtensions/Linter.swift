public import Foundation
import MAMActivation
public import MAMBundle

/// `mamsim lint` for one app or plugin folder: checks its Info.plist and entitlements (and
/// those of `container/`, the containing app, when present) against what the Intune App SDK and
/// iOS require, and reports every problem as a `LintFinding` (RULES.md §6, seed 000).
///
/// Checks, in the order they appear in a report:
/// - reading: malformed plists (with the parser's line), unresolved `$(VAR)`s, unreadable rules;
/// - keychain: the bundle id's group first, no misspelled `com.microsoft.intune.mam`;
/// - extensions: `IntuneMAMSettings.ContainingAppBundleId` present and matching the container;
///   the rule accepts the `com.microsoft.intune.mam.` types (else Intune hides the extension);
/// - app groups listed in `IntuneMAMSettings.AppGroupIdentifiers` are entitled;
/// - an app folder (no `NSExtension`): the Intune App SDK's requirements — `IntuneMAMSettings`
///   present, known keys, booleans, a real `ADALClientId`, the `msauth.<bundle id>` redirect
///   and its URL scheme, the `com.microsoft.intune.mam` keychain group, `-intunemam` twins of
///   URL and queried schemes, `NSFaceIDUsageDescription` (docs/LINT.md);
/// - "Open in" action extensions (`OpenInActionExtension` present): every
///   step of the SDK's "Copy to" replacement, on the extension and on its container.
public enum Linter {
    static let intuneKeychainGroup = "com.microsoft.intune.mam"

    /// - Parameters:
    ///   - folder: holds `Info.plist`, one `*.entitlements`, optionally `*.xcconfig` and `container/`.
    ///   - buildSettings: `--set NAME=VALUE` values; they win over the folder's `.xcconfig`.
    ///   - displayName: how the folder is named in the report (default: the path as given).
    public static func lint(folder: URL, buildSettings: BuildSettings = BuildSettings(), displayName: String? = nil) -> LintReport {
        let plugin = BundleFolder(url: folder, prefix: "", buildSettings: buildSettings)
        let containerURL = folder.appendingPathComponent("container")
        let container = FileManager.default.fileExists(atPath: containerURL.appendingPathComponent("Info.plist").path)
            ? BundleFolder(url: containerURL, prefix: "container/", buildSettings: buildSettings) : nil
        var report = lint(plugin, container: container, folderName: displayName ?? folder.relativePath)
        report.findings += sandboxFindings(folder: folder)
        return report
    }

    /// `plugin.json`'s `sandbox` judged as `mamsim run` judges it (no `--allow-read`): every
    /// path or variable a run would refuse is an error here, before anyone runs the plugin.
    static func sandboxFindings(folder: URL) -> [LintFinding] {
        let file = folder.appendingPathComponent("plugin.json")
        let sandbox: PluginSandbox
        do { sandbox = try PluginSandbox.load(folder: folder) } catch {
            return [LintFinding(.error, rule: "sandbox-declaration", file: "plugin.json", keyPath: "sandbox", problem: "\(error)",
                                fix: "write {\"sandbox\": {\"read\": [PATH], \"environment\": [NAME]}}")]
        }
        let text = (InputFile.text(of: file)) ?? ""
        func line(of needle: String) -> Int? {
            TextLines.split(text).firstIndex { $0.contains(needle) }.map { $0 + 1 }
        }
        let judge = SandboxDeclarations(ownFolder: folder, scenarioFolder: folder, allowances: SandboxAllowances())
        var findings: [LintFinding] = []
        for path in sandbox.read {
            do throws(PluginSandboxError) { _ = try judge.judgeRead(path) } catch {
                findings.append(LintFinding(.error, rule: "sandbox-declaration", file: "plugin.json",
                                            line: line(of: (path as NSString).lastPathComponent), keyPath: "sandbox.read",
                                            problem: "\(error)", fix: "declare only the plugin's own files and its interpreter's installation; a user who trusts the plugin passes --allow-read"))
            }
        }
        for name in sandbox.environment {
            do throws(PluginSandboxError) { try judge.judgeEnvironment(name) } catch {
                findings.append(LintFinding(.error, rule: "sandbox-declaration", file: "plugin.json", line: line(of: "\"\(name)\""),
                                            keyPath: "sandbox.environment", problem: "\(error)",
                                            fix: "pass the value another way (a file in the plugin's folder); a user who trusts the plugin passes --allow-env"))
            }
        }
        return findings
    }

    /// Lints one bundle (an app, or an extension with the app that contains it).
    static func lint(_ plugin: BundleFolder, container: BundleFolder?, folderName: String, target: String? = nil) -> LintReport {
        var lint = LintContext(plugin: plugin, container: container, folderName: folderName)
        // Settings no layer defines expand to empty in Xcode: common and harmless (a version,
        // a display name), so they make one note per bundle naming each with where it is used;
        // the checks that needed a value go on without it.
        var unset: [(name: String, place: String)] = []
        var first: LintFinding?
        for finding in plugin.problems + (container?.problems ?? []) {
            guard finding.rule == "build-setting-unresolved" else {
                lint.findings.append(finding)
                continue
            }
            let name = LintContext.variableName(in: finding.problem) ?? finding.problem
            let place = finding.keyPath.isEmpty ? finding.file : "\(finding.file) \(finding.keyPath)"
            if let i = unset.firstIndex(where: { $0.name == name }) {
                if !unset[i].place.contains(place) { unset[i].place += ", " + place }
            } else {
                unset.append((name, place))
            }
            if first == nil { first = finding }
        }
        if let first {
            let list = unset.map { "$(\($0.name)) (\($0.place))" }.joined(separator: "; ")
            lint.findings.append(LintFinding(.note, rule: "build-setting-unresolved", file: first.file, line: first.line, keyPath: "",
                problem: "\(unset.count == 1 ? "a build setting is" : "\(unset.count) build settings are") not set in the project, its xcconfigs or --set, so Xcode would expand \(unset.count == 1 ? "it" : "them") to empty: \(list)",
                fix: "if a value matters, pass --set NAME=VALUE or define it in an .xcconfig"))
        }
        lint.checkKeychain(plugin)
        if let container { lint.checkKeychain(container) }
        lint.checkExtension()
        lint.checkEntitledAppGroups(plugin)
        if let container { lint.checkEntitledAppGroups(container) }
        if lint.isOpenInActionExtension { lint.checkOpenIn() }
        lint.checkAppRequirements()
        lint.checkExtensionRequirements()
        return LintReport(folder: lint.folderName, findings: lint.findings, target: target)
    }
}

/// What the checks share: the bundles and the findings so far.
struct LintContext {
    let plugin: BundleFolder
    let container: BundleFolder?
    let folderName: String
    var findings: [LintFinding] = []

    enum File { case info, entitlements }

    mutating func report(_ severity: LintFinding.Severity, _ rule: String, _ bundle: BundleFolder,
                         _ keyPath: String, _ problem: String, fix: String) {
        report(severity, rule, bundle, .info, keyPath, problem, fix: fix)
    }

    mutating func report(_ severity: LintFinding.Severity, _ rule: String, _ bundle: BundleFolder, _ file: File,
                         _ keyPath: String, _ problem: String, fix: String) {
        let name: String
        switch file {
        case .info: name = bundle.infoFile
        // No entitlements file: the finding is about the bundle, named by its Info.plist (a
        // glob is no file a SARIF viewer or an editor can open).
        case .entitlements: name = bundle.entitlementsFile ?? bundle.infoFile
        }
        findings.append(LintFinding(severity, rule: rule, file: name, line: bundle.line(of: keyPath, inEntitlements: file == .entitlements),
                                    keyPath: keyPath, problem: problem, fix: fix))
    }

    var isExtension: Bool {
        guard let kind = plugin.manifest?.kind else { return false }
        return kind == .share || kind == .action
    }

    /// An action extension meant as Intune's "Open in" stub: it sets `OpenInActionExtension`
    /// (to anything: a NO there is a mistake to report, not a different intent). A display
    /// name is no sign of it: ordinary action extensions are called "Open in <App>" too.
    var isOpenInActionExtension: Bool {
        guard plugin.manifest?.kind == .action else { return false }
        return plugin.intuneSettings.raw["OpenInActionExtension"] != nil
    }

    /// The first `$(NAME)` a finding's text names.
    static func variableName(in text: String) -> String? {
        guard let open = text.range(of: "$("), let close = text[open.upperBound...].firstIndex(of: ")") else { return nil }
        return String(text[open.upperBound..<close])
    }

    /// `$(AppIdentifierPrefix)` if the file wrote it that way, for fixes.
    static let teamPrefixVariable = "$(AppIdentifierPrefix)"

    static func isResolved(_ value: String?) -> Bool {
        guard let value, !value.isEmpty else { return false }
        return !BuildSettings.hasReference(value)
    }

    // MARK: Extensions

    mutating func checkExtension() {
        guard isExtension, let manifest = plugin.manifest else { return }
        let path = "IntuneMAMSettings.ContainingAppBundleId"
        let containing = plugin.intuneSettings.containingAppBundleId
        let bundleId = plugin.bundleIdentifier
        if containing == nil || containing?.isEmpty == true {
            let guess = container?.bundleIdentifier
                ?? bundleId.flatMap { id in id.split(separator: ".").count > 1 ? id.split(separator: ".").dropLast().joined(separator: ".") : nil }
                ?? "com.example.app"
            report(.error, "extension-containing-app", plugin, path, "is missing; the Intune SDK in an extension reads its containing app's settings through it",
                   fix: "add <key>ContainingAppBundleId</key><string>\(guess)</string> to IntuneMAMSettings")
        } else if let containing, Self.isResolved(containing) {
            if let app = container, let appId = app.bundleIdentifier, Self.isResolved(appId), appId != containing {
                report(.error, "extension-containing-app", plugin, path, "is \(containing) but container/Info.plist is \(appId)",
                       fix: "set it to the containing app's CFBundleIdentifier")
            }
            // The prefix iOS checks is the real container's id when it is known.
            let appId = container?.bundleIdentifier.flatMap { Self.isResolved($0) ? $0 : nil } ?? containing
            if let bundleId, Self.isResolved(bundleId), !bundleId.hasPrefix(appId + ".") {
                report(.error, "extension-bundle-id", plugin, "CFBundleIdentifier",
                       "is \(bundleId), which does not start with the containing app's id \(appId) (iOS refuses to install such an extension)",
                       fix: "name the extension \(appId).<suffix>")
            }
        }
        // "Open in" extensions get the stricter rule checks of checkOpenIn.
        guard !isOpenInActionExtension, let rule = manifest.activationRule else { return }
        if !acceptsIntuneTypes(rule, types: manifest.types) {
            let infoPath = folderName.isEmpty ? plugin.infoFile : folderName + "/" + plugin.infoFile
            report(.warning, "extension-intune-types", plugin, BundleFolder.rulePath,
                   "accepts none of the com.microsoft.intune.mam. types, so Intune hides this extension whenever managed data is shared",
                   fix: "run `mamsim configure \(infoPath.shellQuoted)` to add the Intune twin of every type it accepts")
        }
    }

    // MARK: App groups

    /// Every group in `IntuneMAMSettings.AppGroupIdentifiers` must be in the bundle's
    /// `com.apple.security.application-groups`: the SDK keeps shared state in that container.
    mutating func checkEntitledAppGroups(_ bundle: BundleFolder) {
        let listed = bundle.intuneSettings.appGroupIdentifiers.filter(Self.isResolved)
        guard !listed.isEmpty, bundle.manifest != nil else { return }
        if bundle.entitlementsFile != nil, bundle.entitlements == nil { return }  // malformed, reported
        let entitled = Set(bundle.entitlements?.applicationGroups ?? [])
        for group in listed where !entitled.contains(group) {
            report(.error, "app-group-entitled", bundle, .entitlements, "com.apple.security.application-groups",
                   bundle.entitlementsFile == nil
                       ? "no entitlements file, so the app group \(group) listed in IntuneMAMSettings.AppGroupIdentifiers is not entitled"
                       : "does not include \(group), which IntuneMAMSettings.AppGroupIdentifiers lists",
                   fix: "add <string>\(group)</string> under <key>com.apple.security.application-groups</key> (the App Groups capability)")
        }
    }
}
