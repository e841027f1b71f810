import MAMModel
import MAMPolicy
import Testing

/// RULES.md §9, Intune targeted app configuration (`IntuneMAMAppConfig`), table by table.
@Suite("Intune app configuration")
struct AppConfigTests {
    static let mail = World.mine

    func config(_ policies: [AppConfigPolicy], account: Account? = World.alice, app: BundleID = World.mine) -> AppConfig {
        let fleet = World.fleet()
        return Enforcer.appConfig(for: account, in: fleet.app(app)!, policies: policies, fleet: fleet)
    }

    static func policy(_ name: String, _ settings: [(String, String)], isDefault: Bool = false, apps: [BundleID] = [],
                       accounts: [String]? = nil) -> AppConfigPolicy {
        AppConfigPolicy(name: name, settings: settings.map { KeyValuePair(name: $0.0, value: $0.1) }, apps: apps,
                        accounts: accounts, isDefault: isDefault)
    }

    /// Targeted beats default; the default answers only when it is the only value; a conflict
    /// is more than one targeted value that differ.
    @Test(arguments: [
        // (targeted values, default value, expected values, conflict)
        ([] as [String], "d" as String?, ["d"], false),
        (["a"], "d", ["a"], false),
        (["a", "a"], "d", ["a", "a"], false),
        (["a", "b"], nil, ["a", "b"], true),
        (["a", "b"], "d", ["a", "b"], true),
        ([], nil, [], false),
    ])
    func resolution(targeted: [String], defaultValue: String?, expected: [String], conflict: Bool) {
        var policies = targeted.enumerated().map { Self.policy("p\($0.offset)", [("serverUrl", $0.element)]) }
        if let d = defaultValue { policies.insert(Self.policy("tenant", [("serverUrl", d)], isDefault: true), at: 0) }
        let c = config(policies)
        #expect(c.values(forKey: "serverUrl") == expected)
        #expect(c.hasConflict(forKey: "serverUrl") == conflict)
        #expect(c.fullData.count == policies.count)
        #expect(c.fullData.filter { $0[AppConfig.defaultMarker] == "true" }.count == (defaultValue == nil ? 0 : 1))
    }

    /// Query types: Bool any/or/and, Number any/min/max, String any/min/max.
    @Test func queries() {
        let c = config([Self.policy("a", [("offline", "false"), ("limit", "10"), ("tier", "gold")]),
                        Self.policy("b", [("offline", "TRUE"), ("limit", "2.5"), ("tier", "bronze")]),
                        Self.policy("c", [("offline", "maybe"), ("limit", "ten"), ("tier", "silver")])])
        #expect(c.bool(forKey: "offline", query: .any) == false)
        #expect(c.bool(forKey: "offline", query: .or) == true)
        #expect(c.bool(forKey: "offline", query: .and) == false)
        #expect(c.allBools(forKey: "offline") == [false, true], "\"maybe\" is not a boolean")
        #expect(c.number(forKey: "limit", query: .any) == 10)
        #expect(c.number(forKey: "limit", query: .min) == 2.5)
        #expect(c.number(forKey: "limit", query: .max) == 10)
        #expect(c.string(forKey: "tier", query: .any) == "gold")
        #expect(c.string(forKey: "tier", query: .min) == "bronze")
        #expect(c.string(forKey: "tier", query: .max) == "silver")
        #expect(c.allStrings(forKey: "missing") == [] && c.allNumbers(forKey: "missing") == [] && c.allBools(forKey: "missing") == [])
        #expect(c.bool(forKey: "missing") == nil && c.number(forKey: "missing") == nil && c.string(forKey: "missing") == nil)
    }

