public import Foundation
import MAMDeclarations
import MAMExtensions
import MAMActivation
public import MAMBundle
import MAMModel
import MAMDevice
public import MAMDocument
import MAMPolicy
import Yams

/// Reads a scenario file (YAML, or JSON, which is YAML too) into a validated `Scenario`.
///
/// Everything is checked before anything runs: unknown keys (with a "did you mean …?"),
/// values of the wrong type, missing arguments, unknown app, extension, account and policy
/// names, missing or malformed referenced files, duplicate ids. Problems are collected and
/// thrown together as one `ScenarioError`, each with its file, line, column and key path.
public enum ScenarioLoader {
    /// Loads the scenario in `file`. `buildSettings` expand `$(VAR)` references in the
    /// Info.plists and entitlements the scenario points to. `allowances` are what the user
    /// lets apps read or receive beyond what their `sandbox` declarations may ask for alone
    /// (`SandboxDeclarations`).
    public static func load(file: URL, buildSettings: [String: String] = [:], allowances: SandboxAllowances = SandboxAllowances()) throws(ScenarioError) -> Scenario {
        let data: Data
        do {
            data = try InputFile.contents(of: file)
        } catch let large as InputFile.TooLarge {
            throw ScenarioError(file: file, message: large.description)
        } catch {
            throw ScenarioError(file: file, message: "cannot read the scenario file (\(error.localizedDescription)); check the path")
        }
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let text = String(data: Data(bytes), encoding: .utf8) else {
            throw ScenarioError(file: file, message: "the scenario file is not UTF-8 text; save it as UTF-8")
        }
        return try load(text: text, file: file, buildSettings: buildSettings, allowances: allowances)
    }

    /// Loads scenario text as if it were the contents of `file` (relative paths resolve
    /// against `file`'s folder; messages name `file`).
    public static func load(text: String, file: URL, buildSettings: [String: String] = [:], allowances: SandboxAllowances = SandboxAllowances()) throws(ScenarioError) -> Scenario {
        // JSON may indent with tabs, which YAML forbids in block context; outside strings a
        // tab is plain whitespace in JSON (and inside strings it must be escaped), so
        // swapping it for a space changes neither meaning nor columns.
        let yaml = file.pathExtension.lowercased() == "json" ? text.replacingOccurrences(of: "\t", with: " ") : text
        let root: Node
        do {
            guard let node = try BoundedYAML.compose(yaml: yaml) else {
                throw ScenarioError(file: file, message: "the scenario file is empty; it needs at least `steps:`")
            }
            root = node
        } catch let error as ScenarioError {
            throw error
        } catch let error as YamlError {
            throw ScenarioError.syntax(error, file: file)
        } catch let error as BoundedYAML.TooLarge {
            throw ScenarioError(file: file, line: error.line, column: error.column, message: error.problem)
        } catch {
            throw ScenarioError(file: file, message: "is not valid YAML or JSON (\(error))")
        }
        let loading = Loading(file: file, buildSettings: BuildSettings(buildSettings), allowances: allowances)
        return try loading.scenario(from: Located(node: root, path: ""))
    }

    /// `2GiB`, `512 MiB`, `1.5GB`, `1048576`: bytes (binary units for both spellings, as
    /// memory is counted), or `nil`.
    static func byteCount(_ text: String) -> UInt64? {
        let t = text.replacingOccurrences(of: " ", with: "")
        let units: [(String, Double)] = [("GiB", 1_073_741_824), ("MiB", 1_048_576), ("KiB", 1024), ("GB", 1_073_741_824), ("MB", 1_048_576), ("KB", 1024), ("G", 1_073_741_824), ("M", 1_048_576), ("K", 1024), ("B", 1)]
        for (suffix, factor) in units where t.hasSuffix(suffix) {
            guard let v = Double(t.dropLast(suffix.count)), v > 0, v * factor < 1e18 else { return nil }
            return UInt64(v * factor)
        }
        return UInt64(t)
    }
}

/// The state of one load: what has been read so far, so later sections can check names
/// against earlier ones.
final class Loading {
    let file: URL
    let folder: URL
    let buildSettings: BuildSettings
    let allowances: SandboxAllowances
    /// The project's walks, made once for every app's sandbox of this load.
    let projectScan = ProjectScan()
    let reader: DocumentReader

    var policies: [String: IosManagedAppProtection] = [:]
    /// Policies declared but refused (their error is reported once, where they are declared).
    var brokenPolicies: Set<String> = []
    /// Where each policy was declared, for warnings about it.
    var policyLocations: [String: Located] = [:]
    /// Where each policy and app configuration is written, for reports that point at them.
    var policySources: [String: SourcePlace] = [:]
    var appConfigSources: [String: SourcePlace] = [:]
    /// Where each app's `sdkVersion` is written, for what is said of it.
    var appLocations: [String: Located] = [:]
    var accounts: [ScenarioAccount] = []
    var apps: [ScenarioApp] = []
    var extensions: [ScenarioExtension] = []
    var appConfigs: [AppConfigPolicy] = []
    var declarations: [DeclarationSet.Entry] = []
    var conditionalAccess: [ConditionalAccessPolicy] = []
    /// The files the scenario read its data from (policies, configurations, declarations,
    /// items): no app may read them directly.
    var inputs: [URL] = []

