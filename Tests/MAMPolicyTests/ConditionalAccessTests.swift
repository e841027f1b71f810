import MAMModel
import MAMPolicy
import Testing

/// RULES.md §10: app protection conditional access, table by table.
@Suite("App protection conditional access")
struct ConditionalAccessTests {
    static let requireAppProtection = ConditionalAccessPolicy(name: "Require app protection", includeUsers: [World.alice.upn],
                                                              builtInControls: ["compliantApplication"])

    func token(_ policies: [ConditionalAccessPolicy], account: Account = World.alice, capabilities: [String] = ["protapp"],
               compliant: Bool = false, resource: String = "00000003-0000-0ff1-ce00-000000000000") -> TokenDecision {
        let fleet = World.fleet()
        return Enforcer.token(for: account, resource: resource, app: fleet.app(World.mine)!, capabilities: capabilities,
                              compliant: compliant, policies: policies, in: fleet)
    }

    /// policy state/targeting, capability, compliance → the reason (`nil` = a token).
    @Test(arguments: [
        ("no policy", [ConditionalAccessPolicy](), ["protapp"], false, nil as Reason?),
        ("targeted, not compliant", [requireAppProtection], ["protapp"], false, .protectionPolicyRequired),
        ("targeted, compliant", [requireAppProtection], ["protapp"], true, nil),
        ("capability in another case", [requireAppProtection], ["ProtApp"], false, .protectionPolicyRequired),
        ("no protapp capability", [requireAppProtection], ["cp1"], false, .appProtectionUnsupported),
        // RULES §10: without protapp no token ever, even once the app is compliant
        ("no protapp, compliant after a remediation", [requireAppProtection], ["cp1"], true, .appProtectionUnsupported),
        ("no protapp, approved app OR app protection", [ConditionalAccessPolicy(name: "x", builtInControls: ["approvedApplication", "compliantApplication"])], [], true, nil),
        ("disabled", [ConditionalAccessPolicy(name: "off", state: .disabled)], ["protapp"], false, nil),
        ("report-only", [ConditionalAccessPolicy(name: "report", state: .enabledForReportingButNotEnforced)], ["protapp"], false, nil),
        ("all users, alice excluded", [ConditionalAccessPolicy(name: "x", excludeUsers: [World.alice.oid])], ["protapp"], false, nil),
        ("another resource", [ConditionalAccessPolicy(name: "x", includeApplications: ["some-other-app"])], ["protapp"], false, nil),
        ("OR with approved app", [ConditionalAccessPolicy(name: "x", builtInControls: ["approvedApplication", "compliantApplication"])], ["protapp"], false, nil),
        ("AND with approved app", [ConditionalAccessPolicy(name: "x", builtInControls: ["approvedApplication", "compliantApplication"], requiresAll: true)], ["protapp"], false, .protectionPolicyRequired),
    ])
    func tokens(row: String, policies: [ConditionalAccessPolicy], capabilities: [String], compliant: Bool, expected: Reason?) {
        let t = token(policies, capabilities: capabilities, compliant: compliant)
        #expect(t.decision.blockedBy == expected, "\(row): \(t.decision)")
        #expect((t.homeAccountID != nil) == (expected == .protectionPolicyRequired), "\(row)")
    }

    /// RULES §10: `All` users are the policy's tenant's users — by tenant id, or by the UPN
    /// domains of its users — never a personal account of another tenant in the same app; an
    /// account named in includeUsers is taken whatever its tenant; a policy without a tenant
    /// takes everyone.
    @Test(arguments: [
        (Account(upn: "alice@contoso.com", tenant: "contoso.onmicrosoft.com"), true),
        (Account(upn: "carol@contoso.com"), true),                                   // by domain
        (Account(upn: "dan@fabrikam.com", tenant: "contoso.onmicrosoft.com"), true), // by tenant id
        (Account(upn: "bob@outlook.com"), false),
        (Account(upn: "eve@fabrikam.com", tenant: "fabrikam.onmicrosoft.com"), false),
    ])
    func allUsersMeansTheTenantsUsers(account: Account, applies: Bool) {
        var p = ConditionalAccessPolicy(name: "Contoso: all users")
        p.tenant = "contoso.onmicrosoft.com"
        p.tenantDomains = ["contoso.com"]
        #expect(p.applies(to: account, resource: "x") == applies, "\(account)")
        var named = p
        named.includeUsers = [account.upn]
        #expect(named.applies(to: account, resource: "x"), "named in includeUsers")
        #expect(ConditionalAccessPolicy(name: "no tenant said").applies(to: account, resource: "x"))
    }

    @Test func theHomeAccountIDIsOIDDotTenant() {
        #expect(token([Self.requireAppProtection]).homeAccountID == "\(World.alice.oid).\(World.alice.tenant)")
    }