    /// Who receives it: managed accounts in SDK apps the policy targets.
    @Test(arguments: [
        ("alice in mail, untargeted policy", World.alice as Account?, World.mine, [BundleID](), nil as [String]?, true),
        ("bob (unmanaged)", World.bob, World.mine, [], nil, false),
        ("no account", nil, World.mine, [], nil, false),
        ("app not in the list", World.alice, World.mine, [World.outlook], nil, false),
        ("app in the list, any case", World.alice, World.mine, [BundleID(World.mine.rawValue.lowercased())], nil, true),
        ("account list by OID", World.alice, World.mine, [], [World.alice.oid.uppercased()], true),
        ("account not in the list", World.alice, World.mine, [], ["carol@fabrikam.com"], false),
        ("app without the SDK", World.alice, World.notes, [], nil, false),
    ])
    func targeting(row: String, account: Account?, app: BundleID, apps: [BundleID], accounts: [String]?, delivered: Bool) {
        let c = config([Self.policy("p", [("k", "v")], apps: apps, accounts: accounts)], account: account, app: app)
        #expect((c.values(forKey: "k") == ["v"]) == delivered, "\(row)")
    }

    /// RULES.md §7: screen capture under outbound ≠ allApps is allowed only by
    /// `com.microsoft.intune.mam.screencapturecontrol = Disabled`.
    @Test(arguments: [
        ("no configuration", nil as String?, Reason.screenCaptureBlocked as Reason?),
        ("Disabled", "Disabled", nil),
        ("disabled, any case", "disabled", nil),
        ("Enabled", "Enabled", .screenCaptureBlocked),
        // SDK 22.2: the values of the keys the SDK enforces are read without surrounding spaces
        ("Disabled with spaces and a line break", "  Disabled \n", nil),
        ("Dis abled", "Dis abled", .screenCaptureBlocked),
    ])
    func screenCapture(row: String, control: String?, expected: Reason?) {
        let fleet = World.fleet()
        let policies = control.map { [Self.policy("p", [("com.microsoft.intune.mam.ScreenCaptureControl", $0)])] } ?? []
        let d = Enforcer.screenCapture(as: World.alice, in: fleet.app(World.mine)!, policies: policies, fleet: fleet)
        #expect(d.blockedBy == expected, "\(row): \(d)")
        #expect(Enforcer.screenCapture(as: World.bob, in: fleet.app(World.mine)!, policies: [], fleet: fleet).isAllowed)
    }

    /// Microsoft Learn (app configuration for managed apps): the tokens Intune fills for the
    /// account a value reaches; what the device cannot fill stays as written.
    @Test(arguments: [
        ("{{userprincipalname}}", "alice@contoso.com"),
        ("{{UserPrincipalName}}", "alice@contoso.com"),
        ("{{mail}}", "alice@contoso.com"),
        ("Hi {{partialupn}}, id {{userid}}", "Hi alice, id 0b6f1c2e-2f4b-4c1e-9a55-3c1f0e6d7a10"),
        ("{{accountid}}", "contoso.onmicrosoft.com"),
        ("{{username}}", "{{username}}"),
        ("{{unknown}} and {{mail", "{{unknown}} and {{mail"),
        ("no token", "no token"),
    ])
    func tokensAreFilledForTheAccount(value: String, filled: String) {
        #expect(Enforcer.fillTokens(value, for: World.alice) == filled)
    }

    /// Seed 000: the block that comes with restricted sending applies from SDK 19.7.6; an app
    /// that says nothing of its SDK is taken as current.
    @Test(arguments: [
        ("not said", nil as String?, Reason.screenCaptureBlocked as Reason?),
        ("19.5.0", "19.5.0", nil),
        ("19.7.5", "19.7.5", nil),
        ("19.7.6", "19.7.6", .screenCaptureBlocked),
        ("20.2.1", "20.2.1", .screenCaptureBlocked),
    ])
    func screenCaptureBySDKVersion(row: String, sdk: String?, expected: Reason?) {
        var fleet = World.fleet()
        var app = fleet.app(World.mine)!
        app.sdkVersion = sdk
        fleet.install(app)
        let d = Enforcer.screenCapture(as: World.alice, in: fleet.app(World.mine)!, policies: [], fleet: fleet)
        #expect(d.blockedBy == expected, "\(row): \(d)")
    }
}

