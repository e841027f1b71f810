import Foundation
import MAMExtensions
import MAMActivation
import MAMBundle
import Testing

struct ExtensionManifestTests {
    static let settings = BuildSettings(["PRODUCT_BUNDLE_IDENTIFIER": "com.contoso.notes.share", "PRODUCT_MODULE_NAME": "NotesShare",
                                         "PRODUCT_NAME": "Notes Share"], teamIdentifierPrefix: "ABCDE12345.")

    @Test func buildSettingsExpandInEveryForm() {
        var unresolved: [UnresolvedBuildSetting] = []
        let s = Self.settings
        #expect(s.expand("$(PRODUCT_BUNDLE_IDENTIFIER)", keyPath: "k", unresolved: &unresolved) == "com.contoso.notes.share")
        #expect(s.expand("${PRODUCT_MODULE_NAME}.ShareViewController", keyPath: "k", unresolved: &unresolved) == "NotesShare.ShareViewController")
        #expect(s.expand("$(AppIdentifierPrefix)com.microsoft.intune.mam", keyPath: "k", unresolved: &unresolved) == "ABCDE12345.com.microsoft.intune.mam")
        #expect(s.expand("$(TeamIdentifierPrefix)group", keyPath: "k", unresolved: &unresolved) == "ABCDE12345.group")
        #expect(s.expand("$(PRODUCT_NAME:rfc1034identifier)", keyPath: "k", unresolved: &unresolved) == "Notes-Share")
        #expect(s.expand("$(PRODUCT_NAME:c99extidentifier:lower)", keyPath: "k", unresolved: &unresolved) == "notes_share")
        #expect(s.expand("$(PRODUCT_$(KIND))", keyPath: "k", unresolved: &unresolved) == "$(PRODUCT_$(KIND))")
        #expect(unresolved == [UnresolvedBuildSetting(name: "KIND", keyPath: "k"), UnresolvedBuildSetting(name: "PRODUCT_$(KIND)", keyPath: "k")])
        unresolved = []
        let nested = BuildSettings(["KIND": "NAME", "PRODUCT_NAME": "Notes", "LOOP": "$(LOOP)"])
        #expect(nested.expand("$(PRODUCT_$(KIND))", keyPath: "k", unresolved: &unresolved) == "Notes")
        #expect(unresolved.isEmpty)
        _ = nested.expand("$(LOOP)", keyPath: "k", unresolved: &unresolved)
        #expect(unresolved.first?.problem == "refers to itself (expansion deeper than 8 levels)")
    }

