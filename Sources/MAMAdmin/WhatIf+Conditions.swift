import MAMModel
import MAMPolicy

/// Conditional access's conditions for one persona's sign-in, each matched, not matched or
/// unknown (Microsoft Learn, "Conditional Access What If tool": sign-in risk, user risk, insider
/// risk, locations and the like "can't be evaluated" without the sign-in's details; Graph
/// `whatIfAnalysisResult`: a policy that does not apply says why in `analysisReasons`).
extension WhatIf {
    /// One condition that does not take the sign-in in: its Graph `whatIfAnalysisReasons`
    /// member and why, said.
    struct Miss: Sendable, Hashable {
        var reason: String
        var why: String
    }

    /// One condition the persona does not say enough to judge: its Graph reason and what the
    /// answer depends on ("sign-in risk is high or medium").
    struct Unknown: Sendable, Hashable {
        var reason: String
        var what: String
    }

    /// A conditional access policy's conditions for a persona's app.
    struct CAJudgement: Sendable {
        var misses: [Miss] = []
        var unknowns: [Unknown] = []
        /// What the evaluation could not follow and says (a group whose members the export does not list).
        var notes: [String] = []

        var matches: Bool { misses.isEmpty && unknowns.isEmpty }
        var dependsOn: String { unknowns.map(\.what).joined(separator: " and ") }
    }

    /// Bundle ids of the browsers an iOS user signs in to web apps with: Entra's `browser`
    /// client app type (Learn, "Conditional Access: conditions → client apps").
    static let browsers: Set<String> = ["com.apple.mobilesafari", "com.microsoft.msedge", "com.google.chrome.ios", "org.mozilla.ios.firefox",
                                        "com.brave.ios.browser", "com.duckduckgo.mobile.ios", "com.opera.opera-touch", "com.apple.safari"]
    /// The built-in Mail app, which reaches Exchange Online over Exchange ActiveSync.
    static let activeSyncClients: Set<String> = ["com.apple.mobilemail"]

    /// The client app type a sign-in of `app` carries: what the persona (or the app) says, else a
    /// browser's bundle id is `browser`, the built-in Mail app `exchangeActiveSync`, and any other
    /// app asking through MSAL `mobileAppsAndDesktopClients`.
    static func clientApp(_ app: WhatIfPersona.App, _ member: DirectoryMembership) -> String {
        if let said = app.clientApp ?? member.clientApp { return said }
        let id = app.bundleID.rawValue.lowercased()
        if browsers.contains(id) { return "browser" }
        if activeSyncClients.contains(id) { return "exchangeActiveSync" }
        return "mobileAppsAndDesktopClients"
    }

    /// The user's type as conditional access's guest condition reads it: what the persona says
    /// (`guest` is a B2B collaboration guest), else a `#EXT#` UPN is a B2B collaboration guest,
    /// else a member (Learn, "Conditional Access: users and groups → guest or external users").
    static func userType(_ persona: WhatIfPersona, _ member: DirectoryMembership) -> String {
        if let said = member.userType?.lowercased() { return said == "guest" ? "b2bcollaborationguest" : said }
        return persona.user.upn.lowercased().contains("#ext#") ? "b2bcollaborationguest" : "member"
    }

