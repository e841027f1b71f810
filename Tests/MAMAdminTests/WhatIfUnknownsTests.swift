import Foundation
import MAMModel
import Testing
@testable import MAMPolicy
@testable import MAMAdmin

/// What If says what it cannot know (issue 98). Each expectation was written from its source
/// before the run:
/// [WI] Microsoft Learn, "Conditional Access What If tool" (entra/identity/conditional-access/what-if-tool):
///      the sign-in's details (risk, location, client app, device state) decide which policies apply.
/// [CL] Learn, "Conditional Access: Conditions → Client apps": browsers vs "mobile apps and desktop clients".
/// [LO] Learn, "Using the location condition in a Conditional Access policy": named locations by IP range or country;
///      "All trusted locations".
/// [UG] Learn, "Conditional Access: Users, groups, agents and workload identities": guest or external user types,
///      B2B collaboration guests; groups.
/// [GR] Learn, "Conditional Access: Grant" — "Require Microsoft Entra hybrid joined device".
/// [SE] Learn, "Conditional Access: Session" — sign-in frequency, app enforced restrictions.
/// [AP] Learn, "Building a Conditional Access policy": "all assigned policies must be satisfied"; a block wins.
/// [GW] Graph, `whatIfAnalysisResult`: `analysisReasons` is `notSet` when `policyApplies` is true, else why not.
@Suite struct WhatIfUnknownsTests {
    static func policies(_ documents: String...) throws -> WhatIfPolicies {
        var p = WhatIfPolicies()
        for (i, d) in documents.enumerated() { _ = try p.add(document: Array(d.utf8), source: "doc\(i).json") }
        return p
    }

    static func ca(_ name: String, conditions: String, grant: String, session: String = "null", state: String = "enabled") -> String {
        ##"{"@odata.type": "#microsoft.graph.conditionalAccessPolicy", "id": "\##(name)", "displayName": "\##(name)", "state": "\##(state)", "conditions": {"users": {"includeUsers": ["All"]}, "applications": {"includeApplications": ["All"]}\##(conditions)}, "grantControls": \##(grant), "sessionControls": \##(session)}"##
    }

    static let block = ##"{"operator": "OR", "builtInControls": ["block"]}"##

    static func persona(_ name: String = "p", upn: String = "adele@contoso.com", member: DirectoryMembership = DirectoryMembership(),
                        device: DeviceFacts = DeviceFacts(), apps: [WhatIfPersona.App] = [.init(BundleID("com.microsoft.Office.Outlook"))]) -> WhatIfPersona {
        WhatIfPersona(name: name, user: Account(upn: upn, oid: "0b6f1c2e-2f4b-4c1e-9a55-3c1f0e6d7a10", tenant: "contoso.onmicrosoft.com"),
                      member: member, device: device, apps: apps)
    }

