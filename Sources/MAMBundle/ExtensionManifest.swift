public import Foundation
public import MAMActivation

/// Intune's per-bundle settings (`IntuneMAMSettings` in an Info.plist), typed where mamsim reads
/// them and kept whole in `raw`.
public struct IntuneMAMSettings: Sendable, Hashable {
    public var raw: [String: PlistValue]

    public init(raw: [String: PlistValue] = [:]) { self.raw = raw }

    public var appGroupIdentifiers: [String] { raw["AppGroupIdentifiers"]?.stringArray ?? [] }
    /// The extension is an "Open in" stub replacing "Copy to" for managed data (seed 000, step 6).
    public var openInActionExtension: Bool { raw["OpenInActionExtension"]?.bool ?? false }
    public var multiIdentity: Bool { raw["MultiIdentity"]?.bool ?? false }
    public var containingAppBundleId: String? { raw["ContainingAppBundleId"]?.string }
    public var telemetryDisabled: Bool { raw["MAMTelemetryDisabled"]?.bool ?? false }
    /// The SDK's hooks are active while the app is unmanaged (20.9.0 and 21.2.0 release notes).
    public var hooksAlwaysEnabled: Bool { raw["HooksAlwaysEnabled"]?.bool ?? false }
    /// The SDK enrolls at launch (`AutoEnrollOnLaunch`), and requires a policy to run (`MAMPolicyRequired`).
    public var autoEnrollOnLaunch: Bool { raw["AutoEnrollOnLaunch"]?.bool ?? false }
    public var mamPolicyRequired: Bool { raw["MAMPolicyRequired"]?.bool ?? false }
}

/// What the host needs from a plugin's Info.plist: identity, extension point, activation rule,
/// Intune settings and the types it declares, after build-setting expansion.
///
/// Loading does not fail on what a lint should merely report: unresolved `$(VAR)`s and
/// `NSExtensionActivation…` keys placed outside the rule are collected in `unresolvedVariables`
/// and `warnings`. It fails on a malformed plist or an unreadable rule.
public struct ExtensionManifest: Sendable {
    /// What the extension point makes of the plugin (see `kind`).
    public enum Kind: Sendable, Hashable {
        case share, action, keyboard, other(String)
    }

    public var source: String
    public var bundleIdentifier: String?
    public var extensionPointIdentifier: String?
    public var principalClass: String?
    public var activationRule: ActivationRule?
    public var intuneSettings: IntuneMAMSettings
    /// The system UTI tree plus the plugin's `UTExportedTypeDeclarations` / `UTImportedTypeDeclarations`.
    public var types: UTIRegistry
    public var unresolvedVariables: [UnresolvedBuildSetting]
    public var warnings: [String]
    /// A keyboard's `NSExtension.NSExtensionAttributes.RequestsOpenAccess`: it asks the user
    /// for full access (only then can the user grant it).
    public var requestsOpenAccess: Bool

    /// `com.apple.share-services` is a share extension; `com.apple.ui-services` (action with UI) and
    /// `com.apple.services` (action without UI, Intune's "Open in" stub) are action extensions;
    /// `com.apple.keyboard-service` is a custom keyboard.
    public var kind: Kind {
        switch extensionPointIdentifier {
        case "com.apple.share-services": return .share
        case "com.apple.ui-services", "com.apple.services": return .action
        case "com.apple.keyboard-service": return .keyboard
        case let other: return .other(other ?? "")
        }
    }

    static let rulePath = "NSExtension.NSExtensionAttributes.NSExtensionActivationRule"

    /// Loads an Info.plist (XML or binary).
    ///
    /// - Parameters:
    ///   - source: the file's name in errors (`plugins/notes-share/Info.plist`).
    ///   - buildSettings: values for `$(PRODUCT_BUNDLE_IDENTIFIER)` and friends.
    public init(infoPlist data: Data, source: String, buildSettings: BuildSettings = BuildSettings(), baseTypes: UTIRegistry = .system) throws(ActivationRuleError) {
        let parsed: [String: Any]
        do { parsed = try PropertyListIO.dictionary(from: data, source: source) } catch { throw .plist(error) }
        try self.init(infoPlist: parsed, source: source, buildSettings: buildSettings, baseTypes: baseTypes)
    }

