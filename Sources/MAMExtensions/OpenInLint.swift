import MAMActivation
import MAMBundle
/// Intune's "Open in" action extension, which replaces iOS's "Copy to" for managed documents
/// (seed 000, "Copy to actions", steps 1–7). The extension is a non-UI stub; the SDK does the
/// copy through the containing app's `-intunemam` URL scheme, a shared app group and the shared
/// `com.microsoft.intune.mam` keychain group, so each of those is checked on both sides.
extension LintContext {
    static let openInFlagPath = "IntuneMAMSettings.OpenInActionExtension"
    static let appGroupsPath = "IntuneMAMSettings.AppGroupIdentifiers"

    mutating func checkOpenIn() {
        guard let manifest = plugin.manifest else { return }
        let settings = plugin.intuneSettings

        // Step 6: the flag.
        switch settings.raw["OpenInActionExtension"] {
        case nil:
            report(.error, "open-in-flag", plugin, Self.openInFlagPath, "is missing; an \"Open in\" action extension must set it to YES",
                   fix: "add <key>OpenInActionExtension</key><true/> to IntuneMAMSettings")
        case .boolean(true)?:
            break
        case let value? where value.bool == true:
            report(.warning, "open-in-flag", plugin, Self.openInFlagPath, "is \(value.kindDescription), read as YES",
                   fix: "write <true/>, the Boolean the SDK documents")
        case let value?:
            report(.error, "open-in-flag", plugin, Self.openInFlagPath, "must be YES for an \"Open in\" action extension, found \(value.kindDescription)",
                   fix: "set <key>OpenInActionExtension</key><true/>")
        }

        // Step 4 and the stub's shape.
        if let name = plugin.displayName, Self.isResolved(name), !name.lowercased().hasPrefix("open in") {
            report(.warning, "open-in-name", plugin, plugin.info?["CFBundleDisplayName"] != nil ? "CFBundleDisplayName" : "CFBundleName",
                   "is \"\(name)\"; the SDK asks to name the extension \"Open in\" and the app's name",
                   fix: "set CFBundleDisplayName to \"Open in <app name>\"")
        }
        if manifest.extensionPointIdentifier == "com.apple.ui-services" {
            report(.warning, "open-in-non-ui", plugin, "NSExtension.NSExtensionPointIdentifier",
                   "is com.apple.ui-services; the SDK's \"Open in\" stub is a non-UI action extension",
                   fix: "use com.apple.services")
        }

        checkOpenInAppGroups()
        checkOpenInKeychain(plugin)
        if let container {
            checkOpenInKeychain(container)
            checkIntuneURLScheme(container)
        } else {
            report(.warning, "open-in-container", plugin, "IntuneMAMSettings.ContainingAppBundleId",
                   "the containing app's Info.plist is not in container/, so its -intunemam URL scheme and app groups were not checked",
                   fix: "copy the app's Info.plist (and entitlements) to container/")
        }
        checkOpenInRule(manifest)
    }

    /// Step 2: at least one app group, listed by both sides' `AppGroupIdentifiers` (that each
    /// side is entitled to it is `checkEntitledAppGroups`).
    private mutating func checkOpenInAppGroups() {
        let groups = plugin.intuneSettings.appGroupIdentifiers
        guard !groups.isEmpty else {
            let example = container?.intuneSettings.appGroupIdentifiers.first
                ?? plugin.intuneSettings.containingAppBundleId.map { "group." + $0 } ?? "group.com.example.app"
            report(.error, "open-in-app-group", plugin, Self.appGroupsPath,
                   "is empty or missing; an \"Open in\" extension must share an app group with its containing app",
                   fix: "list the shared group: <key>AppGroupIdentifiers</key><array><string>\(example)</string></array>")
            return
        }
        guard let container, container.manifest != nil else { return }
        let appGroups = container.intuneSettings.appGroupIdentifiers
        if !groups.contains(where: appGroups.contains) {
            report(.error, "open-in-app-group", container, Self.appGroupsPath,
                   "does not list any app group of the \"Open in\" extension (\(groups.joined(separator: ", ")))",
                   fix: "add <string>\(groups[0])</string> to the app's IntuneMAMSettings.AppGroupIdentifiers")
        }
    }

