import Foundation
import MAMExtensions
import MAMActivation
import MAMBundle
import MAMDocument
import MAMModel
import MAMPolicy
import MAMWire
import Yams

// An app's or plugin's property lists and build settings as the loader reads them: Info.plist,
// entitlements, a plugin's definition and its program, each error at the scenario's line.
extension Loading {
    // MARK: Plists

    /// A dotted version (`"4.1.0"`; YAML may read `4.1` as a number).
    func version(_ x: Located, what: String) -> String? {
        guard let text = x.node.scalar?.string, Version(text) != nil else {
            reader.error(x, "\(what) must be a dotted version such as \"4.1.0\", but it is \(x.shape)")
            return nil
        }
        return text
    }

    /// What an app's Info.plist contributes.
    struct AppInfo {
        var bundleIdentifier: String?
        /// `CFBundleShortVersionString`.
        var shortVersion: String?
        var multiIdentity: Bool?
        var urlSchemes: [String]?
        var appGroupIdentifiers: [String]?
        var telemetryDisabled = false
        var hooksAlwaysEnabled = false
        var autoEnrollOnLaunch = false
        var mamPolicyRequired = false
    }

    func written(_ v: Located, _ url: URL) -> String { v.node.scalar?.string ?? url.lastPathComponent }

    /// MAMExtensions' own wording (`file[:line]: [key path: ]message`), so lint and scenario
    /// loading describe a broken plist the same way.
    private func plistMessage(_ e: ExtensionPlistError) -> String { e.description }

    private func readData(_ url: URL, name: String, at v: Located) -> Data? {
        do { return try InputFile.contents(of: url) } catch {
            reader.error(v, "cannot read \(name) (\(error.localizedDescription))")
            return nil
        }
    }