    /// `p`'s conditions for `app` of `persona` (its state aside: `conditionalAccess` reads it).
    static func judge(_ p: ConditionalAccessPolicy, _ app: WhatIfPersona.App, _ persona: WhatIfPersona, _ member: DirectoryMembership,
                      _ policies: WhatIfPolicies) -> CAJudgement {
        var j = CAJudgement()
        if p.targetsWorkloadIdentities { j.misses.append(Miss(reason: "workloadIdentities", why: "it targets workload identities, not users")) }
        judgeUsers(p, persona, member, policies, &j)
        judgeApplications(p, persona, &j)
        if !p.applies(toPlatform: persona.device.platform) {
            j.misses.append(Miss(reason: "devicePlatform", why: "it does not cover a \(persona.device.platform) device"))
        }
        let (deviceIn, deviceWhy) = p.admits(persona.device)
        if !deviceIn { j.misses.append(Miss(reason: "devices", why: "it leaves the device out: \(deviceWhy ?? "")")) } else if let deviceWhy {
            // Why the device condition took the device in (a filter's rule read on it): said too.
            j.notes.append(deviceWhy)
        }
        let client = clientApp(app, member)
        let types = Set(p.clientAppTypes.map { $0.lowercased() })
        let eas = client == "exchangeActiveSync" && types.contains("eassupported")
        if !types.isEmpty, !types.contains("all"), !types.contains(client.lowercased()), !eas {
            j.misses.append(Miss(reason: "clientApps", why: "it covers \(p.clientAppTypes.joined(separator: ", ")), and \(app.bundleID) signs in as \(client)"))
        }
        judgeLocations(p, member, policies, &j)
        for (reason, levels, said, what) in [("signInRisk", p.signInRiskLevels, member.signInRisk, "sign-in risk"), ("userRisk", p.userRiskLevels, member.userRisk, "user risk"),
                                             ("insiderRisk", p.insiderRiskLevels, member.insiderRisk, "insider risk")] where !levels.isEmpty {
            let wanted = levels.map { $0.lowercased() }
            guard let said else { j.unknowns.append(Unknown(reason: reason, what: "\(what) is \(wanted.joined(separator: " or "))")); continue }
            if !wanted.contains(said.lowercased()) { j.misses.append(Miss(reason: reason, why: "\(what) \(said) is not \(wanted.joined(separator: " or "))")) }
        }
        if !p.transferMethods.isEmpty {
            if let flow = member.authenticationFlow {
                if !p.transferMethods.contains(where: { $0.lowercased() == flow.lowercased() }) {
                    j.misses.append(Miss(reason: "authenticationFlow", why: "the sign-in uses \(flow), not \(p.transferMethods.joined(separator: " or "))"))
                }
            } else {
                j.unknowns.append(Unknown(reason: "authenticationFlow", what: "the sign-in uses \(p.transferMethods.joined(separator: " or "))"))
            }
        }
        for extra in p.notSimulated {
            switch extra {
            case "conditions.applications.includeAuthenticationContextClassReferences":
                j.unknowns.append(Unknown(reason: "authenticationContext", what: "the app asks for the policy's authentication context"))
            case "conditions.applications.applicationFilter":
                j.unknowns.append(Unknown(reason: "application", what: "the resource's custom security attributes match the policy's application filter"))
            case "conditions.times":
                j.unknowns.append(Unknown(reason: "time", what: "the sign-in falls in the policy's times"))
            default: continue
            }
        }
        return j
    }

    /// Users, groups, roles and guest types: what the persona and the groups export say.
    static func judgeUsers(_ p: ConditionalAccessPolicy, _ persona: WhatIfPersona, _ member: DirectoryMembership, _ policies: WhatIfPolicies, _ j: inout CAJudgement) {
        let account = persona.user, type = userType(persona, member), guest = type != "member"
        func guestMatch(_ g: ConditionalAccessPolicy.GuestSelection?) -> Bool? {
            guard let g, guest, g.types.contains(type) else { return false }
            guard let tenants = g.tenants else { return true }
            guard !account.tenant.isEmpty else { return nil }
            return tenants.contains { $0.lowercased() == account.tenant.lowercased() }
        }
        var included = (p.includeUsers.contains { $0.lowercased() == "all" } && p.isOfTenant(account)) || p.includeUsers.contains { account.matches($0) }
            || (guest && p.includeUsers.contains { $0.lowercased() == "guestsorexternalusers" })
            || p.includeGroups.contains { member.isMember(of: $0) } || p.includeRoles.contains { member.roles.contains($0.lowercased()) }
        let excluded = p.excludeUsers.contains { account.matches($0) } || (guest && p.excludeUsers.contains { $0.lowercased() == "guestsorexternalusers" })
            || p.excludeGroups.contains { member.isMember(of: $0) } || p.excludeRoles.contains { member.roles.contains($0.lowercased()) }
        let guestIn = guestMatch(p.includeGuests), guestOut = guestMatch(p.excludeGuests)
        included = included || guestIn == true
        if excluded || guestOut == true {
            j.misses.append(Miss(reason: "users", why: "it excludes \(account.upn)"))
            return
        }
        // The guest's home tenant decides only where nothing else does: an include it alone
        // could make, or an exclude of a user included otherwise.
        if (guestIn == nil && !included) || (included && guestOut == nil) {
            j.unknowns.append(Unknown(reason: "users", what: "\(account.upn)'s home tenant (say tenant:) is one of the policy's external tenants"))
            return
        }
        guard included else {
            let unlisted = p.includeGroups.filter { !policies.listsMembers(of: $0) && !member.isMember(of: $0) }.map(policies.groupName)
            if !unlisted.isEmpty {
                j.notes.append("the groups export lists no members of \(unlisted.joined(separator: ", ")): a membership through a group nested in \(unlisted.count == 1 ? "it" : "them") is not known (export the groups with their members)")
            }
            j.misses.append(Miss(reason: "users", why: "it does not include \(account.upn)\(guest ? " (a guest, \(type))" : "")"))
            return
        }
    }

