public import Foundation
import MAMActivation
public import MAMBundle
import Yams

/// An XcodeGen project spec (`project.yml`) read as the project it generates, so that a
/// repository that does not commit its `.xcodeproj` is linted and `init`ed as if it did: its
/// targets with their product types, configurations and settings (bundle ids from
/// `PRODUCT_BUNDLE_IDENTIFIER`, else `options.bundleIdPrefix` + the target's name), the
/// Info.plist and entitlements paths (`info.path`, `entitlements.path`), the platform as
/// `SDKROOT`, and the extensions an app embeds (its target dependencies), with target templates
/// applied. Read as data only: nothing of it runs. `include:` files are not followed (said in
/// the error a spec that needs them gets), nor `info.properties`/`entitlements.properties`:
/// an Info.plist or entitlements file XcodeGen would generate, and no one committed, is missing.
public enum XcodeGenSpec {
    /// XcodeGen's target `type` → Xcode's product type.
    static let productTypes: [String: String] = [
        "application": "com.apple.product-type.application",
        "app-extension": "com.apple.product-type.app-extension",
        "extensionkit-extension": "com.apple.product-type.extensionkit-extension",
        "app-extension.messages": "com.apple.product-type.app-extension.messages",
        "app-extension.messages-sticker-pack": "com.apple.product-type.app-extension.messages-sticker-pack",
        "app-extension.intents-service": "com.apple.product-type.app-extension",
        "framework": "com.apple.product-type.framework",
        "framework.static": "com.apple.product-type.framework.static",
        "library.static": "com.apple.product-type.library.static",
        "library.dynamic": "com.apple.product-type.library.dynamic",
        "bundle": "com.apple.product-type.bundle",
        "bundle.unit-test": "com.apple.product-type.bundle.unit-test",
        "bundle.ui-testing": "com.apple.product-type.bundle.ui-testing",
        "tool": "com.apple.product-type.tool",
        "application.watchapp2": "com.apple.product-type.application.watchapp2",
        "application.watchapp2-container": "com.apple.product-type.application.watchapp2-container",
        "watchkit2-extension": "com.apple.product-type.watchkit2-extension",
        "application.on-demand-install-capable": "com.apple.product-type.application.on-demand-install-capable",
        "xpc-service": "com.apple.product-type.xpc-service",
    ]

    static let sdkRoots: [String: String] = ["iOS": "iphoneos", "macOS": "macosx", "watchOS": "watchos", "tvOS": "appletvos", "visionOS": "xros"]

    /// The project `spec` (a `project.yml`) describes.
    public static func read(_ spec: URL) throws(XcodeProjectError) -> XcodeProject {
        let data: Data
        do { data = try InputFile.contents(of: spec) } catch {
            throw XcodeProjectError(file: spec.path, problem: "cannot be read", fix: "check that it is the project's XcodeGen spec")
        }
        let root: [String: Any]
        do {
            guard let parsed = try Yams.load(yaml: String(decoding: data, as: UTF8.self)) as? [String: Any] else {
                throw XcodeProjectError(file: spec.path, problem: "is not a YAML mapping", fix: "check that it is an XcodeGen spec")
            }
            root = parsed
        } catch let e as XcodeProjectError {
            throw e
        } catch {
            throw XcodeProjectError(file: spec.path, problem: "is not valid YAML (\(error))", fix: "fix it, or run `xcodegen generate` and lint the .xcodeproj")
        }
        let folder = spec.deletingLastPathComponent()
        let projectName = root["name"] as? String ?? folder.lastPathComponent
        let options = root["options"] as? [String: Any] ?? [:]
        let prefix = options["bundleIdPrefix"] as? String
        // Configurations: `configs: {Debug: debug, Release: release}` (XcodeGen's default).
        let configNames = (root["configs"] as? [String: Any]).map { $0.keys.sorted() } ?? ["Debug", "Release"]
        let configFiles = root["configFiles"] as? [String: Any] ?? [:]
        let projectSettings = settings(root["settings"], configNames)
        let projectConfigurations = configNames.map {
            XcodeProject.Configuration(name: $0, baseConfiguration: configFiles[$0] as? String, settings: projectSettings[$0] ?? [:])
        }
        guard let targetTable = root["targets"] as? [String: Any], !targetTable.isEmpty else {
            throw XcodeProjectError(file: spec.path, problem: "declares no targets", fix: "its targets may come from `include:` files mamsim does not follow: run `xcodegen generate` and lint the .xcodeproj")
        }
        let templates = root["targetTemplates"] as? [String: Any] ?? [:]
        var targets: [XcodeProject.Target] = []
        for (targetName, value) in targetTable.sorted(by: { $0.key < $1.key }) {
            guard let written = value as? [String: Any] else { continue }
            let t = applying(templates, to: written)
            guard let type = t["type"] as? String else {
                throw XcodeProjectError(file: spec.path, problem: "target \(targetName) has no `type` (not even from its templates)", fix: "run `xcodegen generate` and lint the .xcodeproj")
            }
            let platform: String? = (t["platform"] as? String) ?? (t["platform"] as? [String])?.first ?? (t["supportedDestinations"] as? [String])?.first
            var base: [String: String] = [:]
            if let p = platform, let sdk = sdkRoots[p] { base["SDKROOT"] = sdk }
            if let info = t["info"] as? [String: Any], let path = info["path"] as? String { base["INFOPLIST_FILE"] = path }
            if let ent = t["entitlements"] as? [String: Any], let path = ent["path"] as? String { base["CODE_SIGN_ENTITLEMENTS"] = path }
            if let prefix { base["PRODUCT_BUNDLE_IDENTIFIER"] = "\(prefix).\(targetName)" }
            base["PRODUCT_NAME"] = targetName
            let own = settings(t["settings"], configNames)
            let targetConfigFiles = t["configFiles"] as? [String: Any] ?? [:]
            let configurations = configNames.map { c in
                XcodeProject.Configuration(name: c, baseConfiguration: targetConfigFiles[c] as? String,
                                           settings: base.merging(projectSettings[c] ?? [:]) { $1 }.merging(own[c] ?? [:]) { $1 })
            }
            let dependencies = (t["dependencies"] as? [[String: Any]] ?? []).compactMap { $0["target"] as? String }
            let embedded = (t["dependencies"] as? [[String: Any]] ?? []).compactMap { d -> String? in
                guard let target = d["target"] as? String else { return nil }
                return (d["embed"] as? Bool) == false ? nil : target
            }
            targets.append(XcodeProject.Target(name: targetName, productType: productTypes[type] ?? "com.apple.product-type.\(type)",
                                               configurations: configurations, defaultConfiguration: configNames.last,
                                               embeddedTargets: embedded, dependencies: dependencies))
        }
        // Only the embedded targets that are extensions count as embedded (a framework is linked).
        let extensions = Set(targets.filter(\.isAppExtension).map(\.name))
        targets = targets.map { t in
            var t = t
            t.embeddedTargets = t.embeddedTargets.filter(extensions.contains)
            return t
        }
        return XcodeProject(url: folder.appendingPathComponent("\(projectName).xcodeproj"), manifest: spec, sourceRoot: folder,
                            name: projectName, configurations: projectConfigurations, defaultConfiguration: configNames.last, targets: targets)
    }