@Suite("Graph targetedManagedAppConfiguration import")
struct GraphAppConfigImportTests {
    @Test func microsoftsSampleImportsUnchanged() throws {
        let name = "graphdocs-v1.0-targetedManagedAppConfiguration-create-request.json"
        let result = try GraphAppConfigImporter.importConfigurations(Fixtures.bytes(name), source: name)
        let c = try #require(result.configurations.first)
        #expect(c.displayName == "Display Name value" && c.name == "Display Name value")
        #expect(c.settings == [KeyValuePair(name: "Name value", value: "Value value")])
        #expect(c.apps.isEmpty && c.accounts == nil && !c.isDefault)
        #expect(result.warnings.isEmpty, "\(result.warnings)")
    }

    /// An export as the admin center gives it: UTF-16LE with a BOM and CRLF, a collection
    /// mixing a protection policy in, expanded apps, annotations.
    @Test func aUTF16ExportWithAppsAndAMixedCollection() throws {
        let text = """
            {"@odata.context": "https://graph.microsoft.com/beta/$metadata#deviceAppManagement/targetedManagedAppConfigurations",
             "value": [
              {"@odata.type": "#microsoft.graph.iosManagedAppProtection", "displayName": "a protection policy"},
              {"@odata.type": "#microsoft.graph.targetedManagedAppConfiguration", "id": "A_1", "displayName": "Contoso mail",
               "customSettings@odata.type": "#Collection(microsoft.graph.keyValuePair)",
               "customSettings": [{"name": "serverUrl", "value": "https://mail.contoso.com"}, {"name": "offline", "value": "true"}],
               "apps@odata.navigationLink": "https://graph.microsoft.com/beta/...",
               "apps": [{"id": "com.contoso.mail.ios", "mobileAppIdentifier": {"@odata.type": "#microsoft.graph.iosMobileAppIdentifier", "bundleId": "com.contoso.mail"}}],
               "targetedAppManagementLevels": "unspecified", "isAssigned": true, "deployedAppCount": 1}
             ]}
            """
        let bytes = utf16LEWithBOMAndCRLF(text)
        let result = try GraphAppConfigImporter.importConfigurations(bytes, source: "export.json")
        #expect(result.skipped.map(\.displayName) == ["a protection policy"])
        let c = try #require(result.configurations.first)
        #expect(c.settings.map(\.name) == ["serverUrl", "offline"])
        #expect(c.apps == [BundleID("com.contoso.mail")])
        #expect(result.warnings.isEmpty, "\(result.warnings)")
    }

    @Test(arguments: [
        (#"{"customSettings": [{"name": "limit", "value": 10}]}"#, "customSettings[0].value"),
        (#"{"customSettings": [{"value": "x"}]}"#, "customSettings[0].name"),
        (#"{"customSettings": {"name": "a", "value": "b"}}"#, "customSettings"),
        (#"{"apps": "com.contoso.mail"}"#, "apps"),
    ])
    func aWrongTypeNamesItsKeyPath(json: String, property: String) {
        do {
            _ = try GraphAppConfigImporter.importConfigurations(Array(json.utf8), source: "bad.json")
            Issue.record("\(json) must not import")
        } catch {
            #expect(error.property == property, "\(error)")
            #expect(error.message.hasPrefix("bad.json: property \"\(property)\""), "\(error)")
        }
    }

    @Test func unknownPropertiesAndDuplicateKeysWarn() throws {
        let json = #"{"displayName": "x", "customSetings": [], "customSettings": [{"name": "a", "value": "1"}, {"name": "a", "value": "2"}]}"#
        let r = try GraphAppConfigImporter.importConfigurations(Array(json.utf8), source: "w.json")
        #expect(r.warnings.map(\.property).sorted() == ["customSetings", "customSettings[1]"])
        #expect(r.configurations.first?.dictionary["a"] == "2")
    }
}