    static let topLevelKeys = ["name", "device", "accounts", "policies", "allowedAccounts", "apps", "extensions", "steps",
                               "appConfigs", "declarations", "conditionalAccess", "strict"]
    static let deviceKeys = ["mdmEnrolled", "jailbroken", "compliant", "osVersion", "clock", "restrictions", "model", "network", "authenticator", "limits",
                             "mdmEnrolledAs", "service", "assetServer"]
    static let serviceKeys = ["delivery", "checkInEvery", "propagation", "tokenLifetime"]
    static let accountKeys = ["upn", "oid", "tenant", "policy", "policies", "licensed", "groups", "roles"]

    init(file: URL, buildSettings: BuildSettings, allowances: SandboxAllowances = SandboxAllowances()) {
        self.file = file
        self.allowances = allowances
        self.folder = file.absoluteURL.deletingLastPathComponent()
        self.buildSettings = buildSettings
        self.reader = DocumentReader(file: file)
    }

    func scenario(from root: Located) throws(ScenarioError) -> Scenario {
        guard let top = reader.fields(root, allowed: Self.topLevelKeys, what: "a scenario") else {
            throw ScenarioError(problems: reader.errors)
        }
        // An empty section (`device:` with nothing under it) is the same as an absent one.
        func section(_ key: String) -> Located? { top[key].flatMap { $0.isNull ? nil : $0 } }
        var name = file.deletingPathExtension().lastPathComponent
        if let v = section("name"), let s = reader.string(v, what: "name") { name = s }
        let device = section("device").map(readDevice) ?? ScenarioDevice()
        if let v = section("policies") { readPolicies(v) }
        if let v = section("accounts") { readAccounts(v) }
        let allowed = section("allowedAccounts").flatMap(readAllowedAccounts)
        if let v = section("apps") { readApps(v) }
        if let v = section("extensions") { readExtensions(v) }
        if let v = section("appConfigs") { readAppConfigs(v) }
        if let v = section("conditionalAccess") { readConditionalAccess(v) }
        if let v = section("declarations") { declarations = readDeclarationFiles(v, checkReferences: true).entries }
        var steps: [Step] = []
        if let v = section("steps") { steps = readSteps(v) }
        let strict = section("strict").map(readStrict) ?? StrictSettings()

        if !reader.errors.isEmpty {
            throw ScenarioError(problems: reader.errors)
        }
        let fleet = buildFleet(device: device, allowed: allowed)
        warnUntargeted(in: fleet)
        warnSDKVersions(device: device)
        var scenario = Scenario(name: name, file: file, device: device, accounts: accounts, policies: policies,
                        allowedAccounts: allowed, apps: apps, extensions: extensions, appConfigs: appConfigs, declarations: declarations, conditionalAccess: conditionalAccess, steps: steps,
                        warnings: reader.warnings, fleet: fleet)
        scenario.inputs = inputs
        scenario.strict = strict
        scenario.policySources = policySources
        scenario.appConfigSources = appConfigSources
        return scenario
    }

    // MARK: Strict Mode

    /// `strict: true`, or `strict: {enabled?, suppress: [{check, file?, reason}]}` (v1.5,
    /// docs/STRICT.md): whether the apps' integration mistakes fail the run, and the ones a
    /// team accepted, each with its reason.
    func readStrict(_ v: Located) -> StrictSettings {
        var settings = StrictSettings()
        if v.node.scalar != nil {
            settings.enabled = reader.bool(v, what: "strict") ?? false
            return settings
        }
        guard let f = reader.fields(v, allowed: ["enabled", "suppress"], what: "strict") else { return settings }
        settings.enabled = f["enabled"].flatMap { reader.bool($0, what: "strict.enabled") } ?? true
        for (i, item) in (f["suppress"].flatMap { reader.list($0, what: "strict.suppress") } ?? []).enumerated() {
            // A missing check or reason is the reader's error already (required keys).
            guard let g = reader.fields(item, allowed: ["check", "file", "reason"], required: ["check", "reason"], what: "strict.suppress[\(i)]"),
                  let checkNode = g["check"], let reasonNode = g["reason"],
                  let check = reader.string(checkNode, what: "check"), let reason = reader.string(reasonNode, what: "reason") else { continue }
            guard StrictCheck.names.contains(check) else {
                let hint = Suggestion.closest(to: check, among: StrictCheck.allCases.map(\.rawValue)).map { "did you mean \"\($0)\"? " } ?? ""
                reader.error(checkNode, "\(check) is not a Strict Mode check; \(hint)docs/STRICT.md lists them")
                continue
            }
            guard !reason.trimmingCharacters(in: .whitespaces).isEmpty else {
                reader.error(reasonNode, "a suppression says why: write the reason the team accepts this finding")
                continue
            }
            settings.suppressions.append(StrictSuppression(check: check, file: g["file"].flatMap { reader.string($0, what: "file") }, reason: reason))
        }
        return settings
    }

}
