public import Foundation
import MAMDeclarations
import MAMExtensions
import MAMActivation
public import MAMBundle
import MAMModel
import MAMDevice
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
            throw syntaxError(error, file: file)
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

    /// What a YAML parser's words about indentation mean for a scenario, in ours.
    static func indentationHint(_ detail: String, line: Int, file: URL) -> String {
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let bad = line >= 1 && line <= lines.count ? lines[line - 1] : ""
        if bad.prefix(while: { $0 == " " || $0 == "\t" }).contains("\t") || detail.contains("cannot start any token") && bad.hasPrefix("\t") {
            return " (line \(line) is indented with a tab; YAML indents with spaces only)"
        }
        if detail.contains("expected '-' indicator") || detail.contains("did not find expected key") || detail.contains("mapping values are not allowed") {
            return " (line \(line) is indented differently from the lines around it: the keys of one list item line up under the first key after its `- `, and a new item starts with `- ` at the list's indentation)"
        }
        return ""
    }

    static func syntaxError(_ error: YamlError, file: URL) -> ScenarioError {
        switch error {
        case .scanner(let context, let problem, let mark, _),
             .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            let detail = context.map { "\(problem) \($0.text)" } ?? problem
            return ScenarioError(file: file, line: mark.line, column: mark.column,
                                 message: "not valid YAML or JSON: \(detail)" + indentationHint(detail, line: mark.line, file: file))
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ScenarioError(file: file, line: context.mark.line, column: context.mark.column,
                                 message: "key \(duplicates.map { "\"\($0)\"" }.joined(separator: ", ")) appears twice in one mapping; keep one")
        default:
            return ScenarioError(file: file, message: "not valid YAML or JSON: \(error)")
        }
    }
}

/// The state of one load: what has been read so far, so later sections can check names
/// against earlier ones.
final class Loading {
    let file: URL
    let folder: URL
    let buildSettings: BuildSettings
    let allowances: SandboxAllowances
    let reader: DocumentReader

    var policies: [String: IosManagedAppProtection] = [:]
    /// Policies declared but refused (their error is reported once, where they are declared).
    var brokenPolicies: Set<String> = []
    /// Where each policy was declared, for warnings about it.
    var policyLocations: [String: Located] = [:]
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
    static let deviceKeys = ["mdmEnrolled", "jailbroken", "osVersion", "clock", "restrictions", "model", "network", "authenticator", "limits",
                             "mdmEnrolledAs", "service", "assetServer"]
    static let serviceKeys = ["delivery", "checkInEvery", "propagation", "tokenLifetime"]
    static let accountKeys = ["upn", "oid", "tenant", "policy", "licensed"]

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
        var scenario = Scenario(name: name, file: file, device: device, accounts: accounts, policies: policies,
                        allowedAccounts: allowed, apps: apps, extensions: extensions, appConfigs: appConfigs, declarations: declarations, conditionalAccess: conditionalAccess, steps: steps,
                        warnings: reader.warnings, fleet: fleet)
        scenario.inputs = inputs
        scenario.strict = strict
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

    // MARK: Device