    /// Step 3: both sides share `com.microsoft.intune.mam`.
    private mutating func checkOpenInKeychain(_ bundle: BundleFolder) {
        guard let entitlements = bundle.entitlements else {
            if bundle.entitlementsFile == nil {
                report(.error, "open-in-keychain", bundle, .entitlements, "keychain-access-groups",
                       "no entitlements file; the \"Open in\" extension and its app must share the com.microsoft.intune.mam keychain group",
                       fix: "add an .entitlements file with keychain-access-groups [$(AppIdentifierPrefix)<bundle id>, $(AppIdentifierPrefix)com.microsoft.intune.mam]")
            }
            return
        }
        // A group still holding a $(VAR) besides the team prefix is already reported.
        let bare = bundle.keychainGroupsToJudge.map(\.bare)
        guard bare.count == entitlements.keychainAccessGroups.count else { return }
        guard !bare.contains(Linter.intuneKeychainGroup), !bare.contains(where: Self.isMisspelledIntuneGroup) else { return }
        let side = bundle.prefix.isEmpty ? "the \"Open in\" extension" : "the containing app"
        report(.error, "open-in-keychain", bundle, .entitlements, "keychain-access-groups",
               "does not include com.microsoft.intune.mam, which \(side) must share with \(bundle.prefix.isEmpty ? "its app" : "its \"Open in\" extension")",
               fix: "add <string>\(Self.teamPrefixVariable)com.microsoft.intune.mam</string> after the bundle id's group")
    }

    /// Step 1: a URL scheme and its `-intunemam` twin on the containing app.
    private mutating func checkIntuneURLScheme(_ app: BundleFolder) {
        guard app.manifest != nil else { return }
        let schemes = app.urlSchemes
        let suffix = "-intunemam"
        if schemes.contains(where: { !$0.hasSuffix(suffix) && schemes.contains($0 + suffix) }) { return }
        if let plain = schemes.first(where: { !$0.hasSuffix(suffix) }) {
            report(.error, "open-in-url-scheme", app, "CFBundleURLTypes",
                   "no URL scheme has its -intunemam twin (\(schemes.joined(separator: ", "))); the SDK opens the app through it",
                   fix: "add <string>\(plain)\(suffix)</string> next to <string>\(plain)</string> in CFBundleURLSchemes")
        } else {
            report(.error, "open-in-url-scheme", app, "CFBundleURLTypes",
                   "declares no URL scheme; the SDK opens the app through a scheme and its -intunemam twin",
                   fix: "add CFBundleURLTypes with CFBundleURLSchemes [myapp, myapp-intunemam]")
        }
    }

    /// Step 7: exactly one file, only `com.microsoft.intune.mam.`-prefixed types, covering the
    /// app's document types. Probed by evaluating the rule, so it holds for any way it is written.
    private mutating func checkOpenInRule(_ manifest: ExtensionManifest) {
        let path = BundleFolder.rulePath
        let documentTypes = container?.documentTypes ?? []
        let sample = Self.sampleOpenInRule(documentTypes.isEmpty ? ["public.content"] : documentTypes)
        guard let rule = manifest.activationRule else {
            // A rule that does not parse is already reported.
            if !findings.contains(where: { $0.keyPath == path && $0.severity == .error }) {
                report(.error, "open-in-rule", plugin, "NSExtension.NSExtensionAttributes", "has no NSExtensionActivationRule, so the \"Open in\" extension is never offered",
                       fix: "add <key>NSExtensionActivationRule</key><string>\(sample)</string>")
            }
            return
        }
        let types = manifest.types
        guard let witness = intuneWitness(for: rule, types: types) else {
            report(.error, "open-in-rule", plugin, path, "accepts none of the com.microsoft.intune.mam. types, so the \"Open in\" extension never appears for managed documents",
                   fix: "accept exactly one file of the app's document types with the prefix: \(sample)")
            return
        }
        let attachments = witness.allAttachments
        let one = attachments[0]
        let twoFiles = ShareInput(attachments: [one, one])
        let twoItems = ShareInput(extensionItems: [ExtensionItem(attachments: [one]), ExtensionItem(attachments: [one])])
        if attachments.count > 1 {
            report(.error, "open-in-rule", plugin, path, "accepts managed documents only \(attachments.count) at a time, not a single file",
                   fix: "require exactly one attachment: \(sample)")
        } else if rule.evaluate(twoFiles, types: types).isActivated || rule.evaluate(twoItems, types: types).isActivated {
            report(.error, "open-in-rule", plugin, path, "accepts 2 managed files at once; an \"Open in\" extension takes a single file",
                   fix: "compare both SUBQUERY counts with == 1: \(sample)")
        }
        if let unmanaged = Self.unmanagedTypeAccepted(by: rule, types: types) {
            report(.error, "open-in-rule", plugin, path,
                   "also accepts unmanaged data (\(unmanaged)); the \"Open in\" stub must accept only com.microsoft.intune.mam.-prefixed types",
                   fix: "remove the unprefixed types from the rule")
        }
        for type in documentTypes where !UTIRegistry.isIntuneType(type) {
            let twin = UTIRegistry.intuneTwin(of: type)
            let probes = [ShareInput([twin]), ShareInput([twin, UTIRegistry.intuneTwin(of: "public.file-url")])]
            if !probes.contains(where: { rule.evaluate($0, types: types).isActivated }) {
                report(.warning, "open-in-document-types", plugin, path, "does not accept \(twin), though the containing app opens \(type) (CFBundleDocumentTypes)",
                       fix: "add ANY $attachment.registeredTypeIdentifiers UTI-CONFORMS-TO \"\(twin)\"")
            }
        }
    }

    /// The first unprefixed type (alone, or as a file URL) the rule activates on.
    static func unmanagedTypeAccepted(by rule: ActivationRule, types: UTIRegistry) -> String? {
        var candidates = rule.asPredicate.mentionedTypes.filter { !UTIRegistry.isIntuneType($0) }
        candidates += types.identifiers.sorted().filter { !UTIRegistry.isIntuneType($0) && !candidates.contains($0) }
        for type in candidates {
            if rule.evaluate(ShareInput([type]), types: types).isActivated
                || rule.evaluate(ShareInput([type, "public.file-url"]), types: types).isActivated {
                return type
            }
        }
        return nil
    }

    /// Microsoft's sample "Open in" rule (seed 000, step 7) over the given types, on one line.
    static func sampleOpenInRule(_ types: [String]) -> String {
        let alternatives = types.map { "ANY $attachment.registeredTypeIdentifiers UTI-CONFORMS-TO \"\(UTIRegistry.intuneTwin(of: $0))\"" }
        return "SUBQUERY(extensionItems, $extensionItem, SUBQUERY($extensionItem.attachments, $attachment,"
            + alternatives.joined(separator: " || ") + ").@count == 1).@count == 1"
    }
}
