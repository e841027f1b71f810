import Foundation
import MAMBundle

/// The project a run manifest dumped (`mamsim.tuist-dump/1`, MAMTuistDescription's Dump.swift)
/// as the Xcode project Tuist generates from it: each target's settings layered as Tuist
/// layers them (what Tuist derives from the target, then the project's base and configuration,
/// then the target's), its Info.plist and entitlements (a file, or what Tuist writes under
/// `Derived/`), the targets it embeds. The JSON comes from a hostile child: every value is
/// checked for its type, and what is not what the schema says is left out.
enum TuistDump {
    struct Layer {
        var base: [String: String] = [:]
        /// By configuration name, in the order written: its settings and its xcconfig.
        var configurations: [(name: String, isDebug: Bool, settings: [String: String], xcconfig: String?)] = []
    }

    struct Reading {
        var manifest: URL
        var root: URL
        var folder: URL { manifest.deletingLastPathComponent() }
        var generated: [String: Data] = [:]
    }

    static func project(_ data: Data, manifest: URL, root: URL) throws(XcodeProjectError) -> XcodeProject {
        guard let object = try? JSONSerialization.jsonObject(with: data), let dump = object as? [String: Any],
              dump["format"] as? String == "mamsim.tuist-dump/1", let name = dump["name"] as? String else {
            throw XcodeProjectError(file: manifest.path, problem: "ran, but what it dumped is not a project mamsim reads",
                                    fix: "run `tuist generate --no-open` and name the .xcodeproj it writes")
        }
        var reading = Reading(manifest: manifest, root: root)
        let projectLayer = reading.layer(dump["settings"])
        var names = projectLayer.configurations.map(\.name)
        if names.isEmpty { names = ["Debug", "Release"] }
        let debug = Set(projectLayer.configurations.filter(\.isDebug).map(\.name) + (projectLayer.configurations.isEmpty ? ["Debug"] : []))
        let release = names.first { !debug.contains($0) } ?? names.last
        let targets = (dump["targets"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }.compactMap {
            reading.target($0, project: projectLayer, configurations: names, defaultConfiguration: release)
        }
        let configurations = names.map { name in
            let own = projectLayer.configurations.first { $0.name == name }
            return XcodeProject.Configuration(name: name, baseConfiguration: own?.xcconfig, settings: projectLayer.base.merging(own?.settings ?? [:]) { $1 })
        }
        var project = XcodeProject(url: reading.folder.appendingPathComponent("\(name).xcodeproj"), manifest: manifest, sourceRoot: reading.folder,
                                   name: name, configurations: configurations, defaultConfiguration: release,
                                   targets: XcodeProject.embeddingExtensionsOnly(targets))
        project.generatedFiles = reading.generated
        return project
    }

    /// A setting's value as Xcode holds it: a list joined by spaces.
    static func settingValue(_ any: Any) -> String? {
        if let text = any as? String { return text }
        if let list = any as? [Any] { return list.compactMap { $0 as? String }.joined(separator: " ") }
        return nil
    }

    static func settings(_ any: Any?) -> [String: String] {
        (any as? [String: Any] ?? [:]).compactMapValues(settingValue)
    }

    /// `destinations` as an SDK, as Tuist chooses a target's `SDKROOT`.
    static func sdk(_ destinations: [String]) -> String {
        let set = Set(destinations)
        if set.contains("iPhone") || set.contains("iPad") { return "iphoneos" }
        if set.contains("mac") { return "macosx" }
        if set.contains("appleWatch") { return "watchos" }
        if set.contains("appleTv") { return "appletvos" }
        if set.contains("appleVision") { return "xros" }
        // Mac Catalyst and "Designed for iPad" build with the iOS SDK.
        return "iphoneos"
    }
}

extension TuistDump.Reading {
    func layer(_ any: Any?) -> TuistDump.Layer {
        guard let settings = any as? [String: Any] else { return TuistDump.Layer() }
        var layer = TuistDump.Layer(base: TuistDump.settings(settings["base"]))
        for case let configuration as [String: Any] in settings["configurations"] as? [Any] ?? [] {
            guard let name = configuration["name"] as? String else { continue }
            layer.configurations.append((name, configuration["variant"] as? String == "debug", TuistDump.settings(configuration["settings"]),
                                         path(configuration["xcconfig"])))
        }
        return layer
    }