    @Test func unresolvedVariableIsReportedByNameAndKeyPath() throws {
        let data = try Fixtures.infoPlist(wrappingNSExtension: "27-rabble_nostrvine.plist",
                                          extraKeys: "<key>CFBundleIdentifier</key><string>$(PRODUCT_BUNDLE_IDENTIFIER)</string>")
        let bare = try ExtensionManifest(infoPlist: data, source: "plugins/nostrvine/Info.plist")
        #expect(bare.unresolvedVariables.map(\.description) == [
            "build setting $(PRODUCT_BUNDLE_IDENTIFIER) in CFBundleIdentifier is not set; pass it as a variable or replace it in the plist",
            "build setting $(PRODUCT_MODULE_NAME) in NSExtension.NSExtensionPrincipalClass is not set; pass it as a variable or replace it in the plist",
        ])
        #expect(bare.principalClass == "$(PRODUCT_MODULE_NAME).ShareViewController")
        let expanded = try ExtensionManifest(infoPlist: data, source: "plugins/nostrvine/Info.plist", buildSettings: Self.settings)
        #expect(expanded.unresolvedVariables.isEmpty)
        #expect(expanded.bundleIdentifier == "com.contoso.notes.share")
        #expect(expanded.principalClass == "NotesShare.ShareViewController")
        #expect(expanded.kind == .share)
    }

    @Test func entitlementsExpandTheTeamPrefixAndReportItWhenMissing() throws {
        let name = "35-microsoftconnect_Chatr-Sample-Intune-iOS-App.entitlements"
        let data = Data(try Fixtures.body(name).utf8)
        let expanded = try Entitlements(data: data, source: name, buildSettings: BuildSettings(teamIdentifierPrefix: "ABCDE12345."))
        #expect(expanded.keychainAccessGroups == ["ABCDE12345.Intune.chatr", "ABCDE12345.com.microsoft.intune.mam", "ABCDE12345.com.microsoft.adalcache"])
        #expect(expanded.unresolvedVariables.isEmpty)
        // Without a team, the prefix is code signing's to set: kept as written, never "unset".
        let bare = try Entitlements(data: data, source: name)
        #expect(bare.unresolvedVariables.isEmpty)
        #expect(bare.keychainAccessGroups.first == "$(AppIdentifierPrefix)Intune.chatr")
    }

    @Test func manifestReadsPointRuleAndIntuneSettings() throws {
        let data = try Fixtures.infoPlist(wrappingNSExtension: "11-owncloud_ios-app-ActionExtension.plist", extraKeys: """
            <key>IntuneMAMSettings</key>
            <dict>
                <key>AppGroupIdentifiers</key><array><string>group.com.owncloud</string></array>
                <key>OpenInActionExtension</key><integer>1</integer>
                <key>ContainingAppBundleId</key><string>com.owncloud.ios-app</string>
            </dict>
            <key>UTExportedTypeDeclarations</key>
            <array><dict>
                <key>UTTypeIdentifier</key><string>com.owncloud.bookmark</string>
                <key>UTTypeConformsTo</key><array><string>public.data</string></array>
                <key>UTTypeTagSpecification</key><dict><key>public.filename-extension</key><array><string>ocbm</string></array></dict>
            </dict></array>
            """)
        let manifest = try ExtensionManifest(infoPlist: data, source: "owncloud")
        #expect(manifest.kind == .action)
        #expect(manifest.extensionPointIdentifier == "com.apple.ui-services")
        #expect(manifest.intuneSettings.appGroupIdentifiers == ["group.com.owncloud"])
        #expect(manifest.intuneSettings.openInActionExtension)
        #expect(manifest.intuneSettings.containingAppBundleId == "com.owncloud.ios-app")
        #expect(!manifest.intuneSettings.multiIdentity)
        // The plugin's own type takes part in evaluation through `types`.
        let rule = try #require(manifest.activationRule)
        #expect(manifest.types.preferredType(forFilenameExtension: "ocbm") == "com.owncloud.bookmark")
        #expect(rule.evaluate(ShareInput(["com.owncloud.bookmark"]), types: manifest.types).isActivated)
        #expect(!rule.evaluate(ShareInput(["com.owncloud.bookmark"])).isActivated)
        // The rule's `$extensionItem` variables are not mistaken for build settings.
        #expect(manifest.unresolvedVariables.isEmpty)
    }

    @Test func managedDataIsOfferedOnlyToExtensionsAcceptingIntuneTypes() throws {
        let unconfigured = try ExtensionManifest(infoPlist: try Fixtures.infoPlist(wrappingNSExtension: "21-Infomaniak_ios-kDrive-Share.plist"), source: "kDrive")
        #expect(unconfigured.activation(for: Shares.pdfFileURL, dataIsManaged: false).isActivated)
        let managed = unconfigured.activation(for: Shares.pdfFileURL, dataIsManaged: true)
        #expect(!managed.isActivated)
        #expect(managed.reason.hasPrefix("managed data is shared as com.microsoft.intune.mam. types and the rule does not accept them: rule requires every attachment conforming to public.data (1); got 0"))
        let configuredData = try IntuneConfigurator.configure(infoPlist: try Fixtures.infoPlist(wrappingNSExtension: "21-Infomaniak_ios-kDrive-Share.plist"), source: "kDrive")
        let configured = try ExtensionManifest(infoPlist: configuredData, source: "kDrive")
        #expect(configured.activation(for: Shares.pdfFileURL, dataIsManaged: true).isActivated)
        #expect(configured.activation(for: Shares.pdfFileURL, dataIsManaged: false).isActivated)
    }

    @Test func activationKeysOutsideTheRuleAreReportedAndIgnored() throws {
        let data = Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>NSExtension</key><dict>
                <key>NSExtensionAttributes</key><dict>
                    <key>NSExtensionActivationRule</key><dict>
                        <key>NSExtensionActivationSupportsImageWithMaxCount</key><integer>1</integer>
                    </dict>
                    <key>NSExtensionActivationSupportsText</key><true/>
                </dict>
                <key>NSExtensionActivationSupportsWebURLWithMaxCount</key><integer>1</integer>
                <key>NSExtensionPointIdentifier</key><string>com.apple.share-services</string>
            </dict></dict></plist>
            """.utf8)
        let manifest = try ExtensionManifest(infoPlist: data, source: "Info.plist")
        #expect(manifest.warnings == [
            "Info.plist: NSExtension.NSExtensionActivationSupportsWebURLWithMaxCount is outside NSExtensionActivationRule and has no effect; move it into the rule dictionary",
            "Info.plist: NSExtension.NSExtensionAttributes.NSExtensionActivationSupportsText is outside NSExtensionActivationRule and has no effect; move it into the rule dictionary",
        ])
        let rule = try #require(manifest.activationRule)
        #expect(!rule.evaluate(Shares.plainText).isActivated)
        #expect(rule.evaluate(Shares.image).isActivated)
    }

    @Test func appInfoPlistFixtureLoadsWithItsIntuneSettingsAndNoRule() throws {
        let name = "39-microsoftconnect_sample-intune-maui-ios-Info.plist"
        let manifest = try ExtensionManifest(infoPlist: Data(try Fixtures.body(name).utf8), source: name)
        #expect(manifest.bundleIdentifier == "com.maui.microsoftintunemamsample")
        #expect(manifest.activationRule == nil)
        #expect(manifest.kind == .other(""))
        #expect(manifest.warnings.isEmpty)
        #expect(manifest.intuneSettings.raw["ADALClientId"] == .string("<REPLACE WITH AAD CLIENT ID>"))
    }

    @Test func truncatedInfoPlistFailsToLoadButItsIntuneSettingsAreSalvaged() throws {
        let name = "41-ms-intune-app-sdk-ios-issue340-OpenIn-extension-PARTIAL.txt"
        let data = Data(try Fixtures.body(name).utf8)
        let error = #expect(throws: ActivationRuleError.self) { try ExtensionManifest(infoPlist: data, source: name) }
        guard case .plist(let plistError) = error else { Issue.record("expected a plist error, got \(String(describing: error))"); return }
        #expect(plistError.source == name)
        #expect(plistError.message.hasPrefix("is not a well-formed property list"))
        let settings = try #require(ExtensionManifest.salvageIntuneMAMSettings(fromMalformed: data))
        #expect(settings.appGroupIdentifiers == ["group.com.MY_APP_GROUP_IDENTIFIER"])
        #expect(settings.openInActionExtension)
    }

    @Test func ruleOfTheWrongTypeIsAnErrorNamingTheKeyPath() {
        let data = Data(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>NSExtension</key><dict><key>NSExtensionAttributes</key><dict><key>NSExtensionActivationRule</key><integer>1</integer></dict></dict></dict></plist>"#.utf8)
        let error = #expect(throws: ActivationRuleError.self) { try ExtensionManifest(infoPlist: data, source: "p/Info.plist") }
        #expect(error?.description == "p/Info.plist: NSExtension.NSExtensionAttributes.NSExtensionActivationRule: expected a predicate <string> or a <dict> of NSExtensionActivation… keys, found <integer>1</integer>")
    }
}