    /// facts → the compliance status the delegate receives.
    @Test(arguments: [
        ("all well", RemediationFacts(), World.alice, ComplianceStatus.compliant),
        ("offline", RemediationFacts(online: false), World.alice, .networkFailure),
        ("no broker", RemediationFacts(brokerInstalled: false), World.alice, .serviceFailure),
        ("silent, not signed in", RemediationFacts(silent: true, signedIn: false), World.alice, .interactionRequired),
        ("silent, signed in", RemediationFacts(silent: true, signedIn: true), World.alice, .compliant),
        ("user cancels", RemediationFacts(userCancels: true), World.alice, .userCancelled),
        ("no MAM policy for the user", RemediationFacts(), World.bob, .notCompliant),
    ])
    func remediation(row: String, facts: RemediationFacts, account: Account, expected: ComplianceStatus) {
        let fleet = World.fleet()
        let o = Enforcer.remediate(account, app: fleet.app(World.mine)!, facts: facts, in: fleet)
        #expect(o.status == expected, "\(row)")
        #expect(o.enrolls == (expected == .compliant), "\(row)")
        if expected != .compliant { #expect(!o.title.isEmpty && !o.message.isEmpty, "\(row): an app shows a title and a message") }
    }

    @Test func graphPolicyImport() throws {
        let json = """
            {"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#identity/conditionalAccess/policies/$entity",
             "id": "6b5b9a3e-1c7a-4e0e-9d27-3c8b2f3c1a11", "displayName": "Require app protection policy for Office 365",
             "state": "enabled",
             "conditions": {"clientAppTypes": ["mobileAppsAndDesktopClients"],
                            "applications": {"includeApplications": ["Office365"], "excludeApplications": []},
                            "users": {"includeUsers": ["alice@contoso.com"], "excludeUsers": [], "includeGroups": [], "excludeGroups": []},
                            "platforms": {"includePlatforms": ["iOS"]}},
             "grantControls": {"operator": "OR", "builtInControls": ["compliantApplication"], "customAuthenticationFactors": []}}
            """
        let (policies, warnings) = try GraphConditionalAccessImporter.importPolicies(Array(json.utf8), source: "ca.json")
        let p = try #require(policies.first)
        #expect(p.name == "Require app protection policy for Office 365" && p.state == .enabled)
        #expect(p.includeUsers == ["alice@contoso.com"] && p.includeApplications == ["Office365"])
        #expect(p.builtInControls == ["compliantApplication"] && !p.requiresAll)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(p.includePlatforms == ["iOS"] && p.clientAppTypes == ["mobileAppsAndDesktopClients"] && p.appliesToThisDevice)
    }

    /// Graph conditionalAccessApplications (issue 84, item 5): an application is included
    /// "unless explicitly excluded" — by its id, or by `Office365`'s group.
    @Test(arguments: [
        (["All"], [String](), "00000003-0000-0ff1-ce00-000000000000", true),
        (["All"], ["00000003-0000-0ff1-ce00-000000000000"], "00000003-0000-0ff1-ce00-000000000000", false),
        (["All"], ["00000003-0000-0ff1-ce00-000000000000"], "00000002-0000-0ff1-ce00-000000000000", true),
        (["All"], ["Office365"], "00000002-0000-0ff1-ce00-000000000000", false),
        (["Office365"], ["cc15fd57-2c6c-4117-a88c-83b1d56b4bbe"], "cc15fd57-2c6c-4117-a88c-83b1d56b4bbe", false),
        (["Office365"], ["cc15fd57-2c6c-4117-a88c-83b1d56b4bbe"], "00000003-0000-0ff1-ce00-000000000000", true),
    ])
    func anExcludedApplicationIsNotTargeted(include: [String], exclude: [String], resource: String, applies: Bool) throws {
        let json = """
            {"displayName": "p", "state": "enabled",
             "conditions": {"applications": {"includeApplications": \(include), "excludeApplications": \(exclude)},
                            "users": {"includeUsers": ["All"]}},
             "grantControls": {"operator": "OR", "builtInControls": ["compliantApplication"]}}
            """
        let p = try #require(try GraphConditionalAccessImporter.importPolicies(Array(json.utf8), source: "ca.json").0.first)
        #expect(p.excludeApplications == exclude)
        #expect(p.applies(to: Account(upn: "alice@contoso.com"), resource: resource) == applies)
    }

    /// Graph conditionalAccessPlatforms and clientAppTypes: the device is an iPhone, the app
    /// asks through MSAL (a mobile app client).
    @Test(arguments: [
        ("every platform", [String](), [String](), [String](), true),
        ("iOS", ["iOS"], [], [], true),
        ("all but Android", ["all"], ["android"], [], true),
        ("Android only", ["android"], [], [], false),
        ("all but iOS", ["all"], ["iOS"], [], false),
        ("browsers only", [], [], ["browser"], false),
        ("mobile apps", [], [], ["mobileAppsAndDesktopClients"], true),
        ("all clients", [], [], ["all"], true),
    ])
    func platformsAndClientAppTypes(row: String, include: [String], exclude: [String], clients: [String], applies: Bool) {
        var p = ConditionalAccessPolicy(name: row, includeUsers: ["All"])
        p.includePlatforms = include
        p.excludePlatforms = exclude
        p.clientAppTypes = clients
        #expect(p.applies(to: World.alice, resource: "Office365") == applies, "\(row)")
    }

    @Test func aWrongStateNamesTheProperty() {
        do {
            _ = try GraphConditionalAccessImporter.importPolicies(Array(#"{"displayName": "x", "state": "on"}"#.utf8), source: "bad.json")
            Issue.record("must not import")
        } catch {
            #expect(error.property == "state" && error.message.contains("one of enabled, disabled, enabledForReportingButNotEnforced"), "\(error)")
        }
    }
}
