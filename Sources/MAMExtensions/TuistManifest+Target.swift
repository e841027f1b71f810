import Foundation
import MAMBundle

/// One `.target(…)` (or `Target(…)`, `.init(…)`) call read as the target Tuist generates.
extension TuistManifest.TargetReader {
    mutating func readTarget(_ args: TuistManifest.Arguments, line: Int) {
        let productName = args.value("product")?.last?.text ?? ""
        guard let name = args.value("name").flatMap(constants.string) else {
            unread.append("\(place(line)): a target whose name is computed (\(args.value("name").map(SwiftTokens.text) ?? "no name")) by code mamsim does not run: left out; run `tuist generate` and name the .xcodeproj to read it")
            return
        }
        var settings: [String: String] = ["PRODUCT_NAME": name, "SDKROOT": Self.sdk(args.value("destinations") ?? args.value("platform"))]
        var computed: Set<String> = []
        if let bundle = args.value("bundleId") {
            if let id = constants.string(bundle) { settings["PRODUCT_BUNDLE_IDENTIFIER"] = id } else {
                computed.insert("PRODUCT_BUNDLE_IDENTIFIER")
                unread.append("\(place(line)): target \(name)'s bundle id is computed (\(SwiftTokens.text(bundle))): the scenario gives it a stand-in; run `tuist generate` for the real one")
            }
        }
        readFiles(args, name: name, productName: productName, line: line, into: &settings)
        // `settings: .settings(base: [...])` or a dictionary the manifest names, then the
        // Release configuration's own (`.release(name:settings:)`), as Tuist layers them.
        if let value = args.value("settings") {
            for (k, v) in table(after: "base", in: value) { settings[k] = v }
            if let release = value.firstIndex(where: { $0.text == "release" }) {
                for (k, v) in table(after: "settings", in: Array(value[release...])) { settings[k] = v }
            }
        }
        // A bundle id written `$(PRODUCT_BUNDLE_IDENTIFIER)` is the settings' own.
        if settings["PRODUCT_BUNDLE_IDENTIFIER"] == "$(PRODUCT_BUNDLE_IDENTIFIER)" { settings["PRODUCT_BUNDLE_IDENTIFIER"] = nil }
        var dependencies: [String] = []
        // A list the manifest names (`dependencies: appDependencies`) is read as written there.
        if let value = args.value("dependencies").map({ $0.count == 1 ? constants.lists[$0[0].text] ?? $0 : $0 }) {
            for (k, t) in value.enumerated() where t.text == "target" && k + 1 < value.count && value[k + 1].text == "(" {
                let call = TuistManifest.arguments(value, openAt: k + 1)
                if let n = call.value("name").flatMap(constants.string) ?? call.positional.first.flatMap(constants.string) { dependencies.append(n) }
            }
        }
        let xcconfigs = args.value("settings").map(xcconfigFiles) ?? [:]
        let configurations = ["Debug", "Release"].map { XcodeProject.Configuration(name: $0, baseConfiguration: xcconfigs[$0], settings: settings) }
        var target = XcodeProject.Target(name: name, productType: TuistManifest.products[productName] ?? "com.apple.product-type.\(productName)",
                                         configurations: configurations, defaultConfiguration: "Release",
                                         embeddedTargets: dependencies, dependencies: dependencies)
        target.computed = computed
        targets.append(target)
    }

    /// Where a line is: the manifest's, or a function's it was read through (a helper's line
    /// is of the helper's file).
    func place(_ line: Int) -> String {
        calling.last.map { "line \(line) of \($0)" } ?? "line \(line)"
    }