    /// A target with its `templates:` (from `targetTemplates`) applied, in order, under what
    /// the target itself says: its keys win, except `settings` (merged) and `dependencies`
    /// (the templates' first). Templates of templates are followed, at most 8 deep.
    static func applying(_ templates: [String: Any], to target: [String: Any], depth: Int = 0) -> [String: Any] {
        guard depth < 8, let names = target["templates"] as? [String], !names.isEmpty else { return target }
        var merged: [String: Any] = [:]
        for name in names {
            guard let template = templates[name] as? [String: Any] else { continue }
            merged = overlay(merged, applying(templates, to: template, depth: depth + 1))
        }
        return overlay(merged, target)
    }

    static func overlay(_ base: [String: Any], _ top: [String: Any]) -> [String: Any] {
        var out = base
        for (k, v) in top {
            if k == "settings", let a = base[k] as? [String: Any], let b = v as? [String: Any] {
                out[k] = overlay(a, b)
            } else if k == "base" || k == "configs", let a = base[k] as? [String: Any], let b = v as? [String: Any] {
                out[k] = a.merging(b) { $1 }
            } else if k == "dependencies", let a = base[k] as? [Any], let b = v as? [Any] {
                out[k] = a + b
            } else {
                out[k] = v
            }
        }
        return out
    }

    /// XcodeGen's `settings`: `{base: {…}, configs: {Debug: {…}}}`, or a flat mapping of
    /// settings (then base); `groups:` (setting presets) are not followed. Per configuration.
    static func settings(_ value: Any?, _ configs: [String]) -> [String: [String: String]] {
        guard let table = value as? [String: Any] else { return [:] }
        let structured = table["base"] != nil || table["configs"] != nil || table["groups"] != nil
        let base = flatten(structured ? table["base"] : table)
        let perConfig = table["configs"] as? [String: Any] ?? [:]
        var out: [String: [String: String]] = [:]
        for c in configs {
            // A config's key may name it in any case (XcodeGen matches case-insensitively).
            let own = perConfig.first { $0.key.lowercased() == c.lowercased() }.map { flatten($0.value) } ?? [:]
            out[c] = base.merging(own) { $1 }
        }
        return out
    }

    static func flatten(_ value: Any?) -> [String: String] {
        guard let table = value as? [String: Any] else { return [:] }
        var out: [String: String] = [:]
        for (k, v) in table {
            switch v {
            case let s as String: out[k] = s
            case let list as [Any]: out[k] = list.map { "\($0)" }.joined(separator: " ")
            case let b as Bool: out[k] = b ? "YES" : "NO"
            default: out[k] = "\(v)"
            }
        }
        return out
    }
}
