import Foundation
import MAMDocument
import MAMModel
import MAMWire
import Testing
@testable import MAMScenario

/// The contract's v1.2 names (the scenario contract: "where a project chooses other
/// names, it keeps these as aliases") load, and mean what our names mean.
@Suite("Contract aliases (SCENARIOS v1.2)")
struct ContractAliasTests {
    static let head = """
        accounts: [{upn: alice@contoso.com, policy: p}, {upn: bob@outlook.com}]
        policies: {p: {pinRequired: false}}
        apps:
          - {id: mail, bundle: com.contoso.mail, multiIdentity: true, keychainGroups: [com.contoso.mail, com.microsoft.intune.mam]}
        steps:

        """

    func load(_ steps: String) throws -> Scenario {
        try ScenarioLoader.load(text: Self.head + steps, file: Fixtures.url("aliases.yaml"))
    }

    /// Each v1.2 step, and the step it is read as.
    @Test(arguments: [
        ("- setAuthenticator: {installed: true}", "- setDevice: {authenticator: true}"),
        ("- setAppManaged: {app: mail, managed: false}", "- manageApp: {app: mail, managed: false}"),
        ("- setOSVersion: {version: \"17.0\"}", "- setDevice: {osVersion: \"17.0\"}"),
        ("- awaitCompliance: {app: mail}\n  expect: {statuses: [{account: alice@contoso.com, status: compliant}]}",
         "- finishRemediation: {app: mail}\n  expect: {statuses: [{account: alice@contoso.com, compliance: compliant}]}"),
        ("- switchIdentity: {app: mail, account: alice@contoso.com, accounts: [alice@contoso.com, bob@outlook.com]}",
         "- showAccounts: {app: mail, accounts: [alice@contoso.com, bob@outlook.com]}"),
        ("- switchIdentity: {app: mail, account: alice@contoso.com, mainThreadIdentity: alice@contoso.com}",
         "- switchIdentity: {app: mail, account: alice@contoso.com, mainThread: alice@contoso.com}"),
        ("- managedConfig: {app: mail, source: legacy}", "- managedConfig: {app: mail, legacy: true}"),
        ("- appConfig: {app: mail, query: fullData}\n  expect: {data: [{serverUrl: x}]}",
         "- appConfigData: {app: mail}\n  expect: {fullData: [{serverUrl: x}]}"),
        ("- canReceive: {app: mail, as: bob@outlook.com, item: {type: public.plain-text, text: q, owner: alice@contoso.com}}",
         "- canReceive: {app: mail, from: mail, account: bob@outlook.com, owner: alice@contoso.com}"),
        ("- canReceive: {app: mail, file: Documents/q3.txt}", "- canReceive: {app: mail, from: mail, path: Documents/q3.txt}"),
        ("- acquireToken: {app: mail, account: alice@contoso.com}\n  expect: {claims: {xms_cc: [protapp]}}",
         "- acquireToken: {app: mail, account: alice@contoso.com}\n  expect: {token: {xms_cc: [protapp]}}"),
        ("- openURL: {from: mail, url: \"https://contoso.com\"}\n  expect: {delivered: ios}",
         "- openURL: {from: mail, url: \"https://contoso.com\"}\n  expect: {openedIn: ios}"),
        ("- expectState: {app: mail, notifications: [blockAccountId, addIdentity]}",
         "- expectState: {app: mail, notifications: [blockAccount, addIdentity]}"),
    ])
    func aContractNameIsReadAsOurs(contract: String, ours: String) throws {
        let a = try load(contract), b = try load(ours)
        #expect(a.steps.map(\.arguments) == b.steps.map(\.arguments), "\(contract)")
        #expect(a.steps.map(\.expect) == b.steps.map(\.expect), "\(contract)")
    }

    /// The app keys of v1.2 are the delegate's answers; saying one twice is an error.
    @Test func appKeysAreTheDelegatesAnswers() throws {
        let s = try ScenarioLoader.load(text: """
            apps:
              - {id: a, bundle: com.contoso.a, acceptsIdentitySwitch: false, wipeReturns: true, restartsItself: true}
              - {id: b, bundle: com.contoso.b, delegate: {identitySwitch: refuse, wipe: app, restart: app}}
            """, file: Fixtures.url("aliases.yaml"))
        #expect(s.apps[0].delegate == s.apps[1].delegate && s.apps[0].delegate.refusesIdentitySwitch && s.apps[0].delegate.wipesDataItself)
        #expect(throws: ScenarioError.self) {
            try ScenarioLoader.load(text: "apps: [{id: a, bundle: com.contoso.a, restartsItself: true, delegate: {restart: sdk}}]",
                                    file: Fixtures.url("aliases.yaml"))
        }
    }

    /// `setAccountDisabled` (v1.2) is a verb of its own.
    @Test func setAccountDisabledLoads() throws {
        let s = try load("- setAccountDisabled: {account: alice@contoso.com, disabled: true}")
        #expect(s.steps.first?.verb.rawValue == "setAccountDisabled")
    }
}
