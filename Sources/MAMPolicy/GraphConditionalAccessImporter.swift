/// Imports Microsoft Graph `conditionalAccessPolicy` documents (RULES.md §10): `displayName`,
/// `state`, `conditions.users` (`includeUsers`/`excludeUsers`: `All`, ids, UPNs),
/// `conditions.applications.includeApplications`, `grantControls` (`operator`,
/// `builtInControls`). UTF-8 or UTF-16, `@odata` annotations, `{"value": [...]}` collections.
/// Platforms (the device is an iPhone) and client app types (an app asking through MSAL) are
/// simulated, and so are device filters (on the device's facts); locations are not: a condition on
/// them is a warning.
public enum GraphConditionalAccessImporter {
    public static func importPolicies(_ bytes: [UInt8], source: String) throws(PolicyImportError) -> ([ConditionalAccessPolicy], [PolicyImportWarning]) {
        let root = try GraphValue.parse(bytes, source: source)
        return try importPolicies(root, source: source)
    }

    public static func importPolicies(_ root: GraphValue, source: String) throws(PolicyImportError) -> ([ConditionalAccessPolicy], [PolicyImportWarning]) {
        let (objects, isCollection) = try GraphAppConfigImporter.collection(root, source: source)
        var policies: [ConditionalAccessPolicy] = []
        var warnings: [PolicyImportWarning] = []
        for (index, object) in objects.enumerated() {
            guard case .object(let dict) = object else {
                throw PolicyImportError(source: source, property: nil, value: object.description,
                                        message: "\(source): item \(index) must be a conditionalAccessPolicy object, but it is \(object.description)")
            }
            var name = ""
            if case .string(let n)? = dict["displayName"] { name = n }
            let place = isCollection ? "\(source), object \(index)\(name.isEmpty ? "" : " (\"\(name)\")")" : source
            var c = GraphPolicyImporter.Context(place: place, source: source)
            policies.append(try importPolicy(dict, name: name, context: &c))
            warnings += c.warnings
        }
        return (policies, warnings)
    }