    func readAppInfo(_ url: URL, at v: Located, overridden: [String]) -> AppInfo? {
        let name = written(v, url)
        guard let data = readData(url, name: name, at: v) else { return nil }
        let manifest: ExtensionManifest
        do {
            manifest = try ExtensionManifest(infoPlist: data, source: name, buildSettings: buildSettings)
        } catch {
            switch error {
            case .plist(let e): reader.error(v, plistMessage(e))
            case .syntax(let e): reader.error(v, e.description)
            }
            return nil
        }
        warnUnresolved(manifest.unresolvedVariables, in: name, at: v, overridden: overridden)
        var info = AppInfo(bundleIdentifier: manifest.bundleIdentifier)
        let settings = manifest.intuneSettings
        if settings.raw["MultiIdentity"] != nil { info.multiIdentity = settings.multiIdentity }
        if settings.raw["AppGroupIdentifiers"] != nil { info.appGroupIdentifiers = settings.appGroupIdentifiers }
        info.telemetryDisabled = settings.telemetryDisabled
        info.hooksAlwaysEnabled = settings.hooksAlwaysEnabled
        info.autoEnrollOnLaunch = settings.autoEnrollOnLaunch
        info.mamPolicyRequired = settings.mamPolicyRequired
        // CFBundleURLTypes is an app's, not an extension's, so the manifest does not read it.
        if let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any],
           let types = plist["CFBundleURLTypes"] as? [[String: Any]] {
            var unresolved: [UnresolvedBuildSetting] = []
            var schemes: [String] = []
            for type in types {
                for scheme in PlistValue(type["CFBundleURLSchemes"] ?? [Any]()).stringArray ?? [] {
                    schemes.append(buildSettings.expand(scheme, keyPath: "CFBundleURLTypes", unresolved: &unresolved))
                }
            }
            info.urlSchemes = schemes
        }
        if let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any],
           let short = plist["CFBundleShortVersionString"] as? String {
            var unresolved: [UnresolvedBuildSetting] = []
            let expanded = buildSettings.expand(short, keyPath: "CFBundleShortVersionString", unresolved: &unresolved)
            if Version(expanded) != nil { info.shortVersion = expanded }
        }
        return info
    }

    func readEntitlements(_ url: URL, at v: Located, overridden: [String]) -> Entitlements? {
        let name = written(v, url)
        guard let data = readData(url, name: name, at: v) else { return nil }
        do {
            let e = try Entitlements(data: data, source: name, buildSettings: buildSettings)
            warnUnresolved(e.unresolvedVariables, in: name, at: v, overridden: overridden)
            return e
        } catch {
            reader.error(v, plistMessage(error))
            return nil
        }
    }

    struct Plugin {
        var manifest: ExtensionManifest
        var infoName: String
        var entitlements: Entitlements?
        var entitlementsURL: URL?
        /// `MamsimExecutable`, build settings expanded.
        var executableName: String?
    }

    /// The settings of the first `*.xcconfig` in a folder, overlaid with `--set` values.
    func pluginBuildSettings(_ folder: URL) -> BuildSettings {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        guard let name = files.filter({ $0.hasSuffix(".xcconfig") }).sorted().first,
              let text = InputFile.text(of: folder.appendingPathComponent(name)) else {
            return buildSettings
        }
        return BuildSettings(XCConfig(text: text).settings).overlaid(with: buildSettings)
    }

    /// A plugin folder: `Info.plist`, an optional `*.entitlements`, an optional executable.
    func readPlugin(_ folder: URL, at v: Located) -> Plugin? {
        // The folder's own build settings (its target's .xcconfig) under the command line's.
        let buildSettings = pluginBuildSettings(folder)
        let base = v.node.scalar?.string ?? folder.lastPathComponent
        let infoName = (base.hasSuffix("/") ? base : base + "/") + "Info.plist"
        let infoURL = folder.appendingPathComponent("Info.plist")
        guard FileManager.default.fileExists(atPath: infoURL.path) else {
            reader.error(v, "plugin folder \"\(base)\" has no Info.plist")
            return nil
        }
        guard let data = readData(infoURL, name: infoName, at: v) else { return nil }
        let manifest: ExtensionManifest
        do {
            manifest = try ExtensionManifest(infoPlist: data, source: infoName, buildSettings: buildSettings)
        } catch {
            switch error {
            case .plist(let e): reader.error(v, plistMessage(e))
            case .syntax(let e): reader.error(v, e.description)
            }
            return nil
        }
        var plugin = Plugin(manifest: manifest, infoName: infoName)
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        if let file = contents.filter({ $0.hasSuffix(".entitlements") }).sorted().first {
            let url = folder.appendingPathComponent(file)
            let name = (base.hasSuffix("/") ? base : base + "/") + file
            guard let data = readData(url, name: name, at: v) else { return nil }
            do {
                let e = try Entitlements(data: data, source: name, buildSettings: buildSettings)
                for u in e.unresolvedVariables { reader.warn(v, "\(name): \(u)") }
                plugin.entitlements = e
                plugin.entitlementsURL = url
            } catch {
                reader.error(v, plistMessage(error))
                return nil
            }
        }
        if let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any],
           let exe = plist["MamsimExecutable"] as? String {
            var unresolved: [UnresolvedBuildSetting] = []
            plugin.executableName = buildSettings.expand(exe, keyPath: "MamsimExecutable", unresolved: &unresolved)
        }
        return plugin
    }

    /// The plugin's own program, by the plugin-folder convention: `MamsimExecutable` in the
    /// Info.plist, else `executable` in `plugin.json`, else a file named `run`; none (`url`
    /// nil) runs the built-in runtime. `CFBundleExecutable` is not used: it names an iOS
    /// binary. `nil` (with an error) when a declared program is missing or not executable.
    func pluginProgram(_ plugin: Plugin, in folder: URL, at v: Located) -> (url: URL?, found: Bool)? {
        var declared = plugin.executableName.map { ($0, "\(plugin.infoName): MamsimExecutable") }
        let json = folder.appendingPathComponent("plugin.json")
        if declared == nil, let data = (try? InputFile.contents(of: json)),
           let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
           let path = object["executable"] as? String {
            declared = (path, "plugin.json: executable")
        }
        if let (path, source) = declared {
            let url = (path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path)).standardizedFileURL
            guard FileManager.default.isExecutableFile(atPath: url.path) else {
                reader.error(v, "\(source) names \"\(path)\", which is not an executable file in the plugin folder; build it, chmod +x it, or remove the key to use the built-in runtime")
                return nil
            }
            return (url, true)
        }
        let run = folder.appendingPathComponent("run")
        let hasRun = FileManager.default.isExecutableFile(atPath: run.path)
        return (hasRun ? run : nil, hasRun)
    }
}