    /// The xcconfig each configuration's settings name (`.debug(name:xcconfig:)`,
    /// `.settings(…, xcconfig: .relativeToManifest("…"))` after `debug:`/`release:`), by
    /// configuration; one named once is both's.
    func xcconfigFiles(_ tokens: [SwiftTokens.Token]) -> [String: String] {
        var out: [String: String] = [:]
        var configuration: String?
        for (k, t) in tokens.enumerated() {
            let word = t.text.lowercased()
            if word == "debug" || word == "release" { configuration = word == "debug" ? "Debug" : "Release" }
            guard t.text == "xcconfig", k + 2 < tokens.count, tokens[k + 1].text == ":" else { continue }
            let value = Array(tokens[(k + 2)...].prefix { $0.text != "," && $0.text != ")" || $0.kind != .punctuation })
            guard let path = constants.string(value) ?? TuistManifest.fileArgument(value) ?? TuistManifest.fileArgument(Array(tokens[(k + 2)..<min(tokens.count, k + 8)])) else { continue }
            if let configuration { out[configuration] = path } else { out["Debug"] = path; out["Release"] = path }
        }
        return out
    }

    /// `destinations: .iOS` (or `platform:`) as an SDK.
    static func sdk(_ destinations: [SwiftTokens.Token]?) -> String {
        guard let destinations else { return "iphoneos" }
        let words = Set(destinations.map(\.text))
        return words.contains("iOS") || words.contains("iPhone") || words.contains("iPad") || words.contains("ios") ? "iphoneos"
            : words.contains("macOS") || words.contains("mac") || words.contains("macWithiPadDesign") ? "macosx"
            : words.contains("watchOS") || words.contains("appleWatch") ? "watchos"
            : words.contains("tvOS") || words.contains("appleTv") ? "appletvos" : words.contains("visionOS") || words.contains("appleVision") ? "xros" : "iphoneos"
    }

    /// The string values of the dictionary after `label:` in `tokens`: written there, or a
    /// constant the manifest names.
    func table(after label: String, in tokens: [SwiftTokens.Token]) -> [String: String] {
        guard let at = tokens.firstIndex(where: { $0.text == label }), at + 2 < tokens.count, tokens[at + 1].text == ":" else { return [:] }
        let value: [String: Any]?
        if tokens[at + 2].text == "[" {
            value = TuistManifest.dictionary(tokens, from: at + 2).value as? [String: Any]
        } else {
            value = constants.dictionaries[tokens[at + 2].text]
        }
        return (value ?? [:]).compactMapValues { $0 as? String }
    }

    /// `infoPlist:` and `entitlements:`: a file, or what Tuist writes under `Derived/`.
    mutating func readFiles(_ args: TuistManifest.Arguments, name: String, productName: String, line: Int, into settings: inout [String: String]) {
        for (key, setting) in [("infoPlist", "INFOPLIST_FILE"), ("entitlements", "CODE_SIGN_ENTITLEMENTS")] {
            // `nil` (a helper's default) is no file.
            guard let value = args.value(key), value.map(\.text) != ["nil"] else { continue }
            if let path = constants.string(value) ?? TuistManifest.fileArgument(value) {
                settings[setting] = path
            } else if key == "infoPlist", value.contains(where: { $0.text == "extendingDefault" || $0.text == "default" }) {
                let path = "Derived/InfoPlists/\(name)-Info.plist"
                settings[setting] = path
                var info = XcodeGenSpec.infoDefaults(productName == "app" ? "application" : productName.contains("xtension") ? "app-extension" : "bundle")
                if let with = value.firstIndex(where: { $0.text == "[" }) {
                    info.merge(TuistManifest.dictionary(value, from: with).value as? [String: Any] ?? [:]) { $1 }
                } else if let named = value.last(where: { $0.isIdentifier && constants.dictionaries[$0.text] != nil }), let table = constants.dictionaries[named.text] {
                    info.merge(table) { $1 }
                }
                generated[XcodeGenSpec.key(path, in: folder)] = XcodeGenSpec.plist(info)
            } else if key == "entitlements", let dict = value.firstIndex(where: { $0.text == "[" }) {
                let path = "Derived/Entitlements/\(name).entitlements"
                settings[setting] = path
                generated[XcodeGenSpec.key(path, in: folder)] = XcodeGenSpec.plist(TuistManifest.dictionary(value, from: dict).value as? [String: Any] ?? [:])
            } else {
                unread.append("\(place(line)): target \(name)'s \(key) is computed (\(SwiftTokens.text(value))): left out")
            }
        }
    }
}