    func readDevice(_ v: Located) -> ScenarioDevice {
        var device = ScenarioDevice()
        guard let f = reader.fields(v, allowed: Self.deviceKeys,
                                    what: "device") else { return device }
        if let x = f["mdmEnrolled"], let b = reader.bool(x, what: "mdmEnrolled") { device.mdmEnrolled = b }
        if let x = f["jailbroken"], let b = reader.bool(x, what: "jailbroken") { device.jailbroken = b }
        if let x = f["osVersion"], let s = reader.string(x, what: "osVersion") {
            if let version = Version(s) { device.osVersion = version } else {
                reader.error(x, "osVersion must be a dotted version such as \"18.4\", but it is \(x.shape)")
            }
        }
        if let x = f["clock"], let s = reader.string(x, what: "clock") {
            if let instant = Instant(iso8601: s) { device.clock = instant } else {
                reader.error(x, "clock must be an ISO-8601 date-time such as \"2026-01-01T09:00:00Z\", but it is \(x.shape)")
            }
        }
        if let x = f["model"], let s = reader.name(x, what: "model") { device.model = s }
        if let x = f["authenticator"], let b = reader.bool(x, what: "authenticator") { device.authenticator = b }
        if let x = f["assetServer"], let s = reader.string(x, what: "assetServer") {
            switch s {
            case "available": device.assetServerAvailable = true
            case "failing": device.assetServerAvailable = false
            default: reader.error(x, "assetServer must be available or failing, but it is \"\(s)\"")
            }
        }
        if let x = f["network"], let s = reader.string(x, what: "network") {
            switch s {
            case "online": device.online = true
            case "offline": device.online = false
            default: reader.error(x, "network must be online or offline, but it is \"\(s)\"")
            }
        }
        if let x = f["limits"], let l = reader.fields(x, allowed: ["memory", "processes", "storage"], what: "limits") {
            for key in ["memory", "storage"] {
                guard let m = l[key] else { continue }
                if let bytes = ScenarioLoader.byteCount(m.node.scalar?.string ?? ""), bytes >= 1 << 20 {
                    if key == "memory" { device.limits.memoryBytes = bytes } else { device.limits.storageBytes = bytes }
                } else {
                    reader.error(m, "limits.\(key) must be a size of at least 1MiB such as 2GiB, 512MiB or a number of bytes, but it is \(m.shape)")
                }
            }
            if let p = l["processes"], let n = reader.int(p, what: "limits.processes") {
                if n > 0 { device.limits.processes = n } else { reader.error(p, "limits.processes must be at least 1, but it is \(n)") }
            }
        }
        if let x = f["mdmEnrolledAs"], let s = reader.name(x, what: "mdmEnrolledAs") {
            // The device is MDM-enrolled, by this user.
            device.mdmEnrolled = true
            device.service.mdmEnrolledAs = s
        }
        if let x = f["service"], let g = reader.fields(x, allowed: Self.serviceKeys, what: "service") {
            if let d = g["delivery"], let s = reader.string(d, what: "delivery") {
                if let delivery = IntuneServiceSettings.Delivery(rawValue: s) { device.service.delivery = delivery } else {
                    reader.error(d, "delivery must be \(IntuneServiceSettings.Delivery.allCases.map(\.rawValue).joined(separator: " or ")), but it is \"\(s)\"")
                }
            }
            func duration(_ key: String, positive: Bool) -> Double? {
                guard let d = g[key], let s = reader.string(d, what: key) else { return nil }
                guard let value = ISODuration(s), value.seconds >= 0, !positive || value.seconds > 0 else {
                    reader.error(d, "service.\(key) must be \(positive ? "a positive" : "a non-negative") ISO-8601 duration such as PT30M, but it is \(d.shape)")
                    return nil
                }
                return value.seconds
            }
            if let s = duration("checkInEvery", positive: true) { device.service.checkInEvery = s }
            if let s = duration("propagation", positive: false) { device.service.propagation = s }
            if let s = duration("tokenLifetime", positive: true) { device.service.tokenLifetime = s }
        }
        if let x = f["restrictions"] {
            if case .mapping(let m) = x.node {
                for (k, value) in m {
                    let key = k.scalar?.string ?? ""
                    let loc = Located(node: value, path: x.child(key))
                    if let b = reader.bool(loc, what: "restriction \"\(key)\"") { device.restrictions[key] = b }
                }
            } else if !x.isNull {
                reader.error(x, "restrictions must be a mapping of Apple MDM restriction keys to true or false, but it is \(x.shape)")
            }
        }
        return device
    }

    // MARK: Accounts

    func readAccounts(_ v: Located) {
        guard let items = reader.list(v, what: "accounts") else { return }
        for item in items {
            guard let f = reader.fields(item, allowed: Self.accountKeys, required: ["upn"],
                                        what: "an account") else { continue }
            guard let upnLoc = f["upn"], let upn = reader.name(upnLoc, what: "upn") else { continue }
            var oid = ScenarioAccount.derivedOID(forUPN: upn)
            var derived = true
            if let x = f["oid"], let s = reader.name(x, what: "oid") { oid = s; derived = false }
            var tenant = ""
            if let x = f["tenant"], let s = reader.string(x, what: "tenant") { tenant = s }
            var policyName: String?
            if let x = f["policy"], !x.isNull, let s = reader.name(x, what: "policy") {
                if policies[s] == nil {
                    if !brokenPolicies.contains(s) { reader.error(x, unknownPolicy(s)) }
                } else {
                    policyName = s
                }
            }
            let account = Account(upn: upn, oid: oid, tenant: tenant)
            if let other = accounts.first(where: { $0.account.isSame(as: account) }) {
                reader.error(upnLoc, "account \"\(upn)\" is declared twice (same UPN or OID as \"\(other.account)\"); keep one")
                continue
            }
            var entry = ScenarioAccount(account: account, oidWasDerived: derived, policyName: policyName)
            if let x = f["licensed"], let b = reader.bool(x, what: "licensed") { entry.licensed = b }
            accounts.append(entry)
        }
    }