    public init(infoPlist parsed: [String: Any], source: String, buildSettings: BuildSettings = BuildSettings(), baseTypes: UTIRegistry = .system) throws(ActivationRuleError) {
        var unresolved: [UnresolvedBuildSetting] = []
        // The rule is a predicate, not a build setting: `$extensionItem` must stay as written.
        var toExpand = parsed
        var ruleValue: Any?
        if var ext = parsed["NSExtension"] as? [String: Any], var attributes = ext["NSExtensionAttributes"] as? [String: Any] {
            ruleValue = attributes.removeValue(forKey: "NSExtensionActivationRule")
            ext["NSExtensionAttributes"] = attributes
            toExpand["NSExtension"] = ext
        }
        let plist = buildSettings.expand(plist: toExpand, keyPath: "", unresolved: &unresolved) as? [String: Any] ?? [:]
        self.source = source
        unresolvedVariables = unresolved
        warnings = []
        bundleIdentifier = plist["CFBundleIdentifier"] as? String
        let ext = plist["NSExtension"] as? [String: Any] ?? [:]
        extensionPointIdentifier = ext["NSExtensionPointIdentifier"] as? String
        principalClass = ext["NSExtensionPrincipalClass"] as? String
        requestsOpenAccess = (ext["NSExtensionAttributes"] as? [String: Any])?["RequestsOpenAccess"] as? Bool ?? false
        intuneSettings = IntuneMAMSettings(raw: (plist["IntuneMAMSettings"] as? [String: Any] ?? [:]).mapValues(PlistValue.init))
        types = baseTypes.adding(declarationsFrom: plist)

        if let ruleValue {
            let rule = try ActivationRule(plistValue: ruleValue, source: source)
            activationRule = rule
            if case .dictionary(let d) = rule {
                warnings += d.notes.map { "\(source): \(Self.rulePath): \($0)" }
            }
        } else {
            activationRule = nil
            if kind == .share || kind == .action {
                warnings.append("\(source): \(Self.rulePath) is missing; the share sheet never offers this extension")
            }
        }
        // Activation keys one level too high are a common mistake and are silently ignored by iOS.
        let attributes = ext["NSExtensionAttributes"] as? [String: Any] ?? [:]
        for (container, path) in [(plist, ""), (ext, "NSExtension."), (attributes, "NSExtension.NSExtensionAttributes.")] {
            for key in container.keys.sorted() where key.hasPrefix(ActivationDictionary.keyPrefix) && key != "NSExtensionActivationRule" {
                warnings.append("\(source): \(path)\(key) is outside NSExtensionActivationRule and has no effect; move it into the rule dictionary")
            }
        }
    }

    /// Whether the share sheet offers this extension for a share. Managed data reaches extensions
    /// with its types renamed to their `com.microsoft.intune.mam.` twins, so an extension whose rule
    /// does not accept those is not offered (RULES.md §2, seed 000).
    public func activation(for share: ShareInput, dataIsManaged: Bool) -> ActivationResult {
        guard let rule = activationRule else {
            return .notActivated(because: "\(source) has no NSExtensionActivationRule")
        }
        guard dataIsManaged else { return rule.evaluate(share, types: types) }
        switch rule.evaluate(share.intuneTwin, types: types) {
        case .activated(let reason): return .activated(because: "managed data as Intune types: " + reason)
        case .notActivated(let reason):
            return .notActivated(because: "managed data is shared as com.microsoft.intune.mam. types and the rule does not accept them: " + reason)
        }
    }

    /// For a plist that does not parse (a truncated copy): the `IntuneMAMSettings` dictionary if
    /// it is itself complete, so lint can still check it. `nil` when it is absent or cut.
    public static func salvageIntuneMAMSettings(fromMalformed data: Data) -> IntuneMAMSettings? {
        guard let text = String(data: data, encoding: .utf8),
              let keyRange = text.range(of: "<key>IntuneMAMSettings</key>") else { return nil }
        let rest = text[keyRange.upperBound...]
        guard let open = rest.range(of: "<dict>") else { return nil }
        var level = 0
        var index = open.lowerBound
        while index < rest.endIndex {
            if rest[index...].hasPrefix("<dict>") { level += 1 } else if rest[index...].hasPrefix("</dict>") {
                level -= 1
                if level == 0 {
                    let fragment = String(rest[open.lowerBound..<rest.index(index, offsetBy: "</dict>".count)])
                    let wrapped = Data(("<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\">" + fragment + "</plist>").utf8)
                    guard let dict = try? PropertyListIO.dictionary(from: wrapped, source: "") else { return nil }
                    return IntuneMAMSettings(raw: dict.mapValues(PlistValue.init))
                }
            }
            index = rest.index(after: index)
        }
        return nil
    }
}

/// The entitlements mamsim enforces (RULES.md §6), after build-setting expansion.
public struct Entitlements: Sendable, Hashable {
    public var keychainAccessGroups: [String]
    public var applicationGroups: [String]
    /// `com.apple.developer.associated-domains`' `applinks:` entries, without the prefix: the
    /// domains whose universal links the app opens.
    public var universalLinkDomains: [String]
    public var unresolvedVariables: [UnresolvedBuildSetting]

    public init(data: Data, source: String, buildSettings: BuildSettings = BuildSettings()) throws(ExtensionPlistError) {
        let parsed = try PropertyListIO.dictionary(from: data, source: source)
        var unresolved: [UnresolvedBuildSetting] = []
        let plist = buildSettings.expand(plist: parsed, keyPath: "", unresolved: &unresolved) as? [String: Any] ?? [:]
        keychainAccessGroups = PlistValue(plist["keychain-access-groups"] ?? [Any]()).stringArray ?? []
        applicationGroups = PlistValue(plist["com.apple.security.application-groups"] ?? [Any]()).stringArray ?? []
        universalLinkDomains = (PlistValue(plist["com.apple.developer.associated-domains"] ?? [Any]()).stringArray ?? [])
            .filter { $0.hasPrefix("applinks:") }.map { String($0.dropFirst("applinks:".count)) }
        unresolvedVariables = unresolved
    }
}
