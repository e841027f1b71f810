import Foundation
import MAMExtensions
import MAMActivation
import MAMBundle
import MAMDocument
import MAMModel
import MAMPolicy
@testable import MAMScenario
import Testing

/// The full example of SCENARIOS.md, with the files it references.
@Suite struct ExampleScenarioTests {
    let scenario: Scenario

    init() throws {
        scenario = try Fixtures.load("example/fleet.yaml")
    }

    @Test func fullExampleOfScenariosDocParses() throws {
        #expect(scenario.name == "Managed mail shares with an unmanaged notes app")
        #expect(scenario.device.osVersion == Version("18.4")!)
        #expect(scenario.device.clock == Instant(iso8601: "2026-01-01T09:00:00Z")!)
        #expect(!scenario.device.mdmEnrolled && !scenario.device.jailbroken && scenario.device.restrictions.isEmpty)
        #expect(scenario.accounts.map(\.account.upn) == ["alice@contoso.com", "bob@outlook.com"])
        #expect(scenario.accounts.map(\.policyName) == ["strict", nil])
        #expect(Set(scenario.policies.keys) == ["strict", "level3"])
        #expect(scenario.allowedAccounts?.contains("alice@contoso.com") == true)
        #expect(scenario.apps.map(\.id) == ["mail", "word", "notes"])
        #expect(scenario.extensions.map(\.id) == ["word-open-in"])
        #expect(scenario.steps.map(\.verb) == [.signIn, .signIn, .switchIdentity, .share, .share])
        #expect(scenario.steps.map(\.expect) == [nil, nil, .success, .blocked(.outboundPolicy), .delivered])
        #expect(scenario.steps.map(\.line) == [52, 53, 54, 56, 58])
    }

    @Test func accountKeepsWrittenOIDAndTenant() throws {
        let alice = try #require(scenario.accounts.first)
        #expect(alice.account.oid == "0b6f1c2e-2f4b-4c1e-9a55-3c1f0e6d7a10")
        #expect(alice.account.tenant == "contoso.onmicrosoft.com")
        #expect(!alice.oidWasDerived)
        let bob = scenario.accounts[1]
        #expect(bob.oidWasDerived)
        #expect(bob.account.oid == ScenarioAccount.derivedOID(forUPN: "bob@outlook.com"))
    }

    @Test func fleetTargetsAccountsWithTheirPolicyAndInstallsEveryAppAndExtension() throws {
        let fleet = scenario.fleet
        let alice = try #require(fleet.account(named: "ALICE@contoso.com"))
        let bob = try #require(fleet.account(named: "bob@outlook.com"))
        #expect(fleet.policy(for: alice) == scenario.policies["strict"])
        #expect(!fleet.isManaged(bob))
        #expect(fleet.apps.count == 4)
        #expect(fleet.isPolicyManaged("com.contoso.mail", for: alice))
        #expect(!fleet.isPolicyManaged("com.example.notes", for: alice))
        // The extension is managed because its containing app is targeted.
        #expect(fleet.isPolicyManaged("com.contoso.word.open-in", for: alice))
        #expect(fleet.allowedAccounts?.contains("0b6f1c2e-2f4b-4c1e-9a55-3c1f0e6d7a10") == true)
        #expect(fleet.device == scenario.device.facts)
    }

    @Test func extensionIsReadFromItsPluginFolder() throws {
        let ext = try #require(scenario.extensions.first)
        #expect(ext.descriptor.bundleID == "com.contoso.word.open-in")
        #expect(ext.descriptor.kind == .action)
        #expect(ext.descriptor.containingApp == "com.contoso.word")
        #expect(ext.descriptor.openInActionExtension)
        #expect(ext.descriptor.keychainAccessGroups == ["com.contoso.word", "com.microsoft.intune.mam"])
        #expect(ext.descriptor.appGroups == ["group.com.contoso"])
        #expect(ext.container == "word")
        #expect(ext.entitlementsFile?.lastPathComponent == "OpenInWord.entitlements")
        #expect(ext.executable == nil, "no OpenInWord binary in the folder: the built-in runtime runs it")
        let pdf = ShareInput(["com.adobe.pdf"])
        let text = ShareInput(["public.plain-text"])
        #expect(ext.manifest.activation(for: pdf, dataIsManaged: true).isActivated)
        #expect(!ext.manifest.activation(for: text, dataIsManaged: false).isActivated)
    }

    @Test func explicitAppKeysWinOverInfoPlistAndEntitlements() throws {
        let mail = try #require(scenario.apps.first)
        #expect(mail.descriptor.bundleID == "com.contoso.mail")
        #expect(mail.descriptor.urlSchemes == ["ms-outlook"])
        #expect(mail.descriptor.keychainAccessGroups == ["com.contoso.mail", "com.microsoft.intune.mam"])
        #expect(mail.descriptor.appGroups == ["group.com.contoso"])
        #expect(mail.descriptor.multiIdentity)
        #expect(mail.infoPlist?.lastPathComponent == "Info.plist")
        let notes = scenario.apps[2]
        #expect(!notes.descriptor.sdkIntegrated)
        #expect(scenario.apps[1].descriptor.sdkIntegrated, "sdk defaults to true")
    }