    func unknownPolicy(_ name: String) -> String {
        let known = policies.keys.sorted()
        if known.isEmpty { return "no policy named \"\(name)\"; declare it under policies:" }
        return "no policy named \"\(name)\"" + (Suggestion.closest(to: name, among: known).map { "; did you mean \"\($0)\"?" }
            ?? "; the policies are: \(known.joined(separator: ", "))")
    }

    /// The scenario account `v` names by UPN or OID (any case). `""` gives the unmanaged
    /// identity when `allowUnmanaged`.
    func account(_ v: Located, what: String, allowUnmanaged: Bool = false) -> Account? {
        guard let key = reader.string(v, what: what) else { return nil }
        if key.isEmpty {
            if allowUnmanaged { return Account(upn: "") }
            reader.error(v, "\(what) must name an account; \"\" (unmanaged) is not allowed here")
            return nil
        }
        if let found = accounts.first(where: { $0.account.matches(key) }) { return found.account }
        let upns = accounts.map(\.account.upn)
        let hint = Suggestion.closest(to: key, among: upns).map { "; did you mean \"\($0)\"?" }
            ?? (upns.isEmpty ? "; declare it under accounts:" : "; the accounts are: \(upns.joined(separator: ", "))")
        reader.error(v, "no account with UPN or OID \"\(key)\"\(hint)")
        return nil
    }

    func readAllowedAccounts(_ v: Located) -> [String]? {
        guard let items = reader.list(v, what: "allowedAccounts") else { return nil }
        var out: [String] = []
        for item in items {
            if let a = account(item, what: "each entry of allowedAccounts") {
                // Both names, so the check matches whichever one the SDK reports.
                out.append(contentsOf: [a.upn, a.oid].filter { !$0.isEmpty })
            }
        }
        return out
    }

    // MARK: Handles

    var allHandles: [String] { apps.map(\.id) + extensions.map(\.id) }

    /// The handle of an app (or, when `extensions` allows, an extension) named by `v`.
    func handle(_ v: Located, what: String, allowExtensions: Bool) -> String? {
        guard let id = reader.string(v, what: what) else { return nil }
        if apps.contains(where: { $0.id == id }) { return id }
        if extensions.contains(where: { $0.id == id }) {
            if allowExtensions { return id }
            reader.error(v, "\"\(id)\" is an extension; \(what) must be an app")
            return nil
        }
        let known = allHandles.prefix(20).joined(separator: ", ") + (allHandles.count > 20 ? ", … (\(allHandles.count) in all)" : "")
        reader.error(v, "no app or extension with id \"\(id)\"" + Suggestion.clause(for: id, among: allHandles) + " (the ids are: \(known))")
        return nil
    }

    // MARK: Files

    /// A path relative to the scenario's folder that must exist (a folder when `directory`).
    func existingPath(_ v: Located, what: String, directory: Bool = false) -> URL? {
        guard let path = reader.name(v, what: what) else { return nil }
        let url = URL(fileURLWithPath: path, relativeTo: folder).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            reader.error(v, "\(directory ? "folder" : "file") \"\(path)\" does not exist; paths are relative to the scenario file's folder")
            return nil
        }
        if isDirectory.boolValue != directory {
            reader.error(v, "\"\(path)\" is \(isDirectory.boolValue ? "a folder" : "a file"), but \(what) must be \(directory ? "a folder" : "a file")")
            return nil
        }
        return url
    }

    // MARK: Fleet

    func buildFleet(device: ScenarioDevice, allowed: [String]?) -> Fleet {
        var fleet = Fleet(device: device.facts, allowedAccounts: allowed)
        fleet.service = device.service
        for entry in accounts {
            fleet.add(entry.account, policy: entry.policyName.flatMap { policies[$0] })
            if !entry.licensed {
                fleet.service.unlicensed.insert(entry.account.upnKey)
                if !entry.account.oidKey.isEmpty { fleet.service.unlicensed.insert(entry.account.oidKey) }
            }
        }
        for app in apps { fleet.install(app.descriptor) }
        for ext in extensions { fleet.install(ext.descriptor) }
        return fleet
    }
}