    static func judgeApplications(_ p: ConditionalAccessPolicy, _ persona: WhatIfPersona, _ j: inout CAJudgement) {
        let r = persona.resource.lowercased()
        let included = p.includeApplications.contains { $0.lowercased() == "all" || $0.lowercased() == r }
            || (p.includeApplications.contains { $0.lowercased() == "office365" } && ConditionalAccessPolicy.office365.contains(r))
        let excluded = p.excludeApplications.contains { $0.lowercased() == r }
            || (p.excludeApplications.contains { $0.lowercased() == "office365" } && ConditionalAccessPolicy.office365.contains(r))
        if p.includeApplications.isEmpty {
            j.misses.append(Miss(reason: p.notSimulated.contains("conditions.applications.includeUserActions") ? "userActions" : "application",
                                 why: "it targets a user action or an authentication context, not a token for \(persona.resource)"))
        } else if !included || excluded {
            j.misses.append(Miss(reason: "application", why: "it does not cover the resource \(persona.resource)"))
        }
    }

    /// Named locations: where the persona says the sign-in comes from (`location`, `country`,
    /// `ipAddress`, `trustedLocation`) against the export's named locations; unknown where it
    /// says nothing the condition reads.
    static func judgeLocations(_ p: ConditionalAccessPolicy, _ member: DirectoryMembership, _ policies: WhatIfPolicies, _ j: inout CAJudgement) {
        guard !p.includeLocations.isEmpty || !p.excludeLocations.isEmpty else { return }
        func isIn(_ ref: String) -> Bool? {
            let key = ref.lowercased()
            if key == "all" { return true }
            if key == "alltrusted" {
                if let trusted = member.trustedLocation { return trusted }
                if let said = member.location.flatMap({ policies.namedLocations[$0.lowercased()] }) { return said.isTrusted ? true : nil }
                // An export without its named locations says nothing of which are trusted.
                guard !policies.namedLocations.isEmpty else { return nil }
                let trusted = Set(policies.namedLocations.values.filter(\.isTrusted))
                let answers = trusted.map { $0.contains(ip: member.ipAddress, country: member.country) }
                return answers.contains(true) ? true : answers.allSatisfy { $0 == false } && member.ipAddress != nil ? false : nil
            }
            if let said = member.location?.lowercased(), said == key { return true }
            guard let location = policies.namedLocations[key] else {
                // A location the export does not describe: only the persona's own name for it decides.
                return member.location == nil ? nil : policies.namedLocations[member.location!.lowercased()].map { $0.id.lowercased() == key ? true : nil } ?? nil
            }
            if let said = member.location.flatMap({ policies.namedLocations[$0.lowercased()] }) {
                if said == location { return true }
                if location.isCountryLocation, let country = member.country { return location.countries.contains(country.uppercased()) }
                return location.isCountryLocation && !said.isCountryLocation && member.country == nil ? nil : false
            }
            return location.contains(ip: member.ipAddress, country: member.country)
        }
        func any(_ refs: [String]) -> Bool? {
            let answers = refs.map(isIn)
            return answers.contains(true) ? true : answers.contains(nil) ? nil : false
        }
        let included: Bool? = p.includeLocations.isEmpty ? true : any(p.includeLocations)
        let excluded: Bool? = p.excludeLocations.isEmpty ? false : any(p.excludeLocations)
        func named(_ refs: [String]) -> String {
            refs.map { r in
                switch r.lowercased() {
                case "all": "any location"
                case "alltrusted": "a trusted location"
                default: policies.namedLocations[r.lowercased()].map { "\"\($0.displayName)\"" } ?? "\"\(r)\""
                }
            }.joined(separator: " or ")
        }
        if included == false || excluded == true {
            j.misses.append(Miss(reason: "location", why: included == false ? "the sign-in is not from \(named(p.includeLocations))" : "it excludes \(named(p.excludeLocations)), where the sign-in comes from"))
        } else if included == nil || excluded == nil {
            var what = "the sign-in comes from " + (p.includeLocations.isEmpty ? "any location" : named(p.includeLocations))
            if p.includeLocations.map({ $0.lowercased() }) == ["all"], !p.excludeLocations.isEmpty { what = "the sign-in comes from" }
            if !p.excludeLocations.isEmpty { what += what.hasSuffix("from") ? " outside \(named(p.excludeLocations))" : " and not from \(named(p.excludeLocations))" }
            j.unknowns.append(Unknown(reason: "location", what: what + " (say location:, country: or ipAddress:)"))
        }
    }
}