    @Test func shareItemsCarryTypeAndResolvedFile() throws {
        guard let share = scenario.steps[4].arguments.as(ShareStep.self) else {
            Issue.record("step 4 is \(scenario.steps[4].verb)")
            return
        }
        let item = share.item
        #expect((share.from, share.to, share.as) == ("mail", "word-open-in", nil))
        #expect(item.type == "com.adobe.pdf")
        #expect(item.content == .file(Fixtures.url("example/fixtures/q3.pdf").standardizedFileURL))
        #expect(try item.bytes().starts(with: Array("%PDF".utf8)))
    }

    @Test func unresolvedBuildSettingsUnderExplicitKeysAreNotWarnedAbout() {
        // mail's Info.plist has $(PRODUCT_BUNDLE_IDENTIFIER) and its entitlements
        // $(AppIdentifierPrefix), but bundle: and keychainGroups: replace both.
        #expect(scenario.warnings.isEmpty, "\(scenario.warnings)")
    }
}

@Suite struct AppInfoTests {
    @Test func infoPlistAndEntitlementsFillKeysTheScenarioLeavesOut() throws {
        let s = try Fixtures.load("info-fills.yaml", buildSettings: [
            "PRODUCT_BUNDLE_IDENTIFIER": "com.contoso.mail", "AppIdentifierPrefix": "ABCDE12345.",
        ])
        let mail = s.apps[0].descriptor
        #expect(mail.bundleID == "com.contoso.mail")
        #expect(mail.urlSchemes == ["contoso-mail", "msauth.com.contoso.mail"])
        #expect(mail.multiIdentity)
        #expect(mail.keychainAccessGroups == ["ABCDE12345.com.contoso.mail.entitled"])
        #expect(mail.appGroups == ["group.com.contoso.entitled"])
        let explicit = s.apps[1].descriptor
        #expect(explicit.bundleID == "com.contoso.mail.explicit")
        #expect(explicit.urlSchemes == ["ms-outlook"])
        #expect(!explicit.multiIdentity)
        #expect(explicit.appGroups == ["group.com.contoso.info"], "IntuneMAMSettings.AppGroupIdentifiers without entitlements")
        #expect(s.warnings.isEmpty)
    }

    /// The team prefix is code signing's to set (issue 73): never an unset build setting, no
    /// warning at every run; any other unset setting the app uses is one.
    @Test func unresolvedBuildSettingsTheAppUsesAreWarnings() throws {
        let s = try Fixtures.load("info-fills.yaml", buildSettings: ["PRODUCT_BUNDLE_IDENTIFIER": "com.contoso.mail"])
        #expect(s.warnings.isEmpty, "\(s.warnings.map(\.description))")
        #expect(s.apps[0].descriptor.keychainAccessGroups == ["$(AppIdentifierPrefix)com.contoso.mail.entitled"])
    }

    @Test func unresolvedBundleIdentifierFromInfoPlistIsAnError() {
        #expect(Fixtures.error("info-fills.yaml")?.description
            == #"info-fills.yaml:4:11: apps[0].info: CFBundleIdentifier in example/apps/mail/Info.plist is "$(PRODUCT_BUNDLE_IDENTIFIER)", an unresolved build setting; set bundle: or pass the build setting"#)
    }
}

@Suite struct AccountIdentityTests {
    @Test func derivedOIDIsStableUUIDShapedAndIgnoresCase() {
        let oid = ScenarioAccount.derivedOID(forUPN: "bob@outlook.com")
        #expect(oid == ScenarioAccount.derivedOID(forUPN: "Bob@Outlook.COM"))
        #expect(oid != ScenarioAccount.derivedOID(forUPN: "alice@contoso.com"))
        #expect(UUID(uuidString: oid) != nil)
        let groups = oid.split(separator: "-").map(\.count)
        #expect(groups == [8, 4, 4, 4, 12])
        #expect(oid.split(separator: "-")[2].first == "8", "RFC 9562 version 8")
        #expect(oid == oid.lowercased())
    }

    @Test func derivedOIDIsTheSameOnEveryRun() {
        // Pinned: a change would silently rename every account without an oid.
        #expect(ScenarioAccount.derivedOID(forUPN: "alice@contoso.com") == ScenarioAccount.derivedOID(forUPN: "alice@contoso.com"))
        #expect(ScenarioAccount.derivedOID(forUPN: "alice@contoso.com") == Self.pinnedAlice)
    }

    static let pinnedAlice = "fe887650-4f47-8e73-a011-72ac3ec0efe9"
}

@Suite struct ProgramTests {
    @Test func pluginFolderRunFileIsItsProgramAndAppsMayNameOne() throws {
        let s = try Fixtures.load("plugin-programs.yaml")
        let run = Fixtures.url("plugins/with-run/run").standardizedFileURL
        #expect(s.extensions[0].executable == run)
        #expect(s.apps[0].executable == run)
        #expect(s.apps[0].arguments == ["--verbose"])
        #expect(s.extensions[1].executable == Fixtures.url("plugins/with-json/bin/ext").standardizedFileURL)
    }

    @Test func declaredProgramThatIsMissingIsAnError() {
        #expect(Fixtures.error("errors/missing-program.yaml")?.description
            == #"errors/missing-program.yaml:6:13: extensions[0].plugin: plugin.json: executable names "bin/missing", which is not an executable file in the plugin folder; build it, chmod +x it, or remove the key to use the built-in runtime"#)
    }
}