    static func strings(_ v: GraphValue?, _ path: String, _ c: inout GraphPolicyImporter.Context) throws(PolicyImportError) -> [String]? {
        guard let v else { return nil }
        if case .null = v { return nil }
        guard case .array(let items) = v else { throw c.error(path, v, "an array of strings") }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            guard case .string(let s) = item else { throw c.error("\(path)[\(i)]", item, "a string") }
            out.append(s)
        }
        return out
    }

    static func object(_ v: GraphValue?, _ path: String, _ c: inout GraphPolicyImporter.Context) throws(PolicyImportError) -> [String: GraphValue] {
        guard let v else { return [:] }
        if case .null = v { return [:] }
        guard case .object(let o) = v else { throw c.error(path, v, "an object") }
        return o
    }

    /// `conditions.devices`: a filter for devices (`deviceFilter` {mode, rule}), or the
    /// deprecated device states (`includeDevices`/`excludeDevices`, `include`/`excludeDeviceStates`:
    /// `All`; `Compliant`, `DomainJoined`).
    static func importDevices(_ conditions: [String: GraphValue], into p: inout ConditionalAccessPolicy, _ c: inout GraphPolicyImporter.Context) throws(PolicyImportError) {
        let devices = try object(conditions["devices"], "conditions.devices", &c)
        let filter = try object(devices["deviceFilter"], "conditions.devices.deviceFilter", &c)
        if !filter.isEmpty {
            guard case .string(let modeText)? = filter["mode"], let mode = ConditionalAccessDeviceFilter.Mode(rawValue: modeText.lowercased()) else {
                throw c.error("conditions.devices.deviceFilter.mode", filter["mode"] ?? .null, "include or exclude")
            }
            guard case .string(let rule)? = filter["rule"] else {
                throw c.error("conditions.devices.deviceFilter.rule", filter["rule"] ?? .null, "a rule such as device.trustType -eq \"ServerAD\"")
            }
            do {
                p.deviceFilter = try ConditionalAccessDeviceFilter(mode: mode, rule: rule, source: "\(c.place): conditions.devices.deviceFilter.rule")
            } catch {
                throw PolicyImportError(source: c.source, property: "conditions.devices.deviceFilter.rule", value: rule, message: error.description)
            }
        }
        for key in ["excludeDevices", "excludeDeviceStates"] {
            p.excludeDeviceStates += try strings(devices[key], "conditions.devices.\(key)", &c) ?? []
        }
        for state in p.excludeDeviceStates where !["compliant", "domainjoined"].contains(state.lowercased()) {
            c.warn("conditions.devices", "conditions.devices excludes \"\(state)\", which is not a device state Graph documents (Compliant, DomainJoined); it excludes nothing")
        }
    }

    static func importPolicy(_ dict: [String: GraphValue], name: String, context c: inout GraphPolicyImporter.Context) throws(PolicyImportError) -> ConditionalAccessPolicy {
        var p = ConditionalAccessPolicy(name: name.isEmpty ? "(unnamed)" : name)
        if case .string(let id)? = dict["id"] { p.id = id }
        if let v = dict["state"] {
            guard case .string(let s) = v, let state = ConditionalAccessPolicy.State.allCases.first(where: { $0.rawValue.lowercased() == s.lowercased() }) else {
                throw c.error("state", v, "one of enabled, disabled, enabledForReportingButNotEnforced")
            }
            p.state = state
        }
        let conditions = try object(dict["conditions"], "conditions", &c)
        let users = try object(conditions["users"], "conditions.users", &c)
        p.includeUsers = try strings(users["includeUsers"], "conditions.users.includeUsers", &c) ?? []
        p.excludeUsers = try strings(users["excludeUsers"], "conditions.users.excludeUsers", &c) ?? []
        p.includeGroups = try strings(users["includeGroups"], "conditions.users.includeGroups", &c) ?? []
        p.excludeGroups = try strings(users["excludeGroups"], "conditions.users.excludeGroups", &c) ?? []
        p.includeRoles = try strings(users["includeRoles"], "conditions.users.includeRoles", &c) ?? []
        p.excludeRoles = try strings(users["excludeRoles"], "conditions.users.excludeRoles", &c) ?? []
        p.includeGuests = try guests(users["includeGuestsOrExternalUsers"], "conditions.users.includeGuestsOrExternalUsers", &c)
        p.excludeGuests = try guests(users["excludeGuestsOrExternalUsers"], "conditions.users.excludeGuestsOrExternalUsers", &c)
        for (key, selection) in [("includeGuestsOrExternalUsers", p.includeGuests), ("excludeGuestsOrExternalUsers", p.excludeGuests)] where selection != nil {
            // Named, never dropped: a scenario's accounts are the tenant's own members.
            c.warn("conditions.users.\(key)", "conditions.users.\(key) selects guest and external user types; a scenario's accounts are the tenant's members, none of those types, so there it neither includes nor excludes them (mamsim whatif judges a persona's userType and a #EXT# UPN)",
                   kind: .judgedByWhatIf)
        }
        for key in ["includeGroups", "excludeGroups", "includeRoles", "excludeRoles"] {
            if let list = try strings(users[key], "conditions.users.\(key)", &c), !list.isEmpty {
                c.warn("conditions.users.\(key)", "conditions.users.\(key) is judged for the accounts that declare accounts[].groups / roles (v1.5) and by `mamsim whatif`; an account that declares neither is judged by includeUsers alone",
                       kind: .membershipNeedsDeclaredAccounts)
            }
        }
        let apps = try object(conditions["applications"], "conditions.applications", &c)
        p.includeApplications = try strings(apps["includeApplications"], "conditions.applications.includeApplications", &c) ?? []
        // Graph conditionalAccessApplications: included "unless explicitly excluded".
        p.excludeApplications = try strings(apps["excludeApplications"], "conditions.applications.excludeApplications", &c) ?? []
        for key in ["includeUserActions", "includeAuthenticationContextClassReferences"] {
            guard let v = apps[key], v != .null, v != .array([]) else { continue }
            p.notSimulated.append("conditions.applications.\(key)")
            c.warn("conditions.applications.\(key)", "conditions.applications.\(key) targets a user action or an authentication context, not a token for an app's resource: not simulated, the policy is judged as if it matched")
        }
        if let v = apps["applicationFilter"], v != .null, v != .object([:]) {
            p.notSimulated.append("conditions.applications.applicationFilter")
            c.warn("conditions.applications.applicationFilter", "conditions.applications.applicationFilter reads custom security attributes of the resource, unknown to the device: the policy is judged as if it matched")
        }
        let platforms = try object(conditions["platforms"], "conditions.platforms", &c)
        p.includePlatforms = try strings(platforms["includePlatforms"], "conditions.platforms.includePlatforms", &c) ?? []
        p.excludePlatforms = try strings(platforms["excludePlatforms"], "conditions.platforms.excludePlatforms", &c) ?? []
        p.clientAppTypes = try strings(conditions["clientAppTypes"], "conditions.clientAppTypes", &c) ?? []
        if !p.appliesToThisDevice {
            // A scenario's device is an iPhone whose apps ask through MSAL; What If's personas have
            // platforms and browsers of their own, and judge the condition for each.
            c.warn("conditions", "the policy's platforms or client app types leave out an iOS app asking through MSAL: it never applies on this device",
                   kind: .judgedByWhatIf)
        }
        p.signInRiskLevels = try strings(conditions["signInRiskLevels"], "conditions.signInRiskLevels", &c) ?? []
        p.userRiskLevels = try strings(conditions["userRiskLevels"], "conditions.userRiskLevels", &c) ?? []
        p.insiderRiskLevels = try strings(conditions["insiderRiskLevels"], "conditions.insiderRiskLevels", &c) ?? []
        for (key, levels) in [("signInRiskLevels", p.signInRiskLevels), ("userRiskLevels", p.userRiskLevels)] where !levels.isEmpty {
            c.warn("conditions.\(key)", "conditions.\(key) is judged where a persona of `mamsim whatif` says its risk (signInRisk:, userRisk:); elsewhere Entra ID Protection's risk is unknown to the device and the policy is judged as if it matched",
                   kind: .judgedByWhatIf)
        }
        let locations = try object(conditions["locations"], "conditions.locations", &c)
        p.includeLocations = try strings(locations["includeLocations"], "conditions.locations.includeLocations", &c) ?? []
        p.excludeLocations = try strings(locations["excludeLocations"], "conditions.locations.excludeLocations", &c) ?? []
        let flows = try object(conditions["authenticationFlows"], "conditions.authenticationFlows", &c)
        if case .string(let methods)? = flows["transferMethods"] {
            p.transferMethods = methods.split(separator: ",").map { $0.filter { !$0.isWhitespace } }.filter { !$0.isEmpty && $0.lowercased() != "none" }
        }
        if let v = conditions["clientApplications"], v != .null, v != .object([:]) { p.targetsWorkloadIdentities = true }
        // What the device cannot know: named, and judged as if it matched — never dropped unsaid.
        let unknowable = [
            ("locations", "named locations need the sign-in's network location, which the simulated device has none of"),
            ("clientApplications", "it selects workload identities, not users signing in to an app"),
            ("servicePrincipalRiskLevels", "it selects workload identities, not users signing in to an app"),
            ("insiderRiskLevels", "insider risk comes from Microsoft Purview, unknown to the device"),
            ("authenticationFlows", "the simulated sign-in has no device-code or transfer flow"),
            ("times", "time conditions are not simulated"),
        ]
        for (key, why) in unknowable {
            guard let v = conditions[key], v != .null, v != .array([]), v != .object([:]) else { continue }
            p.notSimulated.append("conditions.\(key)")
            c.warn("conditions.\(key)", "conditions.\(key) is not simulated (\(why)); the policy is judged as if it matched",
                   kind: ["locations", "insiderRiskLevels", "authenticationFlows", "clientApplications", "servicePrincipalRiskLevels"].contains(key) ? .judgedByWhatIf : .remark)
        }
        try importDevices(conditions, into: &p, &c)
        let grant = try object(dict["grantControls"], "grantControls", &c)
        p.builtInControls = try strings(grant["builtInControls"], "grantControls.builtInControls", &c) ?? []
        if let v = grant["operator"] {
            guard case .string(let op) = v, ["OR", "AND"].contains(op.uppercased()) else { throw c.error("grantControls.operator", v, "OR or AND") }
            p.requiresAll = op.uppercased() == "AND"
        }
        let unmet = [
            ("authenticationStrength", "the simulated sign-in has no authentication methods, so a required strength is judged as met"),
            ("termsOfUse", "terms of use are accepted outside the app; judged as met"),
            ("customAuthenticationFactors", "custom controls run outside the device; judged as met"),
        ]
        for (key, why) in unmet {
            guard let v = grant[key], v != .null, v != .array([]) else { continue }
            p.notSimulated.append("grantControls.\(key)")
            c.warn("grantControls.\(key)", "grantControls.\(key) is not simulated: \(why)")
        }
        p.sessionControls = try sessionControls(dict["sessionControls"], &c)
        if !p.sessionControls.isEmpty {
            c.warn("sessionControls", "sessionControls shape the session a token opens (\(p.sessionControls.joined(separator: ", "))), not whether it is issued: not simulated on the device; mamsim whatif names them in each answer",
                   kind: .judgedByWhatIf)
        }
        let known = ["block", "mfa", "compliantdevice", "domainjoineddevice", "approvedapplication", "compliantapplication", "passwordchange"]
        for control in p.builtInControls where !known.contains(control.lowercased()) {
            c.warn("grantControls.builtInControls", "\"\(control)\" is not a grant control Graph documents (block, mfa, compliantDevice, domainJoinedDevice, approvedApplication, compliantApplication, passwordChange); it is judged as met by the user")
        }
        return p
    }

    /// Graph `conditionalAccessGuestsOrExternalUsers` (`guestOrExternalUserTypes`, a comma list;
    /// `externalTenants`: `membershipKind` `all`, or `enumerated` with `members`).
    static func guests(_ v: GraphValue?, _ path: String, _ c: inout GraphPolicyImporter.Context) throws(PolicyImportError) -> ConditionalAccessPolicy.GuestSelection? {
        let o = try object(v, path, &c)
        guard case .string(let types)? = o["guestOrExternalUserTypes"] else { return nil }
        let list = types.split(separator: ",").map { $0.filter { !$0.isWhitespace } }.filter { !$0.isEmpty && $0.lowercased() != "none" }
        guard !list.isEmpty else { return nil }
        let tenants = try object(o["externalTenants"], "\(path).externalTenants", &c)
        var enumerated: [String]?
        if case .string(let kind)? = tenants["membershipKind"], kind.lowercased() == "enumerated" {
            enumerated = try strings(tenants["members"], "\(path).externalTenants.members", &c) ?? []
        }
        return ConditionalAccessPolicy.GuestSelection(types: list, tenants: enumerated)
    }

    /// Graph `conditionalAccessSessionControls`, each enabled control said as the Entra admin
    /// center names it.
    static func sessionControls(_ v: GraphValue?, _ c: inout GraphPolicyImporter.Context) throws(PolicyImportError) -> [String] {
        let o = try object(v, "sessionControls", &c)
        func enabled(_ key: String) -> [String: GraphValue]? {
            guard case .object(let control)? = o[key] else { return nil }
            if case .bool(false)? = control["isEnabled"] { return nil }
            return control
        }
        func text(_ d: [String: GraphValue], _ key: String) -> String? {
            switch d[key] {
            case .string(let s)?: s
            case .number(let n)?: String(Int(n))
            default: nil
            }
        }
        var out: [String] = []
        if let f = enabled("signInFrequency") {
            if text(f, "frequencyInterval")?.lowercased() == "everytime" { out.append("sign-in frequency: every time") } else {
                out.append("sign-in frequency: every \(text(f, "value") ?? "?") \(text(f, "type") ?? "hours")")
            }
        }
        if enabled("applicationEnforcedRestrictions") != nil { out.append("app enforced restrictions") }
        if let f = enabled("cloudAppSecurity") { out.append("Conditional Access App Control (\(text(f, "cloudAppSecurityType") ?? "monitor only"))") }
        if let f = enabled("persistentBrowser") { out.append("persistent browser session: \(text(f, "mode") ?? "always")") }
        if let f = enabled("continuousAccessEvaluation"), let mode = text(f, "mode") { out.append("continuous access evaluation: \(mode)") }
        if case .bool(true)? = o["disableResilienceDefaults"] { out.append("resilience defaults disabled") }
        if enabled("secureSignInSession") != nil { out.append("token protection (secure sign-in session)") }
        if enabled("globalSecureAccessFilteringProfile") != nil { out.append("Global Secure Access security profile") }
        return out
    }
}
