public import Foundation
import MAMActivation
public import MAMBundle
import MAMDocument
import Yams

/// An XcodeGen project spec (`project.yml`) read as the project it generates, so that a
/// repository that does not commit its `.xcodeproj` is linted and `init`ed as if it did: its
/// targets with their product types, configurations and settings (bundle ids from
/// `PRODUCT_BUNDLE_IDENTIFIER`, else `options.bundleIdPrefix` + the target's name; setting
/// groups), the Info.plist and entitlements (`info`/`entitlements`: the file at `path`, or the
/// one XcodeGen writes there from `properties`), the platform as `SDKROOT`, and the extensions
/// an app embeds (its target dependencies), with `include:` files and target templates merged
/// as XcodeGen merges them. Read as data only: nothing of it runs.
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
    /// `within`: the folder the user named, whose files an `include:` may also read (besides
    /// the spec's repository).
    public static func read(_ spec: URL, within: URL? = nil) throws(XcodeProjectError) -> XcodeProject {
        var merged: Set<String> = [spec.standardizedFileURL.path]
        var unread: [String] = []
        let repository = repository(of: spec.deletingLastPathComponent())
        let allowed = [repository] + (within.map { $0.standardizedFileURL.path == repository.standardizedFileURL.path ? [] : [$0] } ?? [])
        let root = try load(spec, relativeTo: "", stack: [spec.standardizedFileURL.path], merged: &merged,
                            allowed: allowed, unread: &unread)
        let folder = spec.deletingLastPathComponent()
        let projectName = root["name"] as? String ?? folder.lastPathComponent
        let options = root["options"] as? [String: Any] ?? [:]
        let prefix = options["bundleIdPrefix"] as? String
        // Configurations: `configs: {Debug: debug, Release: release}` (XcodeGen's default).
        let configNames = (root["configs"] as? [String: Any]).map { $0.keys.sorted() } ?? ["Debug", "Release"]
        let configFiles = root["configFiles"] as? [String: Any] ?? [:]
        let groups = (root["settingGroups"] as? [String: Any] ?? [:]).merging(root["settingPresets"] as? [String: Any] ?? [:]) { a, _ in a }
        let projectSettings = settings(root["settings"], configNames, groups: groups)
        let projectConfigurations = configNames.map {
            XcodeProject.Configuration(name: $0, baseConfiguration: configFiles[$0] as? String, settings: projectSettings[$0] ?? [:])
        }
        guard let targetTable = root["targets"] as? [String: Any], !targetTable.isEmpty else {
            throw XcodeProjectError(file: spec.path, problem: "declares no targets", fix: "its targets may come from `include:` files mamsim does not follow: run `xcodegen generate` and lint the .xcodeproj")
        }
        let templates = root["targetTemplates"] as? [String: Any] ?? [:]
        var targets: [XcodeProject.Target] = []
        var generated: [String: Data] = [:]
        for (targetName, value) in targetTable.sorted(by: { $0.key < $1.key }) {
            guard let written = value as? [String: Any] else { continue }
            let t = applying(templates, to: written, named: targetName)
            guard let type = t["type"] as? String else {
                throw XcodeProjectError(file: spec.path, problem: "target \(targetName) has no `type` (not even from its templates)", fix: "run `xcodegen generate` and lint the .xcodeproj")
            }
            let base = baseSettings(of: t, named: targetName, type: type, bundleIdPrefix: prefix, folder: folder, generated: &generated)
            let own = settings(t["settings"], configNames, groups: groups)
            let targetConfigFiles = t["configFiles"] as? [String: Any] ?? [:]
            let configurations = configNames.map { c in
                var layered = base.merging(projectSettings[c] ?? [:]) { $1 }.merging(own[c] ?? [:]) { $1 }
                let file = (targetConfigFiles[c] as? String) ?? (configFiles[c] as? String)
                if prefix != nil, !Self.setsBundleID(projectSettings[c], own[c]), Self.xcconfigSets(file, folder: folder, within: repository) {
                    layered["PRODUCT_BUNDLE_IDENTIFIER"] = nil
                }
                return XcodeProject.Configuration(name: c, baseConfiguration: targetConfigFiles[c] as? String, settings: layered)
            }
            let (dependencies, embedded) = Self.dependencies(of: t)
            targets.append(XcodeProject.Target(name: targetName, productType: productTypes[type] ?? "com.apple.product-type.\(type)",
                                               configurations: configurations, defaultConfiguration: configNames.last,
                                               embeddedTargets: embedded, dependencies: dependencies))
        }
        targets = XcodeProject.embeddingExtensionsOnly(targets)
        var project = XcodeProject(url: folder.appendingPathComponent("\(projectName).xcodeproj"), manifest: spec, sourceRoot: folder,
                                   name: projectName, configurations: projectConfigurations, defaultConfiguration: configNames.last, targets: targets)
        project.generatedFiles = generated
        project.unread = unread
        return project
    }

    /// What XcodeGen sets for a target before its own settings: the SDK of its platform, its
    /// Info.plist and entitlements (the files it writes from `properties` into `generated`), the
    /// bundle id from `options.bundleIdPrefix` and its name.
    static func baseSettings(of t: [String: Any], named targetName: String, type: String, bundleIdPrefix prefix: String?, folder: URL,
                             generated: inout [String: Data]) -> [String: String] {
        let platform: String? = (t["platform"] as? String) ?? (t["platform"] as? [String])?.first ?? (t["supportedDestinations"] as? [String])?.first
        var base: [String: String] = [:]
        if let p = platform, let sdk = sdkRoots[p] { base["SDKROOT"] = sdk }
        if let info = t["info"] as? [String: Any], let path = info["path"] as? String {
            base["INFOPLIST_FILE"] = path
            if let properties = info["properties"] as? [String: Any] {
                generated[key(path, in: folder)] = plist(Self.infoDefaults(type).merging(properties) { $1 })
            }
        }
        if let ent = t["entitlements"] as? [String: Any], let path = ent["path"] as? String {
            base["CODE_SIGN_ENTITLEMENTS"] = path
            if let properties = ent["properties"] as? [String: Any] { generated[key(path, in: folder)] = plist(properties) }
        }
        if let prefix { base["PRODUCT_BUNDLE_IDENTIFIER"] = "\(prefix).\(targetName)" }
        base["PRODUCT_NAME"] = targetName
        return base
    }

    // ProjectSpec.md, `bundleIdPrefix`: only a target whose settings, at every level (its
    // xcconfigs too), give no PRODUCT_BUNDLE_IDENTIFIER gets the prefixed one.

    static func setsBundleID(_ layers: [String: String]?...) -> Bool {
        layers.contains { $0?["PRODUCT_BUNDLE_IDENTIFIER"] != nil }
    }

    /// Whether the xcconfig `file` of the spec in `folder` (its includes followed, within
    /// `root`, and from the spec's folder) sets PRODUCT_BUNDLE_IDENTIFIER.
    static func xcconfigSets(_ file: String?, folder: URL, within root: URL) -> Bool {
        guard let file else { return false }
        var ignored: [XCConfig.LoadProblem] = []
        let url = folder.appendingPathComponent(file)
        return XCConfig.load(url, name: url.lastPathComponent, root: root, projectFolder: folder, problems: &ignored)["PRODUCT_BUNDLE_IDENTIFIER"] != nil
    }

    /// The targets a target depends on, and those of them it embeds (all but `embed: false`).
    static func dependencies(of t: [String: Any]) -> (all: [String], embedded: [String]) {
        let dependencies = (t["dependencies"] as? [[String: Any]] ?? []).compactMap { $0["target"] as? String }
        let embedded = (t["dependencies"] as? [[String: Any]] ?? []).compactMap { d -> String? in
            guard let target = d["target"] as? String else { return nil }
            return (d["embed"] as? Bool) == false ? nil : target
        }
        return (dependencies, embedded)
    }

    /// A spec file (or one it includes) read and parsed as a YAML mapping; what is wrong said by
    /// where and what, never the file's own text: an included file may hold anything (a CI log
    /// is public).
    static func parsed(_ url: URL, included: Bool, unread: inout [String]) throws(XcodeProjectError) -> [String: Any] {
        let data: Data
        do { data = try InputFile.contents(of: url) } catch {
            throw XcodeProjectError(file: url.path, problem: included ? "(an include:) cannot be read" : "cannot be read",
                                    fix: included ? "check the include's path, or run `xcodegen generate` and lint the .xcodeproj" : "check that it is the project's XcodeGen spec")
        }
        do {
            // XcodeGen reads a key written twice as its last value (its YAML loader's way): so
            // does mamsim, and says so.
            let (node, duplicates) = try BoundedYAML.composeKeepingLastOfDuplicateKeys(yaml: String(decoding: data, as: UTF8.self))
            guard let parsed = node?.any as? [String: Any] else {
                throw XcodeProjectError(file: url.path, problem: "is not a YAML mapping", fix: "check that it is an XcodeGen spec")
            }
            for d in duplicates {
                unread.append("\(url.lastPathComponent):\(d.line):\(d.column): \"\(ProjectRoot.printable(d.key, limit: 80))\" is written again further down the same mapping; XcodeGen keeps the last, and so does mamsim — remove the one you do not mean")
            }
            return parsed
        } catch let e as XcodeProjectError {
            throw e
        } catch let e as BoundedYAML.TooLarge {
            throw XcodeProjectError(file: url.path, problem: "\(e)", fix: "write the repeated part out, or run `xcodegen generate` and lint the .xcodeproj")
        } catch {
            // Where and what, never the file's own text: an included file may hold anything
            // (a CI log is public).
            throw XcodeProjectError(file: url.path, problem: "is not valid YAML (\(yamlProblem(error)))", fix: "fix it, or run `xcodegen generate` and lint the .xcodeproj")
        }
    }

    /// The spec at `url` with its `include:` files merged under it, as XcodeGen merges them:
    /// mappings key by key, lists appended, a `KEY:REPLACE` key replacing. The paths an
    /// included file names (`info.path`, `entitlements.path`, `configFiles`) are made relative
    /// to the root spec's folder unless it says `relativePaths: false`. A file included twice
    /// (two specs including a shared one) is merged once; one that includes itself is an error.
    static func load(_ url: URL, relativeTo prefix: String, stack: [String], merged done: inout Set<String>, allowed: [URL],
                     unread: inout [String]) throws(XcodeProjectError) -> [String: Any] {
        let depth = stack.count - 1
        var spec = try parsed(url, included: depth > 0, unread: &unread)
        if !prefix.isEmpty { spec = relocating(spec, by: prefix) }
        let includes: [Any] = (spec["include"] as? [Any]) ?? (spec["include"].map { [$0] } ?? [])
        var merged: [String: Any] = [:]
        for include in includes {
            let path: String, relative: Bool, enabled: Bool
            if let p = include as? String { (path, relative, enabled) = (p, true, true) }
            else if let d = include as? [String: Any], let p = d["path"] as? String {
                (path, relative, enabled) = (p, (d["relativePaths"] as? Bool) ?? true, (d["enable"] as? Bool) ?? true)
            } else { continue }
            guard enabled else { continue }
            // Variables (`${VAR}`) in an include come from XcodeGen's environment, not the repository.
            // Skipped and said, never a dead end: the rest of the spec is read.
            guard !path.contains("${") else {
                unread.append("\(url.lastPathComponent) includes \(ProjectRoot.printable(path, limit: 200)), which names an environment variable XcodeGen sets: what it declares is left out (run `xcodegen generate` with it set and name the .xcodeproj to read it)")
                continue
            }
            let target = url.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL
            // As the Info.plist and xcconfig readers do: nothing outside the repository (or the
            // folder the user named) is read, through `../` or a link inside it.
            guard allowed.contains(where: { ProjectRoot.contains($0, target) }) else {
                unread.append("\(url.lastPathComponent) includes \(ProjectRoot.printable(path, limit: 200)), which is outside \(allowed.map { ProjectRoot.printable($0.standardizedFileURL.path, limit: 200) }.joined(separator: " and ")): it was not read, and what it declares (targets, settings) is left out")
                continue
            }
            guard depth < 8, !stack.contains(target.path) else {
                throw XcodeProjectError(file: url.path, problem: "includes \(path) in a cycle (or more than 8 deep)", fix: "remove the include that leads back to it")
            }
            guard done.insert(target.path).inserted else { continue }
            // An include missing from the checkout (a file a build step writes, or one left
            // out of the repository) is left out and said so: the rest of the spec is read.
            guard FileManager.default.isReadableFile(atPath: target.path) else {
                unread.append("\(url.lastPathComponent) includes \(ProjectRoot.printable(path, limit: 200)), which cannot be read: what it declares (targets, settings) is left out")
                continue
            }
            let folder = (path as NSString).deletingLastPathComponent
            let sub = try load(target, relativeTo: relative ? join(prefix, folder) : "", stack: stack + [target.path], merged: &done, allowed: allowed, unread: &unread)
            merged = merging(sub, onto: merged)
        }
        spec["include"] = nil
        return merging(spec, onto: merged)
    }

    /// The repository a spec lies in: the nearest folder above it with `.git` (never the home
    /// folder nor `/`), else the spec's own folder.
    static func repository(of folder: URL) -> URL {
        let home = ProcessInfo.processInfo.environment["HOME"].map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        var candidate = folder.resolvingSymlinksInPath().standardizedFileURL
        while candidate.path != "/" && candidate.path != home {
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent(".git").path) { return candidate }
            candidate = candidate.deletingLastPathComponent()
        }
        return folder.resolvingSymlinksInPath().standardizedFileURL
    }

    /// A YAML error's line, column and problem, without the text Yams quotes around it.
    static func yamlProblem(_ error: any Error) -> String {
        guard let error = error as? YamlError else { return "unreadable" }
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _), .composer(let context, let problem, let mark, _):
            return "line \(mark.line), column \(mark.column): \(context.map { "\($0.text) " } ?? "")\(problem)"
        case .duplicatedKeysInMapping(_, let context):
            return "line \(context.mark.line), column \(context.mark.column): a key appears twice in one mapping"
        default:
            return "not YAML"
        }
    }

    static func join(_ a: String, _ b: String) -> String {
        a.isEmpty ? b : b.isEmpty ? a : (a as NSString).appendingPathComponent(b)
    }

    /// An included spec's paths, made relative to the root spec's folder.
    static func relocating(_ spec: [String: Any], by prefix: String) -> [String: Any] {
        func moved(_ path: String) -> String { path.hasPrefix("/") || path.hasPrefix("$(") ? path : join(prefix, path) }
        func movedFiles(_ value: Any?) -> Any? {
            guard var files = value as? [String: Any] else { return value }
            for (k, v) in files { if let p = v as? String { files[k] = moved(p) } }
            return files
        }
        var out = spec
        out["configFiles"] = movedFiles(spec["configFiles"])
        for section in ["targets", "targetTemplates"] {
            guard var table = spec[section] as? [String: Any] else { continue }
            for (name, value) in table {
                guard var t = value as? [String: Any] else { continue }
                for k in ["info", "entitlements"] {
                    if var d = t[k] as? [String: Any], let p = d["path"] as? String { d["path"] = moved(p); t[k] = d }
                }
                t["configFiles"] = movedFiles(t["configFiles"])
                table[name] = t
            }
            out[section] = table
        }
        return out
    }

    /// `top` merged onto `base` as XcodeGen merges specs and templates: mappings key by key,
    /// lists appended, a `KEY:REPLACE` key replacing KEY whole.
    static func merging(_ top: [String: Any], onto base: [String: Any]) -> [String: Any] {
        var out = base
        for (k, v) in top {
            if k.hasSuffix(":REPLACE") {
                out[String(k.dropLast(":REPLACE".count))] = v
            } else if let d = v as? [String: Any], let b = out[k] as? [String: Any] {
                out[k] = merging(d, onto: b)
            } else if let a = v as? [Any], let b = out[k] as? [Any] {
                out[k] = b + a
            } else {
                out[k] = v
            }
        }
        return out
    }

    /// What XcodeGen writes in a generated Info.plist before a target's `properties`.
    static func infoDefaults(_ type: String) -> [String: Any] {
        var d: [String: Any] = [
            "CFBundleIdentifier": "$(PRODUCT_BUNDLE_IDENTIFIER)", "CFBundleExecutable": "$(EXECUTABLE_NAME)",
            "CFBundleName": "$(PRODUCT_NAME)", "CFBundleInfoDictionaryVersion": "6.0",
            "CFBundleShortVersionString": "1.0", "CFBundleVersion": "1", "CFBundleDevelopmentRegion": "$(DEVELOPMENT_LANGUAGE)",
        ]
        d["CFBundlePackageType"] = type.hasPrefix("application") ? "APPL" : type.contains("extension") ? "XPC!" : "BNDL"
        return d
    }

    static func key(_ path: String, in folder: URL) -> String {
        (path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path)).standardizedFileURL.path
    }

    static func plist(_ dictionary: [String: Any]) -> Data {
        (try? PropertyListSerialization.data(fromPropertyList: sanitized(dictionary), format: .xml, options: 0)) ?? Data()
    }

    /// YAML values as property-list values (a YAML null, or anything else that is not one, as text).
    static func sanitized(_ value: Any) -> Any {
        switch value {
        case let d as [String: Any]: return d.mapValues(sanitized)
        case let a as [Any]: return a.map(sanitized)
        case let s as String: return s
        case let b as Bool: return b
        case let i as Int: return i
        case let f as Double: return f
        default: return "\(value)"
        }
    }

    /// XcodeGen's `settings`: `{groups: […], base: {…}, configs: {Debug: {…}}}`, or a flat
    /// mapping of settings (then base). The groups (`settingGroups`, themselves settings that may
    /// name groups, at most 8 deep) come first, then base, then the configuration's. Per configuration.
    static func settings(_ value: Any?, _ configs: [String], groups: [String: Any] = [:], depth: Int = 0) -> [String: [String: String]] {
        guard let table = value as? [String: Any] else { return [:] }
        let structured = table["base"] != nil || table["configs"] != nil || table["groups"] != nil
        let base = flatten(structured ? table["base"] : table)
        let perConfig = table["configs"] as? [String: Any] ?? [:]
        var fromGroups: [String: [String: String]] = [:]
        if structured, depth < 8 {
            for name in table["groups"] as? [String] ?? [] {
                let group = settings(groups[name], configs, groups: groups, depth: depth + 1)
                for c in configs { fromGroups[c, default: [:]].merge(group[c] ?? [:]) { $1 } }
            }
        }
        var out: [String: [String: String]] = [:]
        for c in configs {
            // A config's key may name it in any case (XcodeGen matches case-insensitively).
            let own = perConfig.first { $0.key.lowercased() == c.lowercased() }.map { flatten($0.value) } ?? [:]
            out[c] = (fromGroups[c] ?? [:]).merging(base) { $1 }.merging(own) { $1 }
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
