import Foundation
import MAMDeclarations
import MAMDocument
import MAMModel
import MAMPolicy
@testable import MAMScenario
import MAMWire
import Testing

/// `verbs.yaml` uses every v1 verb with its arguments and every expectation form.
@Suite struct VerbTests {
    let scenario: Scenario
    let alice: Account
    let bob: Account
    let unmanaged = Account(upn: "")

    init() throws {
        scenario = try Fixtures.load("verbs.yaml")
        alice = try #require(scenario.account(named: "alice@contoso.com"))
        bob = try #require(scenario.account(named: "bob@outlook.com"))
    }

    @Test func fixturesCoverEveryVerb() throws {
        let v11 = try Fixtures.load("verbs-v1.1.yaml")
        // v1.2, v1.3 and v1.4 verbs are covered by their registry examples (VerbRegistryTests) and scenarios.
        #expect(Set(scenario.steps.map(\.verb)).union(v11.steps.map(\.verb)) == Set(Verb.allCases.filter { !["v1.2", "v1.3", "v1.4"].contains($0.since) }))
    }

    @Test func theLifecycleVerbsAndKeysOfV11Parse() throws {
        let v11 = try Fixtures.load("verbs-v1.1.yaml")
        let alice = try #require(v11.account(named: "alice@contoso.com"))
        let bob = try #require(v11.account(named: "bob@outlook.com"))
        var windowState = StateExpectation(uiIdentity: alice)
        windowState.window = "side"
        let expected: [StepArguments] = [
            .pause(app: "mail"), .resume(app: "mail"), .setNetwork(online: true),
            .setAllowedAccounts(accounts: [alice.upn, alice.oid]), .setAllowedAccounts(accounts: nil),
            .writeFile(app: "mail", path: "Documents/a.txt", data: Array("hi".utf8), as: alice),
            .writeFile(app: "mail", path: "group:group.x/b.bin", data: Array("Hello".utf8), as: nil),
            .readFile(app: "mail", path: "Documents/a.txt"),
            .protect(app: "mail", path: "Documents/a.txt", account: Account(upn: "")),
            .unprotect(app: "mail", path: "Documents/a.txt"),
            .protectionInfo(app: "mail", path: "Documents/a.txt"),
            .protectionInfo(app: "mail", path: "Documents/b.txt"),
            .expectState(app: "mail", StateExpectation(encrypted: ["Documents/a.txt"], absent: ["Documents/c.txt"])),
            .openURL(from: "mail", url: "skype:bob"),
            .expectState(app: "mail", StateExpectation(notifications: ["policyChanged", "wipe"])),
            .copy(app: "mail", text: "t", as: bob, window: "side"),
            .paste(app: "mail", as: nil, window: "side"),
            .print(app: "mail", window: "side"),
            .share(from: "mail", to: "mail", item: ScenarioItem(type: "public.plain-text", content: .text("x")), as: nil, pin: "1234", window: "side"),
            .expectState(app: "mail", windowState),
            .appConfig(app: "mail", account: nil, key: "serverUrl", type: .string, query: .value),
            .appConfig(app: "mail", account: bob, key: "limit", type: .number, query: .all),
            .appConfig(app: "mail", account: nil, key: "flag", type: .bool, query: .or),
            .setAppConfig(name: "sales", settings: [KeyValuePair(name: "serverUrl", value: "https://x")]),
            .setAppConfig(name: "tenant", settings: nil),
            .screenCapture(app: "mail", window: "side"),
        ]
        #expect(Array(v11.steps.map(\.arguments).prefix(expected.count)) == expected)
        let ddm = Array(v11.steps.dropFirst(expected.count).dropLast(4).map(\.arguments))
        #expect(Array(ddm.prefix(5)) == [
            .managedConfig(app: "mail", key: nil), .managedConfig(app: "mail", key: "resourceURL"),
            .managedSecret(app: "mail", kind: .identity, id: "device"), .managedSecret(app: "mail", kind: .password, id: "nope"),
            .managedSecretIds(app: "mail", kind: .certificate),
        ])
        guard let apply = ddm[5].as(ApplyDeclarationsStep.self) else { Issue.record("step \(expected.count + 5) is \(ddm[5])"); return }
        let (files, entries) = (apply.files, apply.entries)
        #expect(files == ["../../../scenarios/conformance/fixtures/ddm/landmarks-update"] && entries.map(\.declaration.identifier) == ["landmarks-config"])
        #expect(Array(ddm.suffix(2)) == [.removeDeclaration(identifier: "landmarks-app"),
                                         .signWithIdentity(app: "mail", id: "device", data: Array("challenge".utf8))])
        #expect(v11.declarations.count == 8)
        let ca = Array(v11.steps.suffix(4))
        #expect(ca.map(\.arguments) == [
            .acquireToken(app: "mail", account: alice, resource: "Office365"),
            .remediate(app: "mail", account: alice, silent: true, userCancels: true),
            .setConditionalAccess(policy: "ca", state: .enabled),
            .expectState(app: "mail", { var e = StateExpectation(); e.diagnostics = ["remediation-loop"]; return e }()),
        ])
        #expect(ca.map(\.expect) == [.token, .compliance(.userCancelled), nil, nil])
        var expectedCA = ConditionalAccessPolicy(name: "ca", state: .enabledForReportingButNotEnforced, includeUsers: [alice.upn, alice.oid], requiresAll: true)
        expectedCA.tenantDomains = ["contoso.com"]   // the organization's: alice's domain (RULES §10)
        #expect(v11.conditionalAccess == [expectedCA])
        #expect(v11.device.authenticator && v11.apps.first?.descriptor.clientCapabilities == ["protapp", "cp1"])
        let outcomes: [ExpectedOutcome?] = [.ok, .blocked(.conditionalLaunch), nil, .ok, nil, .ok, nil, .text("hi"), nil, nil,
                                            .owner(alice), ExpectedOutcome.none, nil, .blocked(.notExempt), nil,
                                            nil, nil, nil, nil, nil,
                                            .configValue("https://sales.contoso.com", conflict: false), .configValues(["10"], conflict: nil),
                                            ExpectedOutcome.none, nil, nil, .blocked(.screenCaptureBlocked)]
        #expect(Array(v11.steps.map(\.expect).prefix(outcomes.count)) == outcomes)
        #expect(Array(v11.steps.map(\.expect).dropFirst(outcomes.count).dropLast(4)) == [
            .config(#"{"a":1,"b":[true,"x"]}"#), .configValue("https://x", conflict: nil),
            .certificate(subject: "CN=x", sha256: "ab", identity: true), .errorCode(.invalidIdentifier), .ids(["a", "b"]),
            nil, nil, .signatureVerified,
        ])
        #expect(!v11.device.online)
        let mail = try #require(v11.apps.first)
        #expect(mail.descriptor.shortVersion == "4.1.0")
        #expect(mail.descriptor.sdkVersion == "20.1")
        #expect(!mail.descriptor.restoresState)
        #expect(v11.appConfigs.map(\.name) == ["sales", "tenant"])
        #expect(v11.appConfigs[0].apps == [BundleID("com.contoso.mail"), BundleID("com.contoso.other")])
        #expect(v11.appConfigs[0].accounts == [alice.upn, alice.oid])
        #expect(v11.appConfigs[0].settings == [KeyValuePair(name: "serverUrl", value: "https://sales.contoso.com"),
                                               KeyValuePair(name: "limit", value: "10")])
        #expect(v11.appConfigs[1].isDefault && v11.appConfigs[1].accounts == nil)
    }

    @Test func everyVerbParsesWithItsTypedArguments() throws {
        let text = ScenarioItem(type: "public.plain-text", content: .text("hi"))
        let data = ScenarioItem(type: "public.data", content: .data(Array("Hello".utf8)))
        let pdf = ScenarioItem(type: "com.adobe.pdf", content: .file(Fixtures.url("example/fixtures/q3.pdf").standardizedFileURL))
        let expected: [StepArguments] = [
            .launch(app: "mail"),
            .kill(app: "notes"),
            .signIn(app: "mail", account: alice),
            .signOut(app: "mail", account: bob),
            .switchIdentity(app: "mail", account: unmanaged, window: "main", pin: "1234"),
            .share(from: "mail", to: "word-open-in", item: text, as: alice),
            .shareTargets(from: "mail", item: data),
            .copy(app: "mail", text: "secret"),
            .paste(app: "notes", as: unmanaged),
            .save(app: "mail", location: .oneDriveForBusiness, account: alice),
            .open(app: "mail", location: .camera, account: nil, as: bob),
            .keychainSet(app: "mail", group: "com.contoso.mail", key: "token", value: "abc"),
            .keychainGet(app: "word-open-in", group: "com.contoso.mail", key: "token", value: nil),
            .print(app: "mail"),
            .notify(app: "mail", account: alice, text: "New mail"),
            .wipe(app: "mail", account: alice),
            .setPolicy(account: alice, policy: nil),
            .advanceClock(by: ISODuration("PT13H")!),
            .expectState(app: "mail", StateExpectation(
                signedIn: [alice, bob], uiIdentity: unmanaged, processIdentity: alice,
                files: ["Documents/q3.pdf": alice, "Documents/notes.txt": unmanaged])),
            .switchIdentity(app: "mail", account: alice, window: nil, pin: nil),
            .switchIdentity(app: "mail", account: alice, window: nil, pin: nil),
            .switchIdentity(app: "mail", account: alice, window: nil, pin: nil),
            .share(from: "mail", to: "notes", item: pdf, as: nil),
            .setPolicy(account: bob, policy: "strict"),
            .keychainGet(app: "mail", group: "g", key: "k", value: nil),
            .paste(app: "mail", as: nil),
        ]
        #expect(scenario.steps.count == expected.count)
        for (step, args) in zip(scenario.steps, expected) {
            #expect(step.arguments == args, "step \(step.index) at line \(step.line)")
        }
        #expect(scenario.steps.map(\.index) == Array(0..<expected.count))
    }

    @Test func everyExpectationFormParses() {
        let expected: [ExpectedOutcome?] = [
            .ok, nil, .blocked(.accountNotAllowed), .ok, .failedBecause(.conditionalLaunch),
            .failedBecause(.notActivated), .targets(["notes", "word-open-in"]), nil, .pasted("secret"),
            .blocked(.saveLocation), .allowed, .error(-34018), .value("abc"), .blocked(.printBlocked),
            .shown("New mail"), .ok, .ok, nil, .ok, .canceled, .notAllowed, .failed, .delivered, nil,
            .error(-25300), .blocked(.clipboardPolicy),
        ]
        #expect(scenario.steps.map(\.expect) == expected)
    }

    /// `acquireToken` checks the claims named (a list claim as a set) and a refusal's
    /// homeAccountId (seed 002), beside the bare `{token: ok}` and `{blocked: REASON}`.
    @Test func tokenClaimsAndTheHomeAccountIdAreCheckable() throws {
        let s = try ScenarioLoader.load(text: """
            accounts: [{upn: alice@contoso.com}]
            apps: [{id: mail, bundle: com.contoso.mail}]
            steps:
              - acquireToken: {app: mail, account: alice@contoso.com}
                expect: {token: {xms_cc: [protapp, cp1], tid: contoso.onmicrosoft.com}}
              - acquireToken: {app: mail, account: alice@contoso.com}
                expect: {blocked: protection-policy-required, homeAccountId: 3ec2c00f.contoso}
            """, file: URL(fileURLWithPath: "t.yaml"))
        let claims = try #require(s.steps[0].expect)
        #expect(claims == .tokenClaims(["xms_cc": ["protapp", "cp1"], "tid": ["contoso.onmicrosoft.com"]]))
        let issued = Observed.token(claims: ["xms_cc": ["cp1", "protapp"], "tid": ["contoso.onmicrosoft.com"], "oid": ["x"]])
        #expect(issued.satisfies(claims))
        #expect(issued.satisfies(.token))
        #expect(!Observed.token(claims: ["xms_cc": ["protapp"], "tid": ["contoso.onmicrosoft.com"]]).satisfies(claims))
        let home = try #require(s.steps[1].expect)
        #expect(home == .blockedHome(.protectionPolicyRequired, homeAccountID: "3ec2c00f.contoso"))
        #expect(Observed.blockedHome(.protectionPolicyRequired, homeAccountID: "3EC2C00F.contoso").satisfies(home))
        #expect(!Observed.blockedHome(.protectionPolicyRequired, homeAccountID: "other.contoso").satisfies(home))
        #expect(Observed.blockedHome(.protectionPolicyRequired, homeAccountID: "x").satisfies(.blocked(.protectionPolicyRequired)))
        #expect(AcquireTokenStep.claims(of: "e30.eyJ4bXNfY2MiOlsicHJvdGFwcCJdLCJleHAiOjE3fQ.sig") == ["xms_cc": ["protapp"], "exp": ["17"]])
        #expect(AcquireTokenStep.claims(of: "not a token").isEmpty)
    }

    /// `openURL` says which app a link reached: an app of the fleet, or `ios` (outside it).
    @Test func theAppALinkReachedIsCheckable() throws {
        let s = try ScenarioLoader.load(text: """
            apps: [{id: mail, bundle: com.contoso.mail}, {id: edge, bundle: com.microsoft.msedge}]
            steps:
              - openURL: {from: mail, url: "https://contoso.com"}
                expect: {openedIn: edge}
              - openURL: {from: mail, url: "https://contoso.com"}
                expect: {openedIn: ios}
            """, file: URL(fileURLWithPath: "o.yaml"))
        #expect(s.steps.map(\.expect) == [.openedIn("edge"), .openedIn(nil)])
        #expect(Observed.openedIn("edge").satisfies(.openedIn("edge")))
        #expect(!Observed.openedIn(nil).satisfies(.openedIn("edge")))
        #expect(Observed.openedIn(nil).satisfies(.delivered))
        #expect(throws: ScenarioError.self) {
            try ScenarioLoader.load(text: """
                apps: [{id: mail, bundle: com.contoso.mail}]
                steps:
                  - openURL: {from: mail, url: "https://contoso.com"}
                    expect: {openedIn: safari}
                """, file: URL(fileURLWithPath: "o.yaml"))
        }
    }

    /// The remediation queue's outcomes: how a call was taken, whether one is in progress, and
    /// what the delegate was told in order (order matters, accounts match by UPN or OID).
    @Test func remediationQueueOutcomesParseAndMatch() throws {
        let s = try ScenarioLoader.load(text: """
            accounts: [{upn: alice@contoso.com, oid: 11111111-1111-1111-1111-111111111111}, {upn: bob@outlook.com}]
            apps: [{id: mail, bundle: com.contoso.mail}]
            steps:
              - remediate: {app: mail, account: alice@contoso.com, wait: false}
                expect: {remediation: queued}
              - remediationInProgress: {app: mail, account: alice@contoso.com}
                expect: {inProgress: false}
              - finishRemediation: {app: mail}
                expect: {statuses: [{account: 11111111-1111-1111-1111-111111111111, compliance: compliant}, {account: bob@outlook.com, compliance: userCancelled}]}
            """, file: URL(fileURLWithPath: "r.yaml"))
        guard case .statuses(let told)? = s.steps[2].expect else { Issue.record("\(String(describing: s.steps[2].expect))"); return }
        #expect(s.steps[0].expect == .remediation("queued") && s.steps[1].expect == .inProgress(false))
        let alice = told[0].account, bob = told[1].account
        #expect(Observed.statuses([ToldStatus(account: alice, status: .compliant), ToldStatus(account: bob, status: .userCancelled)]).satisfies(.statuses(told)))
        #expect(!Observed.statuses([ToldStatus(account: bob, status: .userCancelled), ToldStatus(account: alice, status: .compliant)]).satisfies(.statuses(told)))
        #expect(!Observed.statuses([ToldStatus(account: alice, status: .compliant)]).satisfies(.statuses(told)))
        for bad in ["{remediation: later}", "{statuses: [{account: alice@contoso.com}]}", "{inProgress: maybe}"] {
            #expect(throws: ScenarioError.self, "\(bad)") {
                try ScenarioLoader.load(text: """
                    accounts: [{upn: alice@contoso.com}]
                    apps: [{id: mail, bundle: com.contoso.mail}]
                    steps:
                      - remediate: {app: mail, account: alice@contoso.com, wait: false}
                        expect: \(bad)
                    """, file: URL(fileURLWithPath: "r.yaml"))
            }
        }
    }

    /// `apps[].delegate` (v1.2): how the app's delegate answers the SDK; a word it does not
    /// know is named with the ones it takes.
    @Test func anAppsDelegateAnswersAreRead() throws {
        let s = try ScenarioLoader.load(text: """
            apps:
              - {id: a, bundle: com.contoso.a, delegate: {identitySwitch: refuse, wipe: app, restart: app, addAccount: refuse}}
              - {id: b, bundle: com.contoso.b, delegate: {identitySwitch: accept}}
              - {id: c, bundle: com.contoso.c}
            steps: []
            """, file: URL(fileURLWithPath: "d.yaml"))
        #expect(s.apps.map(\.delegate) == [DelegateAnswers(refusesIdentitySwitch: true, wipesDataItself: true, restartsItself: true, refusesAddAccount: true), DelegateAnswers(), DelegateAnswers()])
        let error = try #require(throws: ScenarioError.self) {
            try ScenarioLoader.load(text: """
                apps: [{id: a, bundle: com.contoso.a, delegate: {wipe: later}}]
                steps: []
                """, file: URL(fileURLWithPath: "d.yaml"))
        }
        #expect(error.description.contains("apps[0].delegate.wipe: wipe is one of sdk, app, not \"later\""), "\(error)")
    }

    @Test func stepNamesAndLinesAreKept() {
        #expect(scenario.steps[1].name == "stop notes")
        #expect(scenario.steps[0].name == nil)
        #expect(scenario.steps[0].line == 22)
        #expect(scenario.steps[18].line == 56)
    }

    @Test func accountsMatchByUPNOrOIDInAnyCase() {
        // Step 2 names ALICE@contoso.com, step 3 Bob by OID; Bob was declared as Bob@Outlook.com.
        #expect(scenario.steps[2].arguments == .signIn(app: "mail", account: alice))
        #expect(scenario.steps[3].arguments == .signOut(app: "mail", account: bob))
        #expect(bob.upn == "Bob@Outlook.com")
    }

    @Test func jsonScenarioLoadsLikeYAML() throws {
        let s = try Fixtures.load("json/ok.json")
        #expect(s.name == "JSON scenario")
        #expect(s.policies["strict"]?.allowedDataStorageLocations == [.sharePoint])
        let alice = try #require(s.account(named: "alice@contoso.com"))
        #expect(s.steps.map(\.arguments) == [.save(app: "mail", location: .sharePoint, account: alice)])
        #expect(s.steps.map(\.expect) == [.allowed])
    }
}
