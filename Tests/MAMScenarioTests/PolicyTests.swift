import Foundation
import MAMDocument
import MAMModel
import MAMPolicy
import MAMScenario
import Testing

/// `policies:` inline (Graph property names) and from files, with the `apps:` override.
@Suite struct PolicyTests {
    let scenario: Scenario

    init() throws {
        scenario = try Fixtures.load("example/fleet.yaml")
    }

    @Test func inlineGraphPropertiesSetThePolicy() throws {
        let strict = try #require(scenario.policies["strict"])
        #expect(strict.allowedOutboundDataTransferDestinations == .managedApps)
        #expect(strict.allowedInboundDataTransferSources == .managedApps)
        #expect(strict.saveAsBlocked)
        #expect(strict.allowedDataStorageLocations == [.oneDriveForBusiness])
        #expect(strict.apps == ["com.contoso.mail", "com.contoso.word"])
        #expect(strict.displayName == "strict", "an unnamed policy takes its scenario name")
        // Untouched properties keep Intune's defaults.
        #expect(!strict.printBlocked)
        #expect(strict.minimumPinLength == 4)
    }

    @Test func fileImportsTheGraphDocument() throws {
        let level3 = try #require(scenario.policies["level3"])
        #expect(level3.displayName == "iOS/iPadOS Enterprise High Data Protection v1.5")
        #expect(level3.saveAsBlocked && level3.printBlocked && level3.dataBackupBlocked)
        #expect(level3.minimumPinLength == 6)
        #expect(level3.allowedOutboundClipboardSharingLevel == .managedAppsWithPasteIn)
        #expect(level3.allowedDataStorageLocations == [.oneDriveForBusiness, .sharePoint])
        #expect(level3.periodBeforePinReset == ISODuration("P365D")!)
        #expect(level3.minimumRequiredOsVersion == Version("14.8"))
    }

    @Test func appsKeyOverridesTheDocumentsTargets() throws {
        #expect(scenario.policies["level3"]?.apps == ["com.contoso.mail"])
    }

    @Test func absentAppsTargetsEverySDKApp() throws {
        let s = try ScenarioLoader.load(text: """
            policies:
              open: {printBlocked: true}
              level3: {file: example/policies/level-3.json}
            accounts: [{upn: a@contoso.com, policy: open}]
            apps: [{id: mail, bundle: com.contoso.mail}]
            """, file: Fixtures.url("inline.yaml"))
        #expect(s.policies["open"]?.apps == [])
        #expect(s.policies["level3"]?.apps == [], "the ICF document has no apps list")
        #expect(s.fleet.isPolicyManaged("com.contoso.mail", for: s.account(named: "a@contoso.com")))
    }

    /// Microsoft's level 3 template targets Microsoft's core apps (`allCoreMicrosoftApps`):
    /// without an `apps:` list a line-of-business fleet is untargeted, and the loader says so.
    @Test func aPolicyTargetingNoneOfTheFleetIsAWarning() throws {
        let s = try ScenarioLoader.load(text: """
            policies:
              level3: {file: example/policies/level-3.json}
              listed: {file: example/policies/level-3.json, apps: [com.contoso.mail]}
            accounts: [{upn: a@contoso.com, policy: level3}]
            apps:
              - {id: mail, bundle: com.contoso.mail}
              - {id: outlook, bundle: com.microsoft.Office.Outlook}
            """, file: Fixtures.url("inline.yaml"))
        #expect(s.policies["level3"]?.appGroupType == .allCoreMicrosoftApps)
        #expect(!s.fleet.isPolicyManaged("com.contoso.mail", for: s.account(named: "a@contoso.com")))
        #expect(s.fleet.isPolicyManaged("com.microsoft.Office.Outlook", for: s.account(named: "a@contoso.com")))
        #expect(s.warnings.isEmpty, "Outlook is targeted: \(s.warnings)")
        let lob = try ScenarioLoader.load(text: """
            policies:
              level3: {file: example/policies/level-3.json}
            accounts: [{upn: a@contoso.com, policy: level3}]
            apps: [{id: mail, bundle: com.contoso.mail}]
            """, file: Fixtures.url("inline.yaml"))
        let warning = try #require(lob.warnings.first { $0.description.contains("targets none of this scenario's SDK apps") })
        #expect(warning.description.contains("policies.level3") && warning.description.contains("allCoreMicrosoftApps"), "\(warning)")
    }

