public import Foundation
import MAMActivation
public import MAMBundle

/// `mamsim lint PATH` for whatever PATH is: an `.xcodeproj`, a repository or folder holding
/// projects (each one's app and extension targets), a plugin folder (`Info.plist` at its top,
/// `container/` beside it), or any other folder, where bundles are found by their files (every
/// plist with a `CFBundleIdentifier`, the `.entitlements` or MAUI `Entitlements.plist` beside it).
public enum ProjectLinter {
    public struct Options: Sendable {
        /// Only these targets (project mode); empty: every app and extension target.
        public var targets: [String] = []
        /// The build configuration; default: each target's default (usually Release).
        public var configuration: String?
        /// `--set NAME=VALUE`: wins over the project's and the xcconfigs' settings.
        public var buildSettings = BuildSettings()
        /// `--sdk TARGET`: targets that link the Intune SDK whatever their files say (a module
        /// added at build time), as `init` takes them.
        public var sdkTargets: [String] = []

        public init(targets: [String] = [], configuration: String? = nil, buildSettings: BuildSettings = BuildSettings(), sdkTargets: [String] = []) {
            self.targets = targets
            self.configuration = configuration
            self.buildSettings = buildSettings
            self.sdkTargets = sdkTargets
        }
    }

    /// Folders never searched: dependencies, build output, version control, and what
    /// `mamsim init` wrote (its extensions' Info.plists as built are copies, not targets).
    static let skippedFolders: Set<String> = ["Pods", "Carthage", "DerivedData", "build", "node_modules", ".build", ".git", "bin", "obj", "SourcePackages",
                                              "mamsim-extensions"]