    /// A dumped `Path` as a path relative to the manifest's folder (or absolute).
    func path(_ any: Any?) -> String? {
        guard let path = any as? [String: Any], let type = path["type"] as? String, let text = path["path"] as? String, !text.contains("\0") else { return nil }
        let absolute: URL
        switch type {
        case "relativeToManifest": return text
        case "relativeToRoot": absolute = root.appendingPathComponent(text)
        case "relativeToCurrentFile":
            guard let caller = path["callerPath"] as? String, caller.hasPrefix("/") else { return text }
            absolute = URL(fileURLWithPath: caller).deletingLastPathComponent().appendingPathComponent(text)
        case "absolute": return text
        default: return nil
        }
        return ProjectLinter.path(absolute.standardizedFileURL.path, from: folder.standardizedFileURL.path)
    }

    mutating func target(_ dump: [String: Any], project: TuistDump.Layer, configurations names: [String], defaultConfiguration: String?) -> XcodeProject.Target? {
        guard let name = dump["name"] as? String, let product = dump["product"] as? String else { return nil }
        var derived: [String: String] = ["PRODUCT_NAME": dump["productName"] as? String ?? name,
                                         "SDKROOT": TuistDump.sdk(dump["destinations"] as? [String] ?? [])]
        if let id = dump["bundleId"] as? String, id != "$(PRODUCT_BUNDLE_IDENTIFIER)" { derived["PRODUCT_BUNDLE_IDENTIFIER"] = id }
        derived["INFOPLIST_FILE"] = file(dump["infoPlist"], target: name, product: product, folder: "InfoPlists", suffix: "-Info.plist")
        derived["CODE_SIGN_ENTITLEMENTS"] = file(dump["entitlements"], target: name, product: product, folder: "Entitlements", suffix: ".entitlements")
        let own = layer(dump["settings"])
        let configurations = names.map { configuration in
            let projectLevel = project.configurations.first { $0.name == configuration }?.settings ?? [:]
            let targetLevel = own.configurations.first { $0.name == configuration }
            let settings = derived.merging(project.base) { $1 }.merging(projectLevel) { $1 }.merging(own.base) { $1 }.merging(targetLevel?.settings ?? [:]) { $1 }
            return XcodeProject.Configuration(name: configuration, baseConfiguration: targetLevel?.xcconfig, settings: settings)
        }
        var dependencies: [String] = []
        for case let dependency as [String: Any] in dump["dependencies"] as? [Any] ?? [] {
            if let target = dependency["target"] as? String { dependencies.append(target) }
        }
        return XcodeProject.Target(name: name, productType: TuistManifest.products[product] ?? "com.apple.product-type.\(product)",
                                   configurations: configurations, defaultConfiguration: defaultConfiguration,
                                   embeddedTargets: dependencies, dependencies: dependencies)
    }

    /// An `infoPlist:` or `entitlements:` value as the path of its file: the one it names, or the
    /// one Tuist writes under `Derived/` (an Info.plist extending Tuist's default starts from it).
    mutating func file(_ any: Any?, target: String, product: String, folder derivedFolder: String, suffix: String) -> String? {
        guard let value = any as? [String: Any] else { return nil }
        if let variable = value["variable"] as? String { return variable }
        if let file = value["file"] { return path(file) }
        var contents: [String: Any]
        if let extending = value["extendingDefault"] as? [String: Any] {
            let kind = product == "app" ? "application" : product.contains("xtension") ? "app-extension" : "bundle"
            contents = XcodeGenSpec.infoDefaults(kind).merging(extending) { $1 }
        } else if let dictionary = value["dictionary"] as? [String: Any] {
            contents = dictionary
        } else {
            return nil
        }
        let path = "Derived/\(derivedFolder)/\(target)\(suffix)"
        generated[XcodeGenSpec.key(path, in: folder)] = XcodeGenSpec.plist(contents)
        return path
    }
}
