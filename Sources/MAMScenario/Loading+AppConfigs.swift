import Foundation
import MAMActivation
import MAMDocument
import MAMModel
import MAMPolicy
import Yams

/// `appConfigs:` (SCENARIOS.md v1.1) — Intune targeted app configuration policies, from a Graph
/// `targetedManagedAppConfiguration` document (`file:`) or inline `settings:`.
extension Loading {
    static let appConfigKeys = ["name", "file", "settings", "apps", "accounts", "default"]

    /// An app configuration's `settings:`, each key's value as text (Graph keeps every custom
    /// setting as text: a YAML number or boolean is taken as written); `nil` when it is not a
    /// mapping.
    func inlineSettings(_ x: Located) -> [KeyValuePair]? {
        guard case .mapping(let m) = x.node else {
            reader.error(x, "settings must be a mapping of keys to values (e.g. {serverUrl: \"https://...\"}), but it is \(x.shape)")
            return nil
        }
        var pairs: [KeyValuePair] = []
        for (k, value) in m {
            let key = k.scalar?.string ?? ""
            let loc = Located(node: value, path: x.child(key))
            guard case .scalar(let s) = value, !loc.isNull else {
                reader.error(loc, "the value of \"\(key)\" must be text, a number or a boolean, but it is \(loc.shape)")
                continue
            }
            pairs.removeAll { $0.name == key }
            pairs.append(KeyValuePair(name: key, value: s.string))
        }
        return pairs
    }

    func readAppConfigs(_ v: Located) {
        guard let items = reader.list(v, what: "appConfigs") else { return }
        for item in items {
            guard let f = reader.fields(item, allowed: Self.appConfigKeys, required: ["name"], what: "an app configuration") else { continue }
            guard let nameLoc = f["name"], let name = reader.name(nameLoc, what: "name") else { continue }
            if appConfigs.contains(where: { $0.name == name }) {
                reader.error(nameLoc, "two app configurations are named \"\(name)\"; give each a distinct name")
                continue
            }
            guard f.has("file") || f.has("settings") else {
                reader.error(item, "app configuration \"\(name)\" needs file: (a Graph targetedManagedAppConfiguration document) or settings:")
                continue
            }
            var config = AppConfigPolicy(name: name, displayName: name)
            var place = SourcePlace(scenarioLine: item.line, file: file)
            if let x = f["file"] {
                guard let url = existingPath(x, what: "file") else { continue }
                inputs.append(url)
                guard let imported = importAppConfigFile(url, at: x) else { continue }
                config.displayName = imported.displayName.isEmpty ? name : imported.displayName
                config.settings = imported.settings
                config.apps = imported.apps
                place.file = url
                place.lines = (try? InputFile.contents(of: url)).map { SourcePlace.namedLines(Array($0)) } ?? [:]
            }
            if let x = f["settings"] {
                guard let pairs = inlineSettings(x) else { continue }
                // Inline settings add to (and override) the document's.
                if case .mapping(let m) = x.node, place.file == file {
                    for (k, _) in m { if let key = k.scalar?.string { place.lines[key] = k.mark?.line } }
                }
                for pair in pairs {
                    config.settings.removeAll { $0.name == pair.name }
                    config.settings.append(pair)
                }
            }
            if let x = f["apps"], let ids = reader.strings(x, what: "apps") {
                // An app's id or a bundle id.
                config.apps = ids.map { id in apps.first { $0.id == id }?.descriptor.bundleID ?? BundleID(id) }
            }
            if let x = f["accounts"], let items = reader.list(x, what: "accounts") {
                config.accounts = items.compactMap { account($0, what: "each entry of accounts") }.flatMap { [$0.upn, $0.oid].filter { !$0.isEmpty } }
            }
            if let x = f["default"], let b = reader.bool(x, what: "default") { config.isDefault = b }
            warnAboutValues(of: config, at: item)
            appConfigSources[name] = place
            appConfigs.append(config)
        }
    }

    /// What the device does not do with a configuration's values, said at its entry.
    func warnAboutValues(of config: AppConfigPolicy, at item: Located) {
        // Intune fills its documented tokens per account; any other reaches the app as written.
        for pair in config.settings {
            for token in Enforcer.tokens(in: pair.value) where !Enforcer.appConfigTokens.contains(token.name.lowercased()) {
                reader.warn(item, "app configuration \"\(config.name)\": \(pair.name) = \(pair.value): {{\(token.name)}} is not a token the device fills (\(Enforcer.appConfigTokens.map { "{{\($0)}}" }.joined(separator: ", "))); the app receives it as written")
            }
        }
        // Delivered to the app as any key is; what the SDK does with it is not simulated.
        if let pair = config.settings.first(where: { $0.name.lowercased() == SDKVersionFloors.biometricSetupShortcutKey.lowercased() }) {
            reader.warn(item, "app configuration \"\(config.name)\": \(pair.name) = \(pair.value) is delivered to the app, but the SDK's biometric setup shortcut (22.2.0 release notes) is not simulated: mamsim has no biometrics")
        }
    }

    private func importAppConfigFile(_ url: URL, at v: Located) -> AppConfigPolicy? {
        let written = v.node.scalar?.string ?? url.lastPathComponent
        let bytes: [UInt8]
        do { bytes = Array(try InputFile.contents(of: url)) } catch {
            reader.error(v, "cannot read \(written) (\(error.localizedDescription))")
            return nil
        }
        let result: AppConfigImportResult
        do {
            result = try GraphAppConfigImporter.importConfigurations(bytes, source: written)
        } catch {
            reader.error(v, error.message)
            return nil
        }
        for w in result.warnings { reader.warn(v, w.message) }
        guard result.configurations.count == 1 else {
            let skipped = result.skipped.map(\.description).joined(separator: "; ")
            if result.configurations.isEmpty {
                reader.error(v, "\(written) holds no targetedManagedAppConfiguration\(skipped.isEmpty ? "" : " (\(skipped))")")
            } else {
                reader.error(v, "\(written) holds \(result.configurations.count) app configurations; an appConfigs entry is one, so give each its own entry with its own file")
            }
            return nil
        }
        return result.configurations[0]
    }
}