    /// One report per linted bundle. Throws for bad input (exit 2): a path that is not there,
    /// an unreadable project, a `--target` or `--configuration` the project does not have.
    public static func lint(path: URL, displayName: String, options: Options = Options()) throws(LintInputError) -> [LintReport] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
            throw LintInputError("\(displayName) does not exist; name an app or plugin folder, an .xcodeproj or a repository")
        }
        var root = path
        var shownRoot = displayName
        if !isDirectory.boolValue, isXcodeGenSpec(path) {
            let folder = path.deletingLastPathComponent()
            switch read(path, name: path.lastPathComponent) {
            case .success(let project):
                return try lint(project, root: folder, displayName: parent(of: displayName).isEmpty ? "." : parent(of: displayName), options: options)
            case .failure(let unreadable):
                return [LintReport(folder: parent(of: displayName), findings: [unreadable.finding])]
            }
        }
        // A .NET project file or a Tuist manifest names its folder: the folder is read.
        if !isDirectory.boolValue, path.pathExtension == "csproj" || path.lastPathComponent == "Project.swift" {
            let shown = parent(of: displayName)
            return try lint(path: path.deletingLastPathComponent(), displayName: shown.isEmpty ? "." : shown, options: options)
        }
        if !isDirectory.boolValue {
            guard path.lastPathComponent == "project.pbxproj" else {
                throw LintInputError("\(displayName) is a file; name its folder, an .xcodeproj, an XcodeGen project.yml or a repository")
            }
            root = path.deletingLastPathComponent()
            shownRoot = parent(of: displayName)
        }
        // A workspace names projects beside it: lint the folder that holds it.
        if root.pathExtension == "xcworkspace" {
            root = root.deletingLastPathComponent()
            shownRoot = parent(of: shownRoot)
            return try lint(path: root, displayName: shownRoot.isEmpty ? "." : shownRoot, options: options)
        }
        if root.pathExtension == "xcodeproj" {
            let folder = root.deletingLastPathComponent()
            switch read(root, name: root.lastPathComponent) {
            case .success(let project):
                return try lint(project, root: folder, displayName: parent(of: shownRoot), options: options)
            case .failure(let unreadable):
                return [LintReport(folder: parent(of: shownRoot), findings: [unreadable.finding])]
            }
        }
        // An app's folder with its Info.plist at the top (a Xamarin.iOS project's) is read as a
        // repository is: the same SDK gate as one folder up. A plugin's folder (an extension's
        // Info.plist) is linted as the plugin it is.
        let topInfo = root.appendingPathComponent("Info.plist")
        if FileManager.default.fileExists(atPath: topInfo.path), !Self.isExtensionInfoPlist(topInfo) {
            return try discover(in: root, displayName: displayName, options: options)
        }
        if FileManager.default.fileExists(atPath: topInfo.path) {
            if !options.targets.isEmpty || options.configuration != nil {
                throw LintInputError("\(displayName) is a plugin folder, not a project; --target and --configuration name an Xcode project's targets")
            }
            return [Linter.lint(folder: root, buildSettings: options.buildSettings, displayName: displayName)]
        }
        let projects = try findProjects(in: root, displayName: displayName)
        if !projects.isEmpty {
            var reports: [LintReport] = []
            var matched = Set<String>()
            var all: [String] = []
            for url in projects {
                // One project that cannot be read is a finding about it; the others are linted.
                let project: XcodeProject
                switch read(url, name: relative(url, to: root), within: root) {
                case .success(let p): project = p
                case .failure(let unreadable):
                    reports.append(LintReport(folder: displayName, findings: [unreadable.finding]))
                    continue
                }
                all += project.targets.map(\.name)
                var scoped = options
                scoped.targets = options.targets.filter { name in project.targets.contains { $0.name == name } }
                matched.formUnion(scoped.targets)
                if !options.targets.isEmpty, scoped.targets.isEmpty { continue }
                reports += try lint(project, root: root, displayName: displayName, options: scoped, checkNames: false)
            }
            if let missing = options.targets.first(where: { !matched.contains($0) }) {
                throw LintInputError("no project under \(displayName) has a target named \(missing); its targets are \(all.joined(separator: ", "))")
            }
            // Projects without an app or extension are said, never a silent pass.
            if !reports.contains(where: { $0.target != nil }), reports.allSatisfy({ $0.findings.isEmpty }) {
                reports.append(LintReport(folder: displayName, findings: [LintFinding(.note, rule: "project-without-bundles", file: relative(projects[0], to: root), keyPath: "",
                    problem: "no project under \(displayName) makes an app or app extension target (its targets: \(all.isEmpty ? "none" : all.joined(separator: ", "))): nothing is linted",
                    fix: "lint the project that builds the app, or the repository that holds it")]))
            }
            return reports + SDKVersionLint.reports(root: root, displayName: displayName)
        }
        if !options.targets.isEmpty {
            throw LintInputError("\(displayName) holds no .xcodeproj; --target names an Xcode project's target")
        }
        return try discover(in: root, displayName: displayName, options: options)
    }

    struct UnreadableProject: Error { let finding: LintFinding }

    /// Why an ExtensionKit extension is not linted: the SDK's requirements are an app's and an
    /// NSExtension app extension's.
    static let extensionKitSkip = "an ExtensionKit extension (EXAppExtensionAttributes, no NSExtension)"

    /// The projects under `root`: its `.xcodeproj`s, and the XcodeGen specs (`project.yml`) of
    /// folders that hold none; where there is neither, Tuist's `Project.swift` manifests (read as
    /// Swift source, never run: a repository may be hostile).
    public static func findProjects(in root: URL, displayName: String) throws(LintInputError) -> [URL] {
        let projects = find(in: root) { $0.pathExtension == "xcodeproj" }
        let folders = Set(projects.map { $0.deletingLastPathComponent().standardizedFileURL.path })
        let candidates = find(in: root) { isXcodeGenSpec($0) }
            .filter { !folders.contains($0.deletingLastPathComponent().standardizedFileURL.path) }
        let parts = included(by: candidates)
        let specs = candidates.filter { !parts.contains($0.standardizedFileURL.path) }
        let found = projects + specs
        // A Tuist workspace: its `Project.swift` manifests, read as Swift source, never run.
        if found.isEmpty {
            return find(in: root) { $0.lastPathComponent == "Project.swift" && !$0.path.contains("/ProjectDescriptionHelpers/") }
        }
        return found
    }

    /// The project at `url`, or the finding that says why it cannot be read (the project named
    /// `name` in the report). A project generated by XcodeGen (`project.yml`) or Tuist
    /// (`Project.swift`) that was not generated yet gets the command that generates it.
    static func read(_ url: URL, name: String, within: URL? = nil) -> Result<XcodeProject, UnreadableProject> {
        if url.lastPathComponent == "Project.swift" {
            do { return .success(try TuistManifest.read(url)) } catch {
                return .failure(UnreadableProject(finding: LintFinding(.error, rule: "project-unreadable", file: name, keyPath: "",
                                                                       problem: error.problem + "; its targets were not linted", fix: error.fix)))
            }
        }
        if isXcodeGenSpec(url) {
            do { return .success(try XcodeGenSpec.read(url, within: within)) } catch {
                return .failure(UnreadableProject(finding: LintFinding(.error, rule: "project-unreadable", file: name, keyPath: "",
                                                                       problem: error.problem + "; its targets were not linted", fix: error.fix)))
            }
        }
        do {
            return .success(try XcodeProject(url: url))
        } catch {
            let beside = url.deletingLastPathComponent()
            func has(_ file: String) -> Bool { FileManager.default.fileExists(atPath: beside.appendingPathComponent(file).path) }
            // A project generated by XcodeGen and not generated yet: its spec says the same.
            for spec in ["project.yml", "project.yaml"] where has(spec) {
                if let p = try? XcodeGenSpec.read(beside.appendingPathComponent(spec)) { return .success(p) }
            }
            let fix: String
            if has("project.yml") || has("project.yaml") {
                fix = "it is generated by XcodeGen from project.yml beside it: run `xcodegen generate` there, then lint again"
            } else if has("Project.swift") || has("Workspace.swift") || has("Tuist") || has("Tuist.swift") {
                fix = "it is generated by Tuist: run `tuist generate --no-open` there, then lint again"
            } else {
                fix = error.fix
            }
            return .failure(UnreadableProject(finding: LintFinding(.error, rule: "project-unreadable", file: join(name, "project.pbxproj"), keyPath: "",
                                                                   problem: error.problem + "; its targets were not linted", fix: fix)))
        }
    }

    // MARK: Projects

    /// The app and extension targets of one project; each extension with the app that embeds it.
    static func lint(_ project: XcodeProject, root: URL, displayName: String, options: Options, checkNames: Bool = true) throws(LintInputError) -> [LintReport] {
        let candidates = project.targets.filter { $0.isApplication || $0.isAppExtension }
        if checkNames, let missing = options.targets.first(where: { name in !project.targets.contains { $0.name == name } }) {
            throw LintInputError("\(project.displayName) has no target \(missing); its targets are \(project.targets.map(\.name).joined(separator: ", "))")
        }
        if let configuration = options.configuration,
           !project.configurations.contains(where: { $0.name == configuration }),
           !candidates.contains(where: { $0.configuration(named: configuration) != nil }) {
            let names = Set(project.configurations.map(\.name) + candidates.flatMap { $0.configurations.map(\.name) }).sorted()
            throw LintInputError("\(project.displayName) has no build configuration \(configuration); it has \(names.joined(separator: ", "))")
        }
        let chosen = candidates.filter { options.targets.isEmpty || options.targets.contains($0.name) }
        var bundles: [String: BundleFolder] = [:]
        func bundle(_ target: XcodeProject.Target) -> BundleFolder {
            if let made = bundles[target.name] { return made }
            let made = Self.bundle(of: target, in: project, root: root, options: options)
            bundles[target.name] = made
            return made
        }
        var reports: [LintReport] = []
        var seen = Set<LintFinding>()
        // Apps first, so what an extension's report repeats about its app is dropped there.
        for target in chosen.sorted(by: { $0.isApplication && !$1.isApplication }) {
            if let other = platform(of: target, in: project, root: root, options: options) {
                reports.append(LintReport(folder: displayName, findings: [], target: target.name, skipped: other))
                continue
            }
            if target.productType == "com.apple.product-type.extensionkit-extension"
                || (bundle(target).manifest?.extensionPointIdentifier == nil && ProjectInventory.extensionKitPoint(bundle(target).info) != nil) {
                reports.append(LintReport(folder: displayName, findings: [], target: target.name, skipped: Self.extensionKitSkip))
                continue
            }
            var container: BundleFolder?
            if target.isAppExtension {
                let app = candidates.first { $0.isApplication && $0.embeddedTargets.contains(target.name) }
                    ?? candidates.first { $0.isApplication && $0.dependencies.contains(target.name) }
                container = app.map(bundle)
            }
            let linted = bundle(target)
            var report = Linter.lint(linted, container: container, folderName: displayName, target: target.name)
            // The Intune SDK's requirements only where the SDK is (init's detection): a target
            // without it is said to be so, once, instead of with every requirement it lacks.
            let appTarget = target.isAppExtension ? candidates.first { $0.isApplication && ($0.embeddedTargets.contains(target.name) || $0.dependencies.contains(target.name)) } : target
            let declared = options.sdkTargets.contains(target.name) || appTarget.map { options.sdkTargets.contains($0.name) } == true
            if !declared, !Self.showsIntuneSDK(linted), !(container.map(Self.showsIntuneSDK) ?? false) {
                report.findings = report.findings.filter { !LintRules.intuneRules.contains($0.rule) }
                report.findings.append(LintFinding(.note, rule: "intune-sdk-absent", file: linted.infoFile, keyPath: "",
                    problem: "shows no sign of the Intune SDK (no IntuneMAMSettings, no com.microsoft.intune.mam keychain group, no -intunemam URL scheme, no Microsoft.Intune NuGet package): its Intune requirements were not checked",
                    fix: "if it links the SDK (a module added at build time), lint it with --sdk \(appTarget?.name ?? target.name)"))
            }
            if target.isAppExtension, container == nil {
                report.findings.append(LintFinding(.warning, rule: "extension-container-missing", file: relative(project.manifest, to: root),
                    keyPath: "", problem: "no app target embeds the extension \(target.name), so its containing app's settings were not checked",
                    fix: "add it to the app target's Embed Foundation Extensions phase"))
            }
            if linted.infoFileURL == nil {
                report.findings = Self.locatedAtTheBuildSettings(report.findings, generated: linted.infoFile, project: relative(project.manifest, to: root), target: target.name)
            }
            report.findings = report.findings.filter { seen.insert($0).inserted }
            reports.append(report)
        }
        // What the project declares but could not be read (an include missing from the
        // checkout): a warning, the rest linted.
        if !project.unread.isEmpty {
            let file = relative(project.manifest, to: root)
            reports.append(LintReport(folder: displayName, findings: project.unread.map {
                LintFinding(.warning, rule: "project-unreadable", file: file, keyPath: "", problem: $0,
                            fix: project.manifest.lastPathComponent == "Project.swift"
                                ? "run `tuist generate --no-open` and lint the .xcodeproj to read what the manifest computes"
                                : "add the file to the repository, or run `xcodegen generate` and lint the .xcodeproj")
            }))
        }
        if !project.notes.isEmpty {
            let file = relative(project.manifest, to: root)
            reports.append(LintReport(folder: displayName, findings: project.notes.map {
                LintFinding(.note, rule: "project-read-as-source", file: file, keyPath: "", problem: $0,
                            fix: "nothing to do for lint; `tuist generate --no-open` and the .xcodeproj it writes give what Tuist computes")
            }))
        }
        return reports
    }

    /// The signs `init` reads that a bundle links the Intune SDK: `IntuneMAMSettings`, the SDK's
    /// keychain group, a `-intunemam` URL scheme.
    static func showsIntuneSDK(_ bundle: BundleFolder) -> Bool {
        bundle.info?["IntuneMAMSettings"] != nil
            || (bundle.entitlements?.keychainAccessGroups ?? []).contains { bundle.bareKeychainGroup($0) == "com.microsoft.intune.mam" }
            || bundle.urlSchemes.contains { $0.hasSuffix("-intunemam") }
            || bundle.intunePackage != nil
    }

    /// The macros an `INFOPLIST_PREPROCESS` pass defines: the prefix header's, then
    /// `INFOPLIST_PREPROCESSOR_DEFINITIONS`.
    static func preprocessorDefinitions(header: URL?, _ settings: BuildSettings, unresolved: inout [UnresolvedBuildSetting]) -> [String: String] {
        var definitions: [String: String] = [:]
        if let header, let text = InputFile.text(of: header) {
            var prefix = InfoPlistPreprocessor(definitions: [:], folder: header.deletingLastPathComponent())
            _ = prefix.process(text)
            definitions = prefix.definitions
        }
        let written = settings.expand(settings.variables["INFOPLIST_PREPROCESSOR_DEFINITIONS"] ?? "", keyPath: "", unresolved: &unresolved)
        definitions.merge(InfoPlistPreprocessor.definitions(from: written)) { _, new in new }
        return definitions
    }

    /// The keys Xcode writes into a generated Info.plist (`GENERATE_INFOPLIST_FILE`): the
    /// bundle's names and versions, and every `INFOPLIST_KEY_` setting.
    static func generatedInfo(_ settings: BuildSettings) -> [String: Any] {
        var generated: [String: Any] = [
            "CFBundleIdentifier": "$(PRODUCT_BUNDLE_IDENTIFIER)", "CFBundleExecutable": "$(EXECUTABLE_NAME)",
            "CFBundleName": "$(PRODUCT_NAME)", "CFBundlePackageType": "$(PRODUCT_BUNDLE_PACKAGE_TYPE)",
        ]
        if settings.variables["MARKETING_VERSION"] != nil { generated["CFBundleShortVersionString"] = "$(MARKETING_VERSION)" }
        if settings.variables["CURRENT_PROJECT_VERSION"] != nil { generated["CFBundleVersion"] = "$(CURRENT_PROJECT_VERSION)" }
        for (key, value) in settings.variables where key.hasPrefix("INFOPLIST_KEY_") {
            let plistKey = String(key.dropFirst("INFOPLIST_KEY_".count))
            switch value.uppercased() {
            case "YES": generated[plistKey] = true
            case "NO": generated[plistKey] = false
            default: generated[plistKey] = value
            }
        }
        return generated
    }

    /// An Info.plist a build phase writes into the build's own folders is in no checkout: its
    /// absence is a note saying so, not an error.
    static func writtenByTheBuild(_ problems: [LintFinding], infoPlist raw: String?) -> [LintFinding] {
        guard let raw, BuildSettings.namesABuildFolder(raw) else { return problems }
        return problems.map { f in
            f.rule != "info-plist-missing" ? f : LintFinding(.note, rule: f.rule, file: f.file, keyPath: "",
                problem: "is written by the build (\(raw)), so no checkout holds it: its keys were not checked",
                fix: "lint the Info.plist a build writes, or keep one in the repository")
        }
    }

    static func bundle(of target: XcodeProject.Target, in project: XcodeProject, root: URL, options: Options) -> BundleFolder {
        let configuration = configuration(of: target, in: project, options: options)
        var problems: [XCConfig.LoadProblem] = []
        let values = project.settings(for: target, configuration: configuration, root: root, problems: &problems)
        let settings = BuildSettings(values).overlaid(with: options.buildSettings)
        var unresolved: [UnresolvedBuildSetting] = []
        let projectFile = relative(project.manifest, to: root)
        var outside: [LintFinding] = []
        // A file the settings name outside the folder being linted is a finding, never a read
        // (nor a write for --fix): lint prints what it reads.
        func path(_ name: String) -> URL? {
            guard let raw = settings.variables[name], !raw.isEmpty else { return nil }
            let expanded = settings.expand(raw, keyPath: name, unresolved: &unresolved)
            // A setting that comes out empty (`$(IOS_CODE_SIGN_ENTITLEMENTS)` unset) names no file.
            guard !expanded.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            let url = expanded.hasPrefix("/") ? URL(fileURLWithPath: expanded) : project.sourceRoot.appendingPathComponent(expanded)
            guard ProjectRoot.contains(root, url) else {
                outside.append(LintFinding(.error, rule: "path-outside-project", file: projectFile, keyPath: name,
                    problem: "(\(target.name), \(configuration)) names \(ProjectRoot.printable(expanded, limit: 200)), which is outside the project (\(root.standardizedFileURL.path)); it was not read",
                    fix: "keep the file inside the project and name it relative to it (e.g. $(SRCROOT)/\(target.name)/\(url.lastPathComponent))"))
                return nil
            }
            return url
        }
        let infoURL = path("INFOPLIST_FILE")
        let entitlementsURL = path("CODE_SIGN_ENTITLEMENTS")
        // A file the generator writes from the spec is named with where it comes from.
        func shown(_ url: URL) -> String {
            project.generatedFiles[url.standardizedFileURL.path] == nil ? relative(url, to: root)
                : "\(relative(url, to: root)) (written by \(projectFile == "Project.swift" || projectFile.hasSuffix("/Project.swift") ? "Tuist" : "XcodeGen") from \(projectFile))"
        }
        let generated = settings.variables["GENERATE_INFOPLIST_FILE"]?.uppercased() == "YES" || infoURL == nil ? generatedInfo(settings) : [:]
        let definitions = settings.variables["INFOPLIST_PREPROCESS"]?.uppercased() == "YES"
            ? preprocessorDefinitions(header: path("INFOPLIST_PREFIX_HEADER"), settings, unresolved: &unresolved) : [:]
        var folder = BundleFolder(
            infoPlist: infoURL, infoName: infoURL.map(shown) ?? "\(projectFile) (\(target.name), generated Info.plist)",
            entitlements: entitlementsURL, entitlementsName: entitlementsURL.map(shown),
            generatedInfo: generated, preprocessorDefinitions: definitions, buildSettings: settings, generatedFiles: project.generatedFiles)
        folder.problems = Self.writtenByTheBuild(folder.problems, infoPlist: settings.variables["INFOPLIST_FILE"])
        folder.problems += problems.map { $0.finding(file: relativeName($0.file, project: project, root: root)) }
        folder.problems += outside
        // What the generator computes is set in the project it generates, whatever its value.
        folder.problems.removeAll { $0.rule == "build-setting-unresolved" && LintContext.variableName(in: $0.problem).map(target.computed.contains) == true }
        for u in unresolved where !target.computed.contains(u.name) {
            folder.problems.append(LintFinding(.warning, rule: "build-setting-unresolved", file: projectFile, keyPath: u.keyPath,
                                               problem: "(\(target.name), \(configuration)) build setting $(\(u.name)) \(u.problem)",
                                               fix: "define it in the target's build settings or pass --set \(u.name)=VALUE"))
        }
        return folder
    }

    static func relativeName(_ name: String, project: XcodeProject, root: URL) -> String {
        let full = name.hasPrefix("/") ? URL(fileURLWithPath: name) : project.url.deletingLastPathComponent().appendingPathComponent(name)
        return relative(full, to: root)
    }

}

/// `mamsim lint` was given something it cannot lint (exit 2): says what and what to do.
public struct LintInputError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
