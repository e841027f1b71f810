import Foundation
import MAMDocument
import MAMScenario
import MAMModel
import Testing

/// Bad files are refused before anything runs, with file:line:column, the key path and a
/// sentence saying what to do.
@Suite struct ErrorTests {
    @Test func typosInKeysAndVerbsNameTheLineAndSuggestTheKey() throws {
        let error = try #require(Fixtures.error("errors/typo-keys.yaml"))
        #expect(error.description == """
            errors/typo-keys.yaml:5:5: apps[0].multiIdentiy: unknown key "multiIdentiy" in an app; did you mean "multiIdentity"?
            errors/typo-keys.yaml:10:5: steps[1].shrae: unknown verb "shrae"; did you mean "share"?
            """)
        #expect(error.problems.count == 2)
        #expect((error.line, error.column, error.keyPath) == (5, 5, "apps[0].multiIdentiy"))
    }

    @Test(arguments: [
        ("errors/unknown-account.yaml",
         #"errors/unknown-account.yaml:10:16: steps[1].signIn.account: no account with UPN or OID "alise@contoso.com"; did you mean "alice@contoso.com"?"#),
        ("errors/unknown-app.yaml",
         #"errors/unknown-app.yaml:11:13: steps[3].share.from: no app or extension with id "mial"; did you mean "mail"? (the ids are: mail, notes)"#),
        ("errors/malformed-plist.yaml",
         "errors/malformed-plist.yaml:4:11: apps[0].info: ../malformed/Info.plist: is not a well-formed property list (Encountered unexpected EOF); check that every <dict>, <array> and <string> is closed"),
        ("errors/malformed-plugin.yaml",
         "errors/malformed-plugin.yaml:6:13: extensions[0].plugin: ../malformed/bad-tag-plugin/Info.plist:9: is not a well-formed property list (Close tag on line 9 does not match open tag array); check that every <dict>, <array> and <string> is closed"),
        ("errors/missing-policy-file.yaml",
         #"errors/missing-policy-file.yaml:3:11: policies.level3.file: file "policies/level-3.json" does not exist; paths are relative to the scenario file's folder"#),
        ("errors/wrong-type.yaml",
         #"errors/wrong-type.yaml:4:10: apps[0].sdk: sdk must be true or false, but it is "maybe""#),
        ("errors/bad-reason.yaml",
         #"errors/bad-reason.yaml:8:23: steps[0].expect.blocked: unknown reason code "outbound-polcy"; did you mean "outbound-policy"?"#),
        ("errors/unknown-policy.yaml",
         #"errors/unknown-policy.yaml:5:13: accounts[0].policy: no policy named "stirct"; did you mean "strict"?"#),
        ("errors/inline-policy-type.yaml",
         #"errors/inline-policy-type.yaml:3:20: policies.strict.saveAsBlocked: property "saveAsBlocked" must be true or false, but its value is "yes" (a string); fix the value or remove the property"#),
        ("errors/duplicate-ids.yaml",
         #"errors/duplicate-ids.yaml:4:9: apps[1].id: id "mail" is used twice; every app and extension needs its own id"#),
        ("errors/wrong-outcome.yaml",
         "errors/wrong-outcome.yaml:6:13: steps[0].expect: \"delivered\" is not an outcome of launch; expect one of: ok, {blocked: REASON}, {failed: REASON}"),
        ("errors/keyboard-full-access.yaml",
         #"errors/keyboard-full-access.yaml:4:81: extensions[0].fullAccess: ../plugins/keyboard-closed/Info.plist does not set NSExtension.NSExtensionAttributes.RequestsOpenAccess, so the user cannot grant full access; set it to true, or drop fullAccess"#),
        ("errors/broken-policy-referenced.yaml",
         #"errors/broken-policy-referenced.yaml:6:20: policies.strict.saveAsBlocked: property "saveAsBlocked" must be true or false, but its value is "yes" (a string); fix the value or remove the property"#),
        ("errors/misindented.yaml",
         "errors/misindented.yaml:5:4: not valid YAML or JSON: did not find expected '-' indicator while parsing a block collection (line 5 is indented differently from the lines around it: the keys of one list item line up under the first key after its `- `, and a new item starts with `- ` at the list's indentation)"),
        ("errors/tab-indented.yaml",
         "errors/tab-indented.yaml:3:1: not valid YAML or JSON: found character that cannot start any token while scanning for the next token (line 3 is indented with a tab; YAML indents with spaces only)"),
        ("json/unknown-app.json",
         #"json/unknown-app.json:8:20: steps[1].kill.app: no app or extension with id "mali"; did you mean "mail"? (the ids are: mail)"#),
    ])
    func badFileIsRefusedWithLocatedMessage(file: String, description: String) throws {
        let error = try #require(Fixtures.error(file))
        #expect(error.description == description)
    }

    @Test func errorCarriesTheScenarioFileURL() throws {
        let error = try #require(Fixtures.error("errors/unknown-app.yaml"))
        #expect(error.file.standardizedFileURL == Fixtures.url("errors/unknown-app.yaml").standardizedFileURL)
        #expect(error.message == #"no app or extension with id "mial"; did you mean "mail"? (the ids are: mail, notes)"#)
    }

    @Test func missingFileIsAnErrorWithoutPosition() throws {
        let error = try #require(Fixtures.error("errors/no-such-file.yaml"))
        #expect(error.line == 0)
        #expect(error.description.hasPrefix("errors/no-such-file.yaml: cannot read the scenario file"))
    }

    @Test func yamlSyntaxErrorNamesLineAndColumn() throws {
        do {
            _ = try ScenarioLoader.load(text: "apps:\n  - id: mail\n    bundle: [com.contoso.mail\n", file: URL(fileURLWithPath: "broken.yaml"))
            Issue.record("a syntax error must not load")
        } catch {
            #expect(error.description.hasPrefix("broken.yaml:4:1: not valid YAML or JSON: "), "\(error)")
        }
    }

    @Test(arguments: [
        ("steps:\n  - launch: {}\n", #"x.yaml:2:13: steps[0].launch: launch's arguments needs "app""#),
        ("steps:\n  - launch: {app: a}\n    kill: {app: a}\n", "x.yaml:2:5: steps[0]: a step has one verb, but this one has \"launch\" and \"kill\"; split it into steps"),
        ("nmae: x\n", #"x.yaml:1:1: nmae: unknown key "nmae" in a scenario; did you mean "name"?"#),
        ("device: {osVersion: eighteen}\n", #"x.yaml:1:21: device.osVersion: osVersion must be a dotted version such as "18.4", but it is "eighteen""#),
        ("apps: [{id: a, bundle: b}]\nsteps:\n  - advanceClock: {by: 13h}\n", #"x.yaml:3:24: steps[0].advanceClock.by: by must be a non-negative ISO-8601 duration such as "PT13H" or "P2D", but it is "13h""#),
        ("apps: [{id: a, bundle: b}]\nsteps:\n  - save: {app: a, location: oneDrive}\n", #"x.yaml:3:30: steps[0].save.location: unknown location "oneDrive"; did you mean "oneDriveForBusiness"?"#),
        ("apps: [{id: a, bundle: b}]\nsteps:\n  - signIn: {app: a, account: \"\"}\n", #"x.yaml:3:31: steps[0].signIn.account: account must name an account; "" (unmanaged) is not allowed here"#),
        ("apps: [{id: a, bundle: b}]\nsteps:\n  - share: {from: a, to: a, item: {type: public.data}}\n", "x.yaml:3:35: steps[0].share.item: an item needs one of text:, data: (base64) or file:"),
        ("apps: [{id: a, bundle: b}]\nsteps:\n  - print: {app: a}\n    expect: {blocked: 42}\n", #"x.yaml:4:23: steps[0].expect.blocked: unknown reason code "42"; the codes are those of RULES.md §11 (outbound-policy, inbound-policy, not-exempt, clipboard-policy, save-location, open-location, account-not-allowed, second-managed-account, not-signed-in, keychain-entitlement, app-group-entitlement, not-activated, extension-misconfigured, identity-switch-canceled, identity-switch-not-allowed, conditional-launch, print-blocked, notification-blocked, protection-policy-required, unknown-app, unknown-account, app-not-running, bad-request, timeout, internal, screen-capture-blocked, app-protection-unsupported, broker-required, invalid-identifier, feature-restricted, busy, quota, access-blocked)"#),
        ("apps: [{id: a, bundle: b}]\nsteps:\n  - expectState: {app: a}\n", "x.yaml:3:18: steps[0].expectState: expectState needs at least one of signedIn, uiIdentity, processIdentity, files, received, encrypted, plaintext, absent, notifications, diagnostics, telemetry, enrollment, enrollmentStatuses to check"),
        ("policies:\n  a: {printBlocked: true}\n  a: {}\n", #"x.yaml:2:3: key "a" appears twice in one mapping; keep one"#),
        ("accounts:\n  - upn: a@contoso.com\n  - upn: A@Contoso.com\n", #"x.yaml:3:10: accounts[1].upn: account "A@Contoso.com" is declared twice (same UPN or OID as "a@contoso.com"); keep one"#),
        ("apps:\n  - {id: a, bundle: com.x.a}\n  - {id: b, bundle: com.X.A}\n", #"x.yaml:3:21: apps[1].bundle: bundle id "com.X.A" is already "a"'s; every app and extension needs its own bundle id"#),
        ("apps: [{id: a, bundle: b}]\nextensions:\n  - {id: e, plugin: nowhere, container: a}\n", #"x.yaml:3:21: extensions[0].plugin: folder "nowhere" does not exist; paths are relative to the scenario file's folder"#),
        ("apps: [{id: a, bundle: b}]\nsteps:\n  - expectState: {app: a, received: [{text: x, ownr: \"\"}]}\n", #"x.yaml:3:48: steps[0].expectState.received[0].ownr: unknown key "ownr" in a received entry; did you mean "owner"?"#),
        ("policies:\n  strict: {saveAsBlokced: true}\n", #"x.yaml:2:12: policies.strict.saveAsBlokced: unknown key "saveAsBlokced" in policy "strict"; did you mean "saveAsBlocked"?"#),
    ])
    func invalidDocumentIsRefused(yaml: String, description: String) throws {
        do {
            _ = try ScenarioLoader.load(text: yaml, file: URL(fileURLWithPath: "x.yaml"))
            Issue.record("must not load: \(yaml)")
        } catch {
            #expect(error.description == description)
        }
    }
}

@Suite struct LifecycleKeyErrorTests {
    @Test func aBadNetworkOrVersionNamesTheKeyAndWhatIsExpected() throws {
        let text = """
            device:
              network: offlne
            apps:
              - id: mail
                bundle: com.contoso.mail
                version: "four"
            """
        do {
            _ = try ScenarioLoader.load(text: text, file: URL(fileURLWithPath: "lifecycle.yaml"))
            Issue.record("a bad network and version must not load")
        } catch {
            #expect(error.description.contains(#"lifecycle.yaml:2:12: device.network: network must be online or offline, but it is "offlne""#), "\(error)")
            #expect(error.description.contains(#"lifecycle.yaml:6:14: apps[0].version: version must be a dotted version such as "4.1.0""#), "\(error)")
        }
    }

    @Test func aBadAssetServerNamesTheKeyAndItsTwoValues() throws {
        let text = """
            device:
              assetServer: down
            steps:
              - setDevice: {assetServer: up}
                expect: ok
            """
        do {
            _ = try ScenarioLoader.load(text: text, file: URL(fileURLWithPath: "ddm.yaml"))
            Issue.record("a bad assetServer must not load")
        } catch {
            #expect(error.description.contains(#"ddm.yaml:2:16: device.assetServer: assetServer must be available or failing, but it is "down""#), "\(error)")
            #expect(error.description.contains(#"assetServer must be available or failing, but it is "up""#), "\(error)")
        }
        let good = try ScenarioLoader.load(text: "device: {assetServer: failing}\n", file: URL(fileURLWithPath: "ddm.yaml"))
        #expect(!good.device.assetServerAvailable)
    }

    @Test func anUnknownNotificationNameSuggestsTheKnownOne() throws {
        let text = """
            apps:
              - {id: mail, bundle: com.contoso.mail}
            steps:
              - expectState: {app: mail, notifications: [policyChnged]}
            """
        do {
            _ = try ScenarioLoader.load(text: text, file: URL(fileURLWithPath: "n.yaml"))
            Issue.record("an unknown notification must not load")
        } catch {
            #expect(error.description.contains(#"steps[0].expectState.notifications[0]: unknown notification "policyChnged"; did you mean "policyChanged"?"#), "\(error)")
        }
    }

    @Test func appConfigMistakesNameTheKeyAndTheFix() throws {
        let text = """
            appConfigs:
              - name: sales
              - name: tenant
                settings: {theme: [blue]}
            apps:
              - {id: mail, bundle: com.contoso.mail}
            steps:
              - appConfig: {app: mail, key: k, type: bool, query: max}
              - setAppConfig: {name: tenent, settings: {a: b}}
              - setAppConfig: {name: tenant}
            """
        do {
            _ = try ScenarioLoader.load(text: text, file: URL(fileURLWithPath: "c.yaml"))
            Issue.record("these mistakes must not load")
        } catch {
            let d = error.description
            #expect(d.contains(#"c.yaml:2:5: appConfigs[0]: app configuration "sales" needs file: (a Graph targetedManagedAppConfiguration document) or settings:"#), "\(d)")
            #expect(d.contains(#"appConfigs[1].settings.theme: the value of "theme" must be text, a number or a boolean, but it is a list"#), "\(d)")
            #expect(d.contains(#"steps[0].appConfig.query: query max does not apply to bool values; use one of value, all, any, or, and"#), "\(d)")
            #expect(d.contains(#"steps[1].setAppConfig.name: no app configuration named "tenent"; did you mean "tenant"?"#), "\(d)")
            #expect(d.contains(#"steps[2].setAppConfig: setAppConfig needs settings: (the new key/value pairs) or remove: true"#), "\(d)")
        }
    }

    @Test func aBadGraphAppConfigurationNamesTheFileAndTheKeyPath() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-appconfig-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(#"{"displayName": "x", "customSettings": [{"name": "limit", "value": 10}]}"#.utf8).write(to: dir.appendingPathComponent("bad.json"))
        let scenario = dir.appendingPathComponent("s.yaml")
        try Data("appConfigs:\n  - name: sales\n    file: bad.json\n".utf8).write(to: scenario)
        do {
            _ = try ScenarioLoader.load(file: scenario)
            Issue.record("a bad document must not load")
        } catch {
            #expect(error.description.contains(#"s.yaml:3:11: appConfigs[0].file: bad.json: property "customSettings[0].value" must be a string"#), "\(error)")
        }
    }
}

/// Numbers no JSON can hold: a scenario expecting `.inf`, `.nan` or `1e400` in a configuration
/// loads and renders them by name (it overflowed the stack rendering them).
@Suite struct NonFiniteNumberTests {
    @Test func aConfigurationExpectationWithNonFiniteNumbersLoadsAndRendersThem() throws {
        let text = """
            apps:
              - {id: mail, bundle: com.contoso.mail}
            steps:
              - managedConfig: {app: mail}
                expect: {config: {k: .inf, n: .nan, m: -.inf, big: 1e400, nested: [.nan, {x: .inf}]}}
            """
        let scenario = try ScenarioLoader.load(text: text, file: URL(fileURLWithPath: "/nonexistent/nonfinite.yaml"))
        let expectation = "\(scenario.steps[0])"
        #expect(expectation.contains("Infinity") && expectation.contains("NaN"), "\(expectation)")
    }

    /// Graph's location names are read as the SDK's, with a warning naming the SDK's; a type
    /// that looks mistyped gets a did-you-mean, a custom type of the app's own nothing.
    @Test func graphLocationNamesAndMistypedTypesAreNamedNotRefused() throws {
        let scenario = try ScenarioLoader.load(text: """
            apps: [{id: mail, bundle: com.contoso.mail}]
            steps:
              - save: {app: mail, location: localStorage}
              - open: {app: mail, location: photoLibrary}
              - share: {from: mail, to: mail, item: {type: public.plain-txt, text: hi}}
              - share: {from: mail, to: mail, item: {type: public.notatype, text: hi}}
              - share: {from: mail, to: mail, item: {type: com.contoso.q3-report, text: hi}}
              - share: {from: mail, to: mail, item: {type: com.microsoft.intune.mam.public.plain-text, text: hi}}
            """, file: URL(fileURLWithPath: "/nonexistent/first.yaml"))
        #expect(scenario.steps[0].arguments == .save(app: "mail", location: .localDrive, account: nil))
        #expect(scenario.steps[1].arguments == .open(app: "mail", location: .photos, account: nil, as: nil))
        let warnings = scenario.warnings.map(\.message)
        #expect(warnings.contains { $0.contains("\"localStorage\"") && $0.contains("read as localDrive") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("\"photoLibrary\"") && $0.contains("read as photos") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("did you mean \"public.plain-text\"") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("\"public.notatype\"") && $0.contains("public. namespace") }, "\(warnings)")
        #expect(!warnings.contains { $0.contains("q3-report") || $0.contains("intune") }, "\(warnings)")
        #expect(warnings.count == 4, "\(warnings)")
    }
}
