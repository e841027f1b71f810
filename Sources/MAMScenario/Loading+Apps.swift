import Foundation
import MAMExtensions
import MAMActivation
import MAMBundle
import MAMDocument
import MAMModel
import MAMPolicy
import MAMWire
import Yams

/// `apps:` and `extensions:` — explicit keys first, then what real Info.plists and
/// entitlements files say for the keys left out.
extension Loading {
    static let appKeys = ["id", "bundle", "sdk", "multiIdentity", "urlSchemes", "keychainGroups", "appGroups",
                          "info", "entitlements", "executable", "arguments", "mdmManaged", "intuneMAMUPN",
                          "version", "sdkVersion", "restoresState", "teamId", "clientCapabilities",
                          "telemetryDisabled", "sandbox", "msalAccounts", "publisher", "delegate", "associatedDomains",
                          // The contract's (v1.2) names for three of the delegate's answers.
                          "acceptsIdentitySwitch", "wipeReturns", "restartsItself"]
    static let extensionKeys = ["id", "plugin", "container", "executable", "arguments", "sandbox", "fullAccess", "kind"]

    func readApps(_ v: Located) {
        guard let items = reader.list(v, what: "apps") else { return }
        for item in items {
            guard let f = reader.fields(item, allowed: Self.appKeys, required: ["id"], what: "an app") else { continue }
            guard let idLoc = f["id"], let id = reader.name(idLoc, what: "id") else { continue }
            guard isNewHandle(id, at: idLoc) else { continue }

            var info: AppInfo?
            var infoURL: URL?
            if let x = f["info"], let url = existingPath(x, what: "info") {
                infoURL = url
                info = readAppInfo(url, at: x, overridden: overriddenPlistKeys(f))
            }
            var entitlements: Entitlements?
            var entitlementsURL: URL?
            if let x = f["entitlements"], let url = existingPath(x, what: "entitlements") {
                entitlementsURL = url
                entitlements = readEntitlements(url, at: x, overridden: overriddenPlistKeys(f))
            }

            var bundle = info?.bundleIdentifier
            if let x = f["bundle"] { bundle = reader.name(x, what: "bundle") ?? bundle }
            if f["bundle"] == nil, let b = bundle, b.contains("$(") || b.contains("${") {
                reader.error(f["info"]!, "CFBundleIdentifier in \(written(f["info"]!, infoURL!)) is \"\(b)\", an unresolved build setting; set bundle: or pass the build setting")
                continue
            }
            guard let bundle else {
                if f["bundle"] == nil {
                    reader.error(item, "an app needs \"bundle\" (or an info: Info.plist with CFBundleIdentifier)")
                }
                continue
            }
            var descriptor = AppDescriptor(bundleID: BundleID(bundle))
            descriptor.multiIdentity = info?.multiIdentity ?? false
            descriptor.urlSchemes = info?.urlSchemes ?? []
            descriptor.keychainAccessGroups = entitlements?.keychainAccessGroups ?? []
            descriptor.appGroups = entitlements?.applicationGroups ?? info?.appGroupIdentifiers ?? []
            descriptor.associatedDomains = entitlements?.universalLinkDomains ?? []
            if let x = f["sdk"], let b = reader.bool(x, what: "sdk") { descriptor.sdkIntegrated = b }
            if let x = f["multiIdentity"], let b = reader.bool(x, what: "multiIdentity") { descriptor.multiIdentity = b }
            if let x = f["mdmManaged"], let b = reader.bool(x, what: "mdmManaged") { descriptor.mdmManaged = b }
            if let x = f["intuneMAMUPN"], let b = reader.bool(x, what: "intuneMAMUPN") {
                descriptor.intuneMAMUPNConfigured = b
                appLocations[id] = x
                if b, !descriptor.mdmManaged { reader.error(x, "intuneMAMUPN: true needs mdmManaged: true: only the MDM delivers IntuneMAMUPN to an app it manages") }
            }
            if let x = f["urlSchemes"], let s = reader.strings(x, what: "urlSchemes") { descriptor.urlSchemes = s }
            if let x = f["keychainGroups"], let s = reader.strings(x, what: "keychainGroups") { descriptor.keychainAccessGroups = s }
            // `applinks:contoso.com` as the entitlement writes it, or the bare domain.
            if let x = f["associatedDomains"], let s = reader.strings(x, what: "associatedDomains") {
                descriptor.associatedDomains = s.map { $0.hasPrefix("applinks:") ? String($0.dropFirst("applinks:".count)) : $0 }
            }
            if let x = f["appGroups"], let s = reader.strings(x, what: "appGroups") { descriptor.appGroups = s }
            descriptor.shortVersion = info?.shortVersion
            descriptor.telemetryDisabled = info?.telemetryDisabled ?? false
            descriptor.hooksAlwaysEnabled = info?.hooksAlwaysEnabled ?? false
            descriptor.autoEnrollOnLaunch = info?.autoEnrollOnLaunch ?? false
            descriptor.mamPolicyRequired = info?.mamPolicyRequired ?? false
            if let x = f["telemetryDisabled"], let b = reader.bool(x, what: "telemetryDisabled") { descriptor.telemetryDisabled = b }
            if let x = f["version"] { descriptor.shortVersion = version(x, what: "version") }
            if let x = f["sdkVersion"] {
                descriptor.sdkVersion = version(x, what: "sdkVersion")
                appLocations[id] = x
            }
            // An app with a program of its own restores its screens itself, if it does.
            descriptor.restoresState = f["executable"] == nil
            if let x = f["restoresState"], let b = reader.bool(x, what: "restoresState") { descriptor.restoresState = b }
            if let x = f["teamId"], let s = reader.name(x, what: "teamId") { descriptor.teamId = s }
            if let x = f["clientCapabilities"], let c = reader.strings(x, what: "clientCapabilities") { descriptor.clientCapabilities = c }
            if let x = f["publisher"], let s = reader.name(x, what: "publisher") { descriptor.publisher = s }
            guard isNewBundle(descriptor.bundleID, at: f["bundle"] ?? idLoc) else { continue }

            let (executable, arguments) = readProgram(f)
            var app = ScenarioApp(id: id, descriptor: descriptor, infoPlist: infoURL, entitlements: entitlementsURL,
                                  executable: executable, arguments: arguments)
            if let x = f["sandbox"] {
                app.sandbox = vetted(readSandbox(x, relativeTo: folder), ownFolder: executable?.deletingLastPathComponent() ?? folder, at: x, source: "sandbox")
            }
            if let executable { judgeProgram(executable, into: &app.sandbox) }
            if let x = f["msalAccounts"], let names = reader.strings(x, what: "msalAccounts") {
                for name in names where !accounts.contains(where: { $0.account.matches(name) }) {
                    reader.error(x, "no account with UPN or OID \"\(name)\"" + Suggestion.clause(for: name, among: accounts.map(\.account.upn)))
                }
                app.msalAccounts = names
                app.msalAccountsListed = true
            }
            if let x = f["delegate"] { app.delegate = readDelegate(x) }
            // The keys `delegate:` spells out, read off the node (readDelegate said what is wrong in it).
            let spelledOut = Set(f["delegate"]?.node.mapping.map { $0.keys.compactMap { $0.scalar?.string } } ?? [])
            for (key, alias) in ContractAliases.delegateKeys.sorted(by: { $0.key < $1.key }) {
                guard let x = f[key], let yes = reader.bool(x, what: key) else { continue }
                if spelledOut.contains(alias.key) {
                    reader.error(x, "\(key) and delegate.\(alias.key) say the same thing; keep one")
                    continue
                }
                switch alias.key {
                case "identitySwitch": app.delegate.refusesIdentitySwitch = !yes
                case "wipe": app.delegate.wipesDataItself = yes
                default: app.delegate.restartsItself = yes
                }
            }
            apps.append(app)
        }
    }