    /// RULES §1: a Graph document with `"apps": []` selects no app; one without `apps` (read
    /// without $expand=apps) targets every SDK app and the loader warns at its `file:`; an
    /// `apps:` beside `file:` says it, with no warning; an inline policy without `apps:` is the
    /// short form (the whole fleet, no warning).
    @Test func aGraphDocumentsAppListIsReadAsWritten() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("apps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try #"{"appGroupType": "selectedPublicApps", "apps": []}"#.write(to: dir.appendingPathComponent("none.json"), atomically: true, encoding: .utf8)
        try #"{"appGroupType": "selectedPublicApps"}"#.write(to: dir.appendingPathComponent("unsaid.json"), atomically: true, encoding: .utf8)
        let s = try ScenarioLoader.load(text: """
            policies:
              none: {file: none.json}
              unsaid: {file: unsaid.json}
              said: {file: unsaid.json, apps: [com.contoso.mail]}
              inline: {pinRequired: false}
            accounts: [{upn: a@contoso.com, policy: none}, {upn: b@contoso.com, policy: unsaid}]
            apps: [{id: mail, bundle: com.contoso.mail}]
            """, file: dir.appendingPathComponent("s.yaml"))
        let fleet = s.fleet
        #expect(!fleet.isPolicyManaged("com.contoso.mail", for: s.account(named: "a@contoso.com")))
        #expect(fleet.isPolicyManaged("com.contoso.mail", for: s.account(named: "b@contoso.com")))
        #expect(fleet.apps(targetedBy: try #require(s.policies["inline"])) == ["com.contoso.mail"])
        let warnings = s.warnings.map(\.description)
        #expect(warnings.contains { $0.contains("policies.unsaid.file") && $0.contains("$expand=apps") }, "\(warnings)")
        #expect(!warnings.contains { $0.contains("policies.said") || $0.contains("policies.inline") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("policies.none") && $0.contains("apps: [], none selected") }, "\(warnings)")
    }

    @Test func inlineYAMLTypesReachTheImporterAsJSONTypes() throws {
        let s = try ScenarioLoader.load(text: """
            policies:
              p:
                minimumPinLength: 8
                periodOfflineBeforeAccessCheck: PT2H
                exemptedAppProtocols: [{name: Default, value: "tel;sms"}]
                minimumRequiredOsVersion: "17.0"
                "@odata.type": "#microsoft.graph.iosManagedAppProtection"
            """, file: URL(fileURLWithPath: "p.yaml"))
        let p = try #require(s.policies["p"])
        #expect(p.minimumPinLength == 8)
        #expect(p.periodOfflineBeforeAccessCheck == ISODuration("PT2H")!)
        #expect(p.exemptSchemeKeys == ["tel", "sms"])
        #expect(p.minimumRequiredOsVersion == Version("17.0"))
    }

    @Test func policyImportWarningsAreKept() throws {
        let s = try ScenarioLoader.load(text: """
            policies:
              p: {minimumRequiredOsVersion: "Minimum Required Os Version value"}
            """, file: URL(fileURLWithPath: "w.yaml"))
        #expect(s.warnings.map(\.description) == [
            #"w.yaml:2:33: policies.p.minimumRequiredOsVersion: property "minimumRequiredOsVersion" is not a version number ("Minimum Required Os Version value"); the check is not enforced"#,
        ])
    }

    @Test func setPolicyStepNamesAKnownPolicy() {
        do {
            _ = try ScenarioLoader.load(text: """
                policies: {strict: {saveAsBlocked: true}}
                accounts: [{upn: a@contoso.com}]
                steps:
                  - setPolicy: {account: a@contoso.com, policy: strikt}
                """, file: URL(fileURLWithPath: "s.yaml"))
            Issue.record("an unknown policy must not load")
        } catch {
            #expect(error.description == #"s.yaml:4:49: steps[0].setPolicy.policy: no policy named "strikt"; did you mean "strict"?"#)
        }
    }

    /// A Graph conditional access file that names groups: its warning that groups are judged only
    /// for accounts that declare them is dropped once an account declares its groups (v1.5),
    /// chosen by the warning's kind, not its words; every other warning of the file stays.
    @Test func theGroupsWarningGoesOnceAccountsDeclareGroups() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ca-groups-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(#"""
            {"@odata.type": "#microsoft.graph.conditionalAccessPolicy", "displayName": "Sales", "state": "enabled",
             "conditions": {"users": {"includeUsers": [], "includeGroups": ["g-sales"],
                                      "includeGuestsOrExternalUsers": {"guestOrExternalUserTypes": "b2bCollaborationGuest"}},
                            "applications": {"includeApplications": ["All"]}},
             "grantControls": {"operator": "OR", "builtInControls": ["compliantApplication"]}}
            """#.utf8).write(to: dir.appendingPathComponent("ca.json"))
        func warnings(_ account: String) throws -> [String] {
            try ScenarioLoader.load(text: """
                accounts: [\(account)]
                conditionalAccess: [{file: ca.json}]
                apps: [{id: mail, bundle: com.contoso.mail}]
                steps: [{launch: {app: mail}}]
                """, file: dir.appendingPathComponent("s.yaml")).warnings.map(\.message)
        }
        let undeclared = try warnings("{upn: a@contoso.com}")
        #expect(undeclared.contains { $0.contains("conditions.users.includeGroups is judged for the accounts that declare") }, "\(undeclared)")
        #expect(undeclared.contains { $0.contains("includeGuestsOrExternalUsers") }, "\(undeclared)")
        let declared = try warnings("{upn: a@contoso.com, groups: [g-sales]}")
        #expect(!declared.contains { $0.contains("conditions.users.includeGroups") } && declared.contains { $0.contains("includeGuestsOrExternalUsers") }, "\(declared)")
    }
}