    /// [WI] Sign-in risk unstated: the block depends on it — "blocked if sign-in risk is high;
    /// allowed otherwise" — a value of its own, never an outright block; stated, it is judged.
    @Test func riskUnstatedIsDependsStatedIsJudged() throws {
        let p = try Self.policies(Self.ca("Block high risk", conditions: ##", "signInRiskLevels": ["high"]"##, grant: Self.block))
        let unknown = WhatIf.evaluate(Self.persona(), p).apps[0]
        #expect(unknown.token.depends && unknown.token.word == "depends", "\(unknown.token)")
        #expect(unknown.token.cases.map(\.condition.description) == ["sign-in risk is high (\"Block high risk\")"] && unknown.token.cases[0].decision.blockedBy == .accessBlocked)
        #expect(unknown.token.decision.isAllowed && unknown.token.explanation.description.hasPrefix("depends — if sign-in risk is high"))
        #expect(unknown.conditionalAccess[0].applies == nil && unknown.conditionalAccess[0].analysisReasons == ["notEnoughInformation", "signInRisk"])
        var low = DirectoryMembership(), high = DirectoryMembership()
        low.signInRisk = "low"
        high.signInRisk = "high"
        #expect(WhatIf.evaluate(Self.persona(member: low), p).apps[0].token.isAllowed)
        #expect(WhatIf.evaluate(Self.persona(member: high), p).apps[0].token.blockedBy == .accessBlocked)
        // Insider risk and user risk alike.
        let insider = try Self.policies(Self.ca("Block elevated insiders", conditions: ##", "insiderRiskLevels": ["elevated"]"##, grant: Self.block))
        #expect(WhatIf.evaluate(Self.persona(), insider).apps[0].token.depends)
    }

    /// [LO] Named locations by IP range and by country, "All trusted locations" excluded;
    /// unstated, the location condition is unknown and the token depends on it.
    @Test func locationsAreJudgedWhereSaidAndDependOtherwise() throws {
        let hq = ##"{"@odata.type": "#microsoft.graph.ipNamedLocation", "id": "loc-hq", "displayName": "Contoso HQ", "isTrusted": true, "ipRanges": [{"@odata.type": "#microsoft.graph.iPv4CidrRange", "cidrAddress": "203.0.113.0/24"}, {"@odata.type": "#microsoft.graph.iPv6CidrRange", "cidrAddress": "2001:db8:10::/48"}]}"##
        let countries = ##"{"@odata.type": "#microsoft.graph.countryNamedLocation", "id": "loc-blocked", "displayName": "Blocked countries", "countriesAndRegions": ["KP", "IR"], "includeUnknownCountriesAndRegions": false}"##
        let outside = Self.ca("MFA outside trusted", conditions: ##", "locations": {"includeLocations": ["All"], "excludeLocations": ["AllTrusted"]}"##,
                              grant: ##"{"operator": "OR", "builtInControls": ["compliantDevice"]}"##)
        let banned = Self.ca("Block countries", conditions: ##", "locations": {"includeLocations": ["loc-blocked"]}"##, grant: Self.block)
        let p = try Self.policies("[\(hq), \(countries), \(outside), \(banned)]")
        #expect(p.namedLocations["loc-hq"]?.isTrusted == true && p.namedLocations["blocked countries"]?.countries == ["KP", "IR"])
        func token(_ set: (inout DirectoryMembership) -> Void) -> WhatIfToken {
            var m = DirectoryMembership()
            set(&m)
            return WhatIf.evaluate(Self.persona(member: m), p).apps[0].token
        }
        // At HQ (trusted) and in France: neither applies.
        #expect(token { $0.ipAddress = "203.0.113.7"; $0.country = "FR" }.isAllowed)
        #expect(token { $0.ipAddress = "2001:db8:10::5"; $0.country = "FR" }.isAllowed)
        // Off the trusted range, in France: the compliant-device policy applies; the device is not enrolled.
        #expect(token { $0.ipAddress = "198.51.100.1"; $0.country = "FR" }.blockedBy == .accessBlocked)
        // In a blocked country: the block, named first.
        let kp = token { $0.ipAddress = "198.51.100.1"; $0.country = "KP" }
        #expect(kp.blockedBy == .accessBlocked && kp.decision.explanation.description.hasPrefix("conditional access policy \"Block countries\" blocks access"), "\(kp)")
        // Nothing said: both depend on where the sign-in comes from.
        let unsaid = token { _ in }
        #expect(unsaid.depends && unsaid.cases.count == 2, "\(unsaid)")
        #expect(unsaid.cases.contains { $0.condition.description.contains("the sign-in comes from outside a trusted location") })
        #expect(unsaid.cases.contains { $0.condition.description.contains("the sign-in comes from \"Blocked countries\"") })
        // A named location said by its display name.
        #expect(token { $0.location = "Contoso HQ"; $0.country = "FR" }.isAllowed)
        // An export without its named locations says nothing of which are trusted: an address
        // alone leaves "outside a trusted location" unknown.
        let bare = try Self.policies(outside)
        var m = DirectoryMembership()
        m.ipAddress = "198.51.100.1"
        #expect(WhatIf.evaluate(Self.persona(member: m), bare).apps[0].token.depends)
    }

    /// [CL] Browsers are not mobile apps: Safari is let through a "block mobile apps and desktop
    /// clients" policy and blocked by a "block browsers" one; Outlook the other way round.
    @Test func clientAppTypesAreTheAppsOwn() throws {
        let apps: [WhatIfPersona.App] = [.init(BundleID("com.apple.mobilesafari"), sdkIntegrated: false), .init(BundleID("com.microsoft.Office.Outlook"))]
        let browsers = try Self.policies(Self.ca("Block browsers", conditions: ##", "clientAppTypes": ["browser"]"##, grant: Self.block))
        let r = WhatIf.evaluate(Self.persona(apps: apps), browsers)
        #expect(r.apps[0].token.blockedBy == .accessBlocked && r.apps[1].token.isAllowed)
        #expect(r.apps[1].conditionalAccess[0].analysisReasons == ["clientApps"])
        let mobile = try Self.policies(Self.ca("Block apps", conditions: ##", "clientAppTypes": ["mobileAppsAndDesktopClients"]"##, grant: Self.block))
        let m = WhatIf.evaluate(Self.persona(apps: apps), mobile)
        #expect(m.apps[0].token.isAllowed && m.apps[1].token.blockedBy == .accessBlocked)
        // A persona (or an app) may say the client app type itself.
        var said = apps[1]
        said.clientApp = "browser"
        #expect(WhatIf.evaluate(Self.persona(apps: [said]), browsers).apps[0].token.blockedBy == .accessBlocked)
    }

    /// [SE] Session controls are named in the answer of every policy that grants.
    @Test func sessionControlsAreNamed() throws {
        let session = ##"{"signInFrequency": {"value": 4, "type": "hours", "isEnabled": true, "frequencyInterval": "timeBased"}, "applicationEnforcedRestrictions": {"isEnabled": true}, "persistentBrowser": {"mode": "never", "isEnabled": true}}"##
        let p = try Self.policies(Self.ca("MFA with session", conditions: "", grant: ##"{"operator": "OR", "builtInControls": ["mfa"]}"##, session: session))
        let t = WhatIf.evaluate(Self.persona(), p).apps[0].token
        #expect(t.isAllowed && t.decision.explanation.description.contains("after MFA"), "\(t)")
        #expect(t.decision.explanation.description.contains("session controls: sign-in frequency: every 4 hours (\"MFA with session\"), app enforced restrictions (\"MFA with session\"), persistent browser session: never (\"MFA with session\")"), "\(t)")
    }

    /// [UG] A policy on a parent group covers a member of a group nested in it, as the groups
    /// export lists the nesting; a user listed as a member counts though the persona names no
    /// group; where the export lists no members, the answer says so.
    @Test func nestedGroupsAreFollowedOrSaid() throws {
        let parent = ##"{"@odata.type": "#microsoft.graph.group", "id": "g-parent", "displayName": "All sales", "securityEnabled": true, "mailEnabled": false, "members": [{"@odata.type": "#microsoft.graph.group", "id": "g-child", "displayName": "Sales EMEA"}, {"@odata.type": "#microsoft.graph.user", "id": "u1", "userPrincipalName": "megan@contoso.com"}]}"##
        let child = ##"{"@odata.type": "#microsoft.graph.group", "id": "g-child", "displayName": "Sales EMEA", "securityEnabled": true, "mailEnabled": false}"##
        var ca = ##"{"@odata.type": "#microsoft.graph.conditionalAccessPolicy", "displayName": "Block sales", "state": "enabled", "conditions": {"users": {"includeGroups": ["g-parent"]}, "applications": {"includeApplications": ["All"]}}, "grantControls": \##(Self.block)}"##
        let p = try Self.policies("[\(parent), \(child), \(ca)]")
        #expect(WhatIf.evaluate(Self.persona(member: DirectoryMembership(groups: ["Sales EMEA"])), p).apps[0].token.blockedBy == .accessBlocked)
        #expect(WhatIf.evaluate(Self.persona(upn: "megan@contoso.com"), p).apps[0].token.blockedBy == .accessBlocked)
        #expect(WhatIf.evaluate(Self.persona(member: DirectoryMembership(groups: ["Marketing"])), p).apps[0].token.isAllowed)
        // No members listed: not covered, and said.
        ca = ca.replacingOccurrences(of: "g-parent", with: "g-other")
        let bare = try Self.policies("[\(child), \(ca)]")
        let r = WhatIf.evaluate(Self.persona(member: DirectoryMembership(groups: ["Sales EMEA"])), bare).apps[0]
        #expect(r.token.isAllowed && r.conditionalAccess[0].reason.description.contains("the groups export lists no members of g-other"), "\(r.conditionalAccess[0].reason)")
    }

    /// [UG] A `#EXT#` UPN is a B2B collaboration guest, covered by a guest policy; a member is
    /// not; a persona may say its user type; enumerated external tenants need the guest's home
    /// tenant, else the answer depends on it.
    @Test func guestsAreRecognised() throws {
        let guests = ##", "users": {"includeGuestsOrExternalUsers": {"guestOrExternalUserTypes": "b2bCollaborationGuest,b2bCollaborationMember", "externalTenants": {"@odata.type": "#microsoft.graph.conditionalAccessAllExternalTenants", "membershipKind": "all"}}}"##
        let doc = Self.ca("Block guests", conditions: "", grant: Self.block).replacingOccurrences(of: ##""users": {"includeUsers": ["All"]}, "##, with: "")
            .replacingOccurrences(of: ##"["All"]}}"##, with: ##"["All"]}\##(guests)}"##)
        let p = try Self.policies(doc)
        #expect(p.conditionalAccess[0].includeGuests?.types == ["b2bcollaborationguest", "b2bcollaborationmember"], "\(p.conditionalAccess[0])")
        #expect(WhatIf.evaluate(Self.persona(upn: "erin_fabrikam.com#EXT#@contoso.onmicrosoft.com"), p).apps[0].token.blockedBy == .accessBlocked)
        #expect(WhatIf.evaluate(Self.persona(), p).apps[0].token.isAllowed)
        var guest = DirectoryMembership()
        guest.userType = "guest"
        #expect(WhatIf.evaluate(Self.persona(upn: "erin@fabrikam.com", member: guest), p).apps[0].token.blockedBy == .accessBlocked)
        let enumerated = try Self.policies(doc.replacingOccurrences(of: ##""membershipKind": "all""##, with: ##""membershipKind": "enumerated", "members": ["fabrikam-tenant-id"]"##))
        var unknownTenant = Self.persona(upn: "erin_fabrikam.com#EXT#@contoso.onmicrosoft.com")
        unknownTenant.user = Account(upn: unknownTenant.user.upn)
        #expect(WhatIf.evaluate(unknownTenant, enumerated).apps[0].token.depends)
        // Included anyway (all users), the home tenant no longer matters.
        let everyone = try Self.policies(doc.replacingOccurrences(of: #""membershipKind": "all""#, with: #""membershipKind": "enumerated", "members": ["fabrikam-tenant-id"]"#)
            .replacingOccurrences(of: #""users": {"includeGuestsOrExternalUsers""#, with: #""users": {"includeUsers": ["All"], "includeGuestsOrExternalUsers""#))
        #expect(WhatIf.evaluate(unknownTenant, everyone).apps[0].token.blockedBy == .accessBlocked)
    }

    /// [GR] `domainJoinedDevice` is met by a Microsoft Entra hybrid joined device (`trustType`
    /// `ServerAD`), never by an iPhone.
    @Test func hybridJoinedMeetsDomainJoinedDevice() throws {
        let p = try Self.policies(Self.ca("Hybrid only", conditions: "", grant: ##"{"operator": "OR", "builtInControls": ["domainJoinedDevice"]}"##))
        var pc = DeviceFacts()
        pc.platform = "windows"
        pc.entra.trustType = "ServerAD"
        #expect(WhatIf.evaluate(Self.persona(device: pc), p).apps[0].token.isAllowed)
        let phone = WhatIf.evaluate(Self.persona(), p).apps[0].token
        #expect(phone.blockedBy == .accessBlocked && phone.decision.explanation.description.contains("not Microsoft Entra hybrid joined"), "\(phone)")
    }

    /// [AP] A block and an unmet grant both apply: the block is named first, the grant too — the
    /// admin who fixes compliance is told the block remains.
    @Test func everyApplyingPolicyIsNamedABlockFirst() throws {
        let p = try Self.policies("[\(Self.ca("Require compliant device", conditions: "", grant: ##"{"operator": "OR", "builtInControls": ["compliantDevice"]}"##)), \(Self.ca("Block all", conditions: "", grant: Self.block))]")
        let t = WhatIf.evaluate(Self.persona(), p).apps[0].token
        #expect(t.blockedBy == .accessBlocked)
        let text = t.decision.explanation.description
        let block = try #require(text.range(of: "\"Block all\" blocks access")), grant = try #require(text.range(of: "\"Require compliant device\" requires compliantDevice"))
        #expect(block.lowerBound < grant.lowerBound, "\(text)")
    }

    /// [GW] `analysisReasons`: `notSet` for a policy that applies, why not for one that does not,
    /// `policyNotEnabled` for a disabled one; a report-only policy that covers the persona applies.
    @Test func analysisReasonsAreGraphs() throws {
        let p = try Self.policies("[\(Self.ca("On", conditions: "", grant: ##"{"operator": "OR", "builtInControls": ["mfa"]}"##)), \(Self.ca("Off", conditions: "", grant: Self.block, state: "disabled")), \(Self.ca("Pilot", conditions: "", grant: Self.block, state: "enabledForReportingButNotEnforced")), \(Self.ca("Android only", conditions: ##", "platforms": {"includePlatforms": ["android"]}"##, grant: Self.block))]")
        let e = WhatIf.evaluate(Self.persona(), p).apps[0].conditionalAccess
        #expect(e.map(\.analysisReasons) == [["notSet"], ["policyNotEnabled"], ["notSet"], ["devicePlatform"]])
        #expect(e.map(\.applies) == [true, false, true, false] && e[2].reportOnly)
        #expect(WhatIf.evaluate(Self.persona(), p).apps[0].token.isAllowed, "a report-only block never blocks")
    }

    /// Compliance not stated on an enrolled device: the token depends on it, its own value.
    @Test func complianceUnstatedIsDepends() throws {
        let p = try Self.policies(Self.ca("Compliant device", conditions: "", grant: ##"{"operator": "OR", "builtInControls": ["compliantDevice"]}"##))
        var enrolled = DeviceFacts()
        enrolled.mdmEnrolled = true
        let t = WhatIf.evaluate(Self.persona(device: enrolled), p).apps[0].token
        #expect(t.depends && t.cases.map(\.condition.description) == ["the device is compliant (say device.compliant)"] && t.cases[0].decision.isAllowed && t.decision.blockedBy == .accessBlocked)
    }

    /// An Android persona: not evaluated, the export's Android policy named — never "allowed" by default.
    @Test func anotherPlatformIsNotEvaluatedAndNamed() throws {
        let android = ##"{"@odata.type": "#microsoft.graph.androidManagedAppProtection", "displayName": "Android baseline"}"##
        var ios = IosManagedAppProtection(displayName: "iOS baseline")
        ios.assignments = [PolicyAssignment(.allLicensedUsers)]
        var p = try Self.policies(android)
        p.protections = [ios]
        var device = DeviceFacts()
        device.platform = "android"
        let a = WhatIf.evaluate(Self.persona(device: device), p).apps[0]
        guard case .notEvaluated(let why) = a.protection else { Issue.record("\(a.protection)"); return }
        #expect(why.contains("\"Android baseline\"") && a.transfers.isEmpty && a.clipboard.isEmpty && a.save.isEmpty && a.features.isEmpty, "\(why)")
    }

    /// The gate judges decisions: a feature an app blocked at launch would open opens nothing;
    /// a token that becomes "depends" is `known->unknown`, and its reason names the policy that changed.
    @Test func theGateJudgesDecisions() throws {
        var before = IosManagedAppProtection(displayName: "Baseline")
        before.assignments = [PolicyAssignment(.allLicensedUsers)]
        before.appGroupType = .allApps
        before.printBlocked = true
        var after = before
        after.printBlocked = false
        after.minimumRequiredOsVersion = Version("99.0")
        let persona = Self.persona()
        let old = WhatIfPolicies(protections: [before]), new = WhatIfPolicies(protections: [after])
        let changes = WhatIf.diff([WhatIf.evaluate(persona, old)], [WhatIf.evaluate(persona, new)], oldPolicies: old, newPolicies: new)
        #expect(changes.contains { $0.cell == "features → print" && $0.kind == .other }, "\(changes.map { "\($0.cell) \($0.kind)" })")
        #expect(!changes.contains { $0.kind == .opened })
        let risky = try Self.policies(Self.ca("Block risky", conditions: ##", "signInRiskLevels": ["high"]"##, grant: Self.block))
        let t = WhatIf.diff([WhatIf.evaluate(persona, WhatIfPolicies())], [WhatIf.evaluate(persona, risky)], oldPolicies: WhatIfPolicies(), newPolicies: risky)
        #expect(t.contains { $0.cell == "token" && $0.kind == .toUnknown && $0.after == "depends" && $0.because.contains { $0.hasPrefix("\"Block risky\": added") } }, "\(t)")
    }
}

/// [LO] A named location's ranges as an export holds them, a hostile one too: IPv4 and IPv6
/// prefixes match as CIDR says; an empty, malformed or out-of-range prefix matches nothing.
@Test(arguments: [
    ("203.0.113.0/24", "203.0.113.200", true), ("203.0.113.0/24", "203.0.114.1", false), ("10.0.0.0/8", "10.255.1.2", true),
    ("2001:db8:10::/48", "2001:db8:10:ffff::1", true), ("2001:db8:10::/48", "2001:db8:11::1", false), ("203.0.113.7", "203.0.113.7", true),
    ("203.0.113.0/24", "2001:db8::1", false), ("", "203.0.113.7", false), ("/", "203.0.113.7", false), ("203.0.113.0/", "203.0.113.7", false),
    ("203.0.113.0/33", "203.0.113.7", false), ("203.0.113.0/-1", "203.0.113.7", false), ("203.0.113.0/24/8", "203.0.113.7", false), ("0.0.0.0/0", "198.51.100.1", true),
])
func aNamedLocationsRangesMatchAsCIDRSays(cidr: String, ip: String, inside: Bool) {
    #expect(NamedLocation.range(cidr, contains: ip) == inside)
}

/// [LO] A Microsoft365DSC export's named locations (`AADNamedLocationPolicy`) and the
/// conditional access policies that name them by display name: a persona at the trusted office
/// is left out of "block outside HQ", one elsewhere is blocked, one that says nothing depends.
@Test func aDSCExportsNamedLocationsDecideWhereTheyAreNamed() throws {
    let text = """
        AADNamedLocationPolicy "AADNamedLocationPolicy-HQ"
        {
            DisplayName = "Contoso HQ";
            Ensure      = "Present";
            Id          = "0f1e2d3c-0000-4000-8000-000000000001";
            IpRanges    = @("203.0.113.0/24");
            IsTrusted   = $True;
            OdataType   = "#microsoft.graph.ipNamedLocation";
        }
        AADConditionalAccessPolicy "B"
        {
            BuiltInControls     = @("block");
            DisplayName         = "Block outside HQ";
            Ensure              = "Present";
            ExcludeLocations    = @("Contoso HQ");
            IncludeApplications = @("All");
            IncludeUsers        = @("All");
            IncludeLocations    = @("All");
            State               = "enabled";
        }
        """
    var p = WhatIfPolicies()
    let (warnings, skipped) = try p.add(dscExport: text, source: "M365TenantConfig.ps1")
    #expect(skipped.isEmpty && warnings.isEmpty, "\(skipped) \(warnings)")
    let objects = try DSCExport.graphObjects(text, source: "x").0
    #expect(p.namedLocations["contoso hq"]?.ipRanges == ["203.0.113.0/24"] && p.namedLocations["contoso hq"]?.isTrusted == true, "\(objects)")
    func token(_ ip: String?) -> WhatIfToken {
        var m = DirectoryMembership()
        m.ipAddress = ip
        return WhatIf.evaluate(WhatIfUnknownsTests.persona(member: m), p).apps[0].token
    }
    #expect(token("203.0.113.9").isAllowed)
    #expect(token("198.51.100.1").blockedBy == .accessBlocked)
    #expect(token(nil).depends)
}

/// [UG] A Microsoft365DSC export's groups (`AADGroup`: `MemberOf`, `GroupAsMembers`, `Members`
/// by display name and UPN) nest as Entra nests them: a policy on the parent covers a member of
/// a child group, and a user the export lists.
@Test func aDSCExportsGroupsNest() throws {
    let text = """
        AADGroup "AADGroup-Sales EMEA"
        {
            DisplayName     = "Sales EMEA";
            MemberOf        = @("All sales");
            Members         = @("lee@contoso.com");
            SecurityEnabled = $True;
            MailEnabled     = $False;
            Ensure          = "Present";
        }
        AADConditionalAccessPolicy "Block all sales"
        {
            BuiltInControls     = @("block");
            DisplayName         = "Block all sales";
            IncludeApplications = @("All");
            IncludeGroups       = @("All sales");
            State               = "enabled";
            Ensure              = "Present";
        }
        """
    var p = WhatIfPolicies()
    _ = try p.add(dscExport: text, source: "M365TenantConfig.ps1")
    #expect(WhatIf.evaluate(WhatIfUnknownsTests.persona(member: DirectoryMembership(groups: ["Sales EMEA"])), p).apps[0].token.blockedBy == .accessBlocked)
    #expect(WhatIf.evaluate(WhatIfUnknownsTests.persona(upn: "lee@contoso.com"), p).apps[0].token.blockedBy == .accessBlocked)
    #expect(WhatIf.evaluate(WhatIfUnknownsTests.persona(member: DirectoryMembership(groups: ["Marketing"])), p).apps[0].token.isAllowed)
}