    /// `delegate: {identitySwitch: accept|refuse, wipe: sdk|app, restart: sdk|app, addAccount: accept|refuse}`.
    func readDelegate(_ v: Located) -> DelegateAnswers {
        var answers = DelegateAnswers()
        guard let f = reader.fields(v, allowed: ["identitySwitch", "wipe", "restart", "addAccount"], what: "delegate") else { return answers }
        func choice(_ key: String, _ words: [String]) -> String? {
            guard let x = f[key], let w = reader.string(x, what: key) else { return nil }
            guard words.contains(w) else {
                reader.error(x, "\(key) is one of \(words.joined(separator: ", ")), not \"\(w)\"" + Suggestion.clause(for: w, among: words))
                return nil
            }
            return w
        }
        answers.refusesIdentitySwitch = choice("identitySwitch", ["accept", "refuse"]) == "refuse"
        answers.wipesDataItself = choice("wipe", ["sdk", "app"]) == "app"
        answers.restartsItself = choice("restart", ["sdk", "app"]) == "app"
        answers.refusesAddAccount = choice("addAccount", ["accept", "refuse"]) == "refuse"
        return answers
    }

    func readExtensions(_ v: Located) {
        guard let items = reader.list(v, what: "extensions") else { return }
        for item in items {
            guard let f = reader.fields(item, allowed: Self.extensionKeys, required: ["id", "plugin", "container"],
                                        what: "an extension") else { continue }
            guard let idLoc = f["id"], let id = reader.name(idLoc, what: "id") else { continue }
            guard isNewHandle(id, at: idLoc) else { continue }
            var container: ScenarioApp?
            if let x = f["container"], let handle = handle(x, what: "container", allowExtensions: false) {
                container = apps.first { $0.id == handle }
            }
            guard let pluginLoc = f["plugin"], let folder = existingPath(pluginLoc, what: "plugin", directory: true),
                  let container else { continue }
            guard let plugin = readPlugin(folder, at: pluginLoc) else { continue }
            let manifest = plugin.manifest

            let kind: AppDescriptor.Kind
            switch manifest.kind {
            case .share: kind = .share
            case .action: kind = .action
            case .keyboard: kind = .keyboard
            case .other(let point):
                // SCENARIOS v1.4: the other extension points are fleet members too.
                guard let other = AppDescriptor.Kind.forExtensionPoint(point) else {
                    reader.error(pluginLoc, "\(plugin.infoName): NSExtension.NSExtensionPointIdentifier is \(point.isEmpty ? "missing" : "\"\(point)\""); a share extension needs \"com.apple.share-services\", an action extension \"com.apple.ui-services\" or \"com.apple.services\", a keyboard \"com.apple.keyboard-service\" (the v1.4 kinds: a File Provider, widget, AutoFill, intents, notification, broadcast, iMessage or content blocker point)")
                    continue
                }
                kind = other
            }
            // `kind` (v1.2) says what the plugin's Info.plist says; a disagreement is a mistake.
            if let x = f["kind"], let written = reader.string(x, what: "kind") {
                let actual = kind.rawValue
                if written != actual {
                    reader.error(x, "kind is \"\(written)\", but \(plugin.infoName) makes it a \(actual) extension (NSExtensionPointIdentifier \(manifest.extensionPointIdentifier ?? "")); write kind: \(actual), or leave kind out")
                    continue
                }
            }
            guard let bundle = manifest.bundleIdentifier, !bundle.isEmpty else {
                reader.error(pluginLoc, "\(plugin.infoName) has no CFBundleIdentifier; set it (or pass PRODUCT_BUNDLE_IDENTIFIER as a build setting)")
                continue
            }
            let settings = manifest.intuneSettings
            if let declared = settings.containingAppBundleId, BundleID(declared) != container.descriptor.bundleID {
                reader.warn(pluginLoc, "\(plugin.infoName): IntuneMAMSettings.ContainingAppBundleId is \"\(declared)\", but the container \"\(container.id)\" is \(container.descriptor.bundleID); the container wins")
            }
            var groups = plugin.entitlements?.applicationGroups ?? []
            if groups.isEmpty { groups = settings.appGroupIdentifiers }
            let descriptor = AppDescriptor(
                bundleID: BundleID(bundle), kind: kind,
                sdkIntegrated: container.descriptor.sdkIntegrated,
                multiIdentity: settings.multiIdentity,
                containingApp: container.descriptor.bundleID,
                keychainAccessGroups: plugin.entitlements?.keychainAccessGroups ?? [],
                appGroups: groups,
                openInActionExtension: settings.openInActionExtension,
                mdmManaged: container.descriptor.mdmManaged)
            var withTeam = descriptor
            withTeam.teamId = container.descriptor.teamId
            withTeam.publisher = container.descriptor.publisher
            withTeam.restoresState = false
            // Full access is the user's grant in Settings, possible only for a keyboard that asks.
            if let x = f["fullAccess"], let granted = reader.bool(x, what: "fullAccess") {
                if kind != .keyboard {
                    reader.error(x, "fullAccess is for a keyboard extension (com.apple.keyboard-service); \(id) is a \(kind.rawValue) extension")
                } else if granted, !manifest.requestsOpenAccess {
                    reader.error(x, "\(plugin.infoName) does not set NSExtension.NSExtensionAttributes.RequestsOpenAccess, so the user cannot grant full access; set it to true, or drop fullAccess")
                } else {
                    withTeam.keyboardFullAccess = granted
                }
            }
            let descriptorWithTeam = withTeam
            guard isNewBundle(descriptor.bundleID, at: pluginLoc) else { continue }
            for w in manifest.warnings { reader.warn(pluginLoc, w) }
            for u in manifest.unresolvedVariables { reader.warn(pluginLoc, "\(plugin.infoName): \(u)") }

            var (executable, arguments) = readProgram(f)
            if f["executable"] == nil {
                guard let found = pluginProgram(plugin, in: folder, at: pluginLoc) else { continue }
                executable = found.url
            }
            var ext = ScenarioExtension(id: id, plugin: folder, container: container.id, descriptor: descriptorWithTeam,
                                        manifest: manifest, entitlementsFile: plugin.entitlementsURL,
                                        executable: executable, arguments: arguments)
            if let x = f["sandbox"] {
                ext.sandbox = vetted(readSandbox(x, relativeTo: self.folder), ownFolder: folder, at: x, source: "sandbox")
            } else {
                do {
                    ext.sandbox = vetted(try PluginSandbox.load(folder: folder), ownFolder: folder, at: pluginLoc,
                                         source: "\(folder.lastPathComponent)/plugin.json: sandbox")
                } catch { reader.error(pluginLoc, "\(folder.lastPathComponent)/\(error)") }
            }
            if let executable = ext.executable { judgeProgram(executable, into: &ext.sandbox) }
            extensions.append(ext)
        }
    }

    /// Judges what a process reads of its own program as a declaration of its folder would be
    /// judged (`SandboxDeclarations.judgeProgram`): the folder, or the program alone.
    private func judgeProgram(_ executable: URL, into sandbox: inout PluginSandbox) {
        let judge = SandboxDeclarations(ownFolder: executable.deletingLastPathComponent(), scenarioFolder: folder, allowances: allowances, scan: projectScan)
        let (grant, alone) = judge.judgeProgram(executable.path)
        sandbox.program = grant
        sandbox.programAlone = alone
    }

    /// Plist key paths whose value an explicit scenario key replaces: an unresolved build
    /// setting there does not matter, so it is not worth a warning.
    private func overriddenPlistKeys(_ f: Fields) -> [String] {
        let map = ["bundle": "CFBundleIdentifier", "urlSchemes": "CFBundleURLTypes",
                   "multiIdentity": "IntuneMAMSettings.MultiIdentity", "keychainGroups": "keychain-access-groups",
                   "appGroups": "com.apple.security.application-groups"]
        return map.compactMap { f.has($0.key) ? $0.value : nil }
    }

    func warnUnresolved(_ list: [UnresolvedBuildSetting], in name: String, at v: Located, overridden: [String]) {
        for u in list where !overridden.contains(where: { u.keyPath.hasPrefix($0) }) {
            reader.warn(v, "\(name): \(u)")
        }
    }

    // MARK: Checks

    private func isNewHandle(_ id: String, at v: Located) -> Bool {
        guard !allHandles.contains(id) else {
            reader.error(v, "id \"\(id)\" is used twice; every app and extension needs its own id")
            return false
        }
        return true
    }

    private func isNewBundle(_ bundle: BundleID, at v: Located) -> Bool {
        let taken = apps.first { $0.descriptor.bundleID == bundle }?.id ?? extensions.first { $0.descriptor.bundleID == bundle }?.id
        if let taken {
            reader.error(v, "bundle id \"\(bundle)\" is already \"\(taken)\"'s; every app and extension needs its own bundle id")
            return false
        }
        return true
    }

    /// `sandbox` with each path judged (`SandboxDeclarations`): what a declaration may not ask
    /// for alone is an error naming the path and the command-line flag that allows it.
    private func vetted(_ sandbox: PluginSandbox, ownFolder: URL, at v: Located, source: String) -> PluginSandbox {
        let judge = SandboxDeclarations(ownFolder: ownFolder, scenarioFolder: folder, allowances: allowances, scan: projectScan)
        var result = PluginSandbox(environment: sandbox.environment)
        for path in sandbox.read {
            do throws(PluginSandboxError) {
                let grant = try judge.judgeRead(path)
                guard !result.read.contains(grant.path) else { continue }
                result.read.append(grant.path)
                result.grants.append(grant)
            } catch {
                reader.error(v, "\(source).read: \(error)")
            }
        }
        for name in sandbox.environment {
            do throws(PluginSandboxError) { try judge.judgeEnvironment(name) } catch { reader.error(v, "\(source).environment: \(error)") }
        }
        return result
    }

    /// `sandbox: {read: [PATH], environment: [NAME]}`: paths as in `plugin.json`, relative to
    /// the scenario's folder.
    private func readSandbox(_ v: Located, relativeTo base: URL) -> PluginSandbox {
        guard let f = reader.fields(v, allowed: ["read", "environment"], required: [], what: "sandbox") else { return PluginSandbox() }
        var sandbox = PluginSandbox()
        if let x = f["read"], let paths = reader.strings(x, what: "sandbox.read") {
            for path in paths {
                do {
                    if let resolved = try PluginSandbox.resolve(path, in: base, environment: ProcessInfo.processInfo.environment) { sandbox.read.append(resolved) }
                } catch {
                    reader.error(x, "\(error)")
                }
            }
        }
        if let x = f["environment"], let names = reader.strings(x, what: "sandbox.environment") { sandbox.environment = names }
        return sandbox
    }

    private func readProgram(_ f: Fields) -> (URL?, [String]) {
        var executable: URL?
        var arguments: [String] = []
        if let x = f["executable"] { executable = existingPath(x, what: "executable") }
        if let x = f["arguments"], let a = reader.strings(x, what: "arguments") { arguments = a }
        return (executable, arguments)
    }

}
