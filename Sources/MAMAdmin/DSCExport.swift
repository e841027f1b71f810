public import MAMPolicy
/// The resource blocks of a Microsoft365DSC export (`M365TenantConfig.ps1`), as far as
/// `whatif` reads them: `IntuneAppProtectionPolicyiOS`,
/// `IntuneDeviceAndAppManagementAssignmentFilter` and `AADConditionalAccessPolicy`, made into
/// the Graph objects they stand for.
///
/// A block is `ResourceType "Name" { Key = value; … }` with PowerShell values: `"…"` (backtick
/// escapes), `'…'`, `$True`/`$False`/`$null`, numbers, `@(…)` lists and `MSFT_Type{ … }` objects.
/// Both export generations are read: assignments as lists of group ids with `ExcludedGroups`
/// (before 2025), or as `MSFT_DeviceManagementConfigurationPolicyAssignments` objects.
enum DSCExport {
    indirect enum Value {
        case string(String), bool(Bool), number(Double), null
        case list([Value])
        case object(type: String, [(String, Value)])
        /// `$ConfigurationData.…`, `$Credential`: the connection, not the policy.
        case variable(String)
    }

    struct Block {
        var resource: String
        var name: String
        var properties: [(String, Value)]
        var line: Int
    }

    /// The Graph objects of `text`'s iOS app protection policies and assignment filters, and
    /// the blocks left out (other resources, `Ensure = "Absent"`), with why.
    static func graphObjects(_ text: String, source: String) throws(PolicyImportError) -> ([GraphValue], [String]) {
        var parser = Parser(text, source: source)
        var objects: [GraphValue] = [], skipped: [String] = []
        for block in try parser.blocks() {
            let props = Dictionary(block.properties.map { ($0.0.lowercased(), $0.1) }, uniquingKeysWith: { a, _ in a })
            if case .string(let e)? = props["ensure"], e.lowercased() == "absent" {
                skipped.append("\(source), line \(block.line): \(block.resource) \"\(block.name)\" has Ensure = \"Absent\" (it is being removed)")
                continue
            }
            switch block.resource {
            case "IntuneAppProtectionPolicyiOS": objects.append(protection(block, props))
            case "IntuneDeviceAndAppManagementAssignmentFilter": objects.append(filter(props))
            case "AADConditionalAccessPolicy": objects.append(conditionalAccess(block, props))
            case "AADNamedLocationPolicy": objects.append(namedLocation(block, props))
            case "AADGroup": objects.append(group(block, props))
            case "IntuneAppProtectionPolicyAndroid":
                objects.append(.object(["@odata.type": .string("#microsoft.graph.androidManagedAppProtection"), "displayName": .string(block.name)]))
            default: skipped.append("\(source), line \(block.line): \(block.resource) \"\(block.name)\" is not read by whatif")
            }
        }
        return (objects, skipped)
    }

    /// Whether the properties of a resource of `type` are read: Intune's, conditional access and
    /// what it names (named locations, groups and their nesting).
    static func reads(_ type: String) -> Bool {
        type.hasPrefix("Intune") || ["AADConditionalAccessPolicy", "AADNamedLocationPolicy", "AADGroup"].contains(type)
    }

    /// Properties of a block that are not Graph properties of the policy as they stand: how to
    /// connect (credentials, `Ensure`), and what is made into Graph's shape apart below (the id,
    /// the app list, the assignments).
    static let handledApart: Set<String> = ["ensure", "credential", "applicationid", "tenantid", "certificatethumbprint", "applicationsecret",
                                          "managedidentity", "accesstokens", "psdscrunascredential", "globaladminaccount", "identity", "id", "assignments", "excludedgroups", "apps"]

    /// Microsoft365DSC's `AADConditionalAccessPolicy` (its flat properties: `IncludeUsers`,
    /// `IncludeGroups`… by name as the export writes them, `BuiltInControls`,
    /// `GrantControlOperator`, `DeviceFilterMode`/`DeviceFilterRule`…) as Graph's
    /// `conditionalAccessPolicy`, which the conditional access importer reads.
    static func conditionalAccess(_ block: Block, _ props: [String: Value]) -> GraphValue {
        func list(_ key: String) -> GraphValue { .array(Self.list(props[key.lowercased()]).compactMap(graph)) }
        func string(_ key: String) -> GraphValue? { props[key.lowercased()].flatMap(graph) }
        func present(_ keys: [String]) -> Bool { keys.contains { !Self.list(props[$0.lowercased()]).isEmpty } }
        var conditions: [String: GraphValue] = [
            "users": .object(["includeUsers": list("IncludeUsers"), "excludeUsers": list("ExcludeUsers"), "includeGroups": list("IncludeGroups"),
                              "excludeGroups": list("ExcludeGroups"), "includeRoles": list("IncludeRoles"), "excludeRoles": list("ExcludeRoles")]),
            "applications": .object(["includeApplications": list("IncludeApplications"), "excludeApplications": list("ExcludeApplications"),
                                     "includeUserActions": list("IncludeUserActions")]),
            "clientAppTypes": list("ClientAppTypes"),
            "signInRiskLevels": list("SignInRiskLevels"),
            "userRiskLevels": list("UserRiskLevels"),
        ]
        if present(["IncludePlatforms", "ExcludePlatforms"]) {
            conditions["platforms"] = .object(["includePlatforms": list("IncludePlatforms"), "excludePlatforms": list("ExcludePlatforms")])
        }
        if present(["IncludeLocations", "ExcludeLocations"]) {
            conditions["locations"] = .object(["includeLocations": list("IncludeLocations"), "excludeLocations": list("ExcludeLocations")])
        }
        if let rule = string("DeviceFilterRule"), rule != .string("") {
            conditions["devices"] = .object(["deviceFilter": .object(["mode": string("DeviceFilterMode") ?? .string("include"), "rule": rule])])
        }
        var grant: [String: GraphValue] = ["builtInControls": list("BuiltInControls"), "customAuthenticationFactors": list("CustomAuthenticationFactors"),
                                           "termsOfUse": list("TermsOfUse")]
        if let op = string("GrantControlOperator") { grant["operator"] = op }
        if let strength = string("AuthenticationStrength"), strength != .string("") { grant["authenticationStrength"] = .object(["displayName": strength]) }
        // Guest types and session controls: kept in Graph's shape so the importer names them.
        var users: [String: GraphValue] = [:]
        if case .object(let o)? = conditions["users"] { users = o }
        for (side, graphKey) in [("Include", "includeGuestsOrExternalUsers"), ("Exclude", "excludeGuestsOrExternalUsers")] where present(["\(side)GuestOrExternalUserTypes"]) {
            let types = Self.strings(props["\(side)GuestOrExternalUserTypes".lowercased()])
            var selection: [String: GraphValue] = ["guestOrExternalUserTypes": .string(types.joined(separator: ","))]
            if case .string(let kind)? = props["\(side)ExternalTenantsMembershipKind".lowercased()], !kind.isEmpty {
                selection["externalTenants"] = .object(["membershipKind": .string(kind), "members": list("\(side)ExternalTenantsMembers")])
            }
            users[graphKey] = .object(selection)
        }
        conditions["users"] = GraphValue.object(users)
        addFlowsAndContexts(props, to: &conditions)
        var dict: [String: GraphValue] = ["@odata.type": .string("#microsoft.graph.conditionalAccessPolicy"),
                                          "displayName": string("DisplayName") ?? .string(block.name),
                                          "state": string("State") ?? .string("enabled"), "conditions": .object(conditions), "grantControls": .object(grant)]
        let session = sessionControls(props)
        if !session.isEmpty { dict["sessionControls"] = .object(session) }
        if let id = props["id"], case .string(let s) = id { dict["id"] = .string(s) }
        return .object(dict)
    }

    static func protection(_ block: Block, _ props: [String: Value]) -> GraphValue {
        var dict: [String: GraphValue] = ["@odata.type": .string("#microsoft.graph.iosManagedAppProtection")]
        let known = Dictionary(GraphPolicyImporter.properties.keys.map { ($0.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        for (key, value) in block.properties where !handledApart.contains(key.lowercased()) {
            guard let v = graph(value) else { continue }
            let name = known[key.lowercased()] ?? (key.prefix(1).lowercased() + key.dropFirst())
            dict[name] = duration(v)
        }
        if let id = props["id"] ?? props["identity"], case .string(let s) = id { dict["id"] = .string(s) }
        if case .list(let apps)? = props["apps"] {
            dict["apps"] = .array(apps.compactMap { a -> GraphValue? in
                guard case .string(let bundle) = a else { return nil }
                return .object(["mobileAppIdentifier": .object(["@odata.type": .string("#microsoft.graph.iosMobileAppIdentifier"), "bundleId": .string(bundle)])])
            })
        }
        var assignments: [GraphValue] = []
        func target(_ type: String, _ group: String) -> GraphValue {
            .object(["target": .object(["@odata.type": .string(type), "groupId": .string(group)])])
        }
        for a in list(props["assignments"]) {
            switch a {
            case .string(let group): assignments.append(target("#microsoft.graph.groupAssignmentTarget", group))
            case .object(_, let fields):
                var t: [String: GraphValue] = [:]
                for (k, v) in fields {
                    guard let g = graph(v) else { continue }
                    switch k.lowercased() {
                    case "datatype": t["@odata.type"] = g
                    case "groupid": t["groupId"] = g
                    case "groupdisplayname": t["groupName"] = g
                    case "deviceandappmanagementassignmentfiltertype": t["deviceAndAppManagementAssignmentFilterType"] = g
                    case "deviceandappmanagementassignmentfilterid": t["deviceAndAppManagementAssignmentFilterId"] = g
                    default: continue
                    }
                }
                if case .string(let id)? = t["groupId"], id.isEmpty { t["groupId"] = nil }
                assignments.append(.object(["target": .object(t)]))
            default: continue
            }
        }
        for group in list(props["excludedgroups"]) {
            if case .string(let g) = group { assignments.append(target("#microsoft.graph.exclusionGroupAssignmentTarget", g)) }
        }
        if !assignments.isEmpty { dict["assignments"] = .array(assignments) }
        return .object(dict)
    }

    /// `TransferMethods`, `InsiderRiskLevels` and `AuthenticationContexts` of a block, in
    /// Graph's conditions.
    static func addFlowsAndContexts(_ props: [String: Value], to conditions: inout [String: GraphValue]) {
        func list(_ key: String) -> [GraphValue] { Self.list(props[key]).compactMap(graph) }
        if case .string(let methods)? = props["transfermethods"], !methods.isEmpty {
            conditions["authenticationFlows"] = .object(["transferMethods": .string(methods)])
        }
        if !list("insiderrisklevels").isEmpty { conditions["insiderRiskLevels"] = .array(list("insiderrisklevels")) }
        if !list("authenticationcontexts").isEmpty, case .object(var apps)? = conditions["applications"] {
            apps["includeAuthenticationContextClassReferences"] = .array(list("authenticationcontexts"))
            conditions["applications"] = .object(apps)
        }
    }

    /// The flat session properties of an `AADConditionalAccessPolicy` block in Graph's
    /// `conditionalAccessSessionControls` shape.
    static func sessionControls(_ props: [String: Value]) -> [String: GraphValue] {
        func on(_ key: String) -> Bool { if case .bool(true)? = props[key] { true } else { false } }
        func text(_ key: String) -> GraphValue? { props[key].flatMap(graph).flatMap { $0 == .string("") ? nil : $0 } }
        var out: [String: GraphValue] = [:]
        if on("signinfrequencyisenabled") {
            var f: [String: GraphValue] = ["isEnabled": .bool(true)]
            if let v = text("signinfrequencyvalue") { f["value"] = v }
            if case .string(let t)? = text("signinfrequencytype") { f["type"] = .string(t.lowercased()) }
            if let i = text("signinfrequencyinterval") { f["frequencyInterval"] = i }
            out["signInFrequency"] = .object(f)
        }
        if on("persistentbrowserisenabled") { out["persistentBrowser"] = .object(["isEnabled": .bool(true), "mode": text("persistentbrowsermode") ?? .string("always")]) }
        if on("cloudappsecurityisenabled") {
            out["cloudAppSecurity"] = .object(["isEnabled": .bool(true), "cloudAppSecurityType": text("cloudappsecuritytype") ?? .string("monitorOnly")])
        }
        if on("applicationenforcedrestrictionsisenabled") { out["applicationEnforcedRestrictions"] = .object(["isEnabled": .bool(true)]) }
        if on("disableresiliencedefaults") { out["disableResilienceDefaults"] = .bool(true) }
        return out
    }

    /// Microsoft365DSC's `AADNamedLocationPolicy` (`OdataType`, `IpRanges` as CIDR strings,
    /// `IsTrusted`, `CountriesAndRegions`, `IncludeUnknownCountriesAndRegions`) as Graph's
    /// `ipNamedLocation` or `countryNamedLocation`.
    static func namedLocation(_ block: Block, _ props: [String: Value]) -> GraphValue {
        func strings(_ key: String) -> [String] { Self.strings(props[key]) }
        let ranges = strings("ipranges")
        var type = "#microsoft.graph." + (ranges.isEmpty ? "countryNamedLocation" : "ipNamedLocation")
        if case .string(let t)? = props["odatatype"], !t.isEmpty { type = t }
        var dict: [String: GraphValue] = ["@odata.type": .string(type), "displayName": props["displayname"].flatMap(graph) ?? .string(block.name),
                                          "ipRanges": .array(ranges.map { .object(["cidrAddress": .string($0)]) }),
                                          "countriesAndRegions": .array(strings("countriesandregions").map { .string($0) })]
        for (key, name) in [("id", "id"), ("istrusted", "isTrusted"), ("includeunknowncountriesandregions", "includeUnknownCountriesAndRegions")] {
            if let v = props[key].flatMap(graph) { dict[name] = v }
        }
        return .object(dict)
    }

    /// Microsoft365DSC's `AADGroup`: `Members` (UPNs), `GroupAsMembers` and `MemberOf` (groups
    /// by display name) as a Graph group with `members` and `memberOf`.
    static func group(_ block: Block, _ props: [String: Value]) -> GraphValue {
        func strings(_ key: String) -> [String] { Self.strings(props[key]) }
        let name: String = if case .string(let n)? = props["displayname"] { n } else { block.name }
        var id = name
        if case .string(let s)? = props["id"], !s.isEmpty { id = s }
        var dict: [String: GraphValue] = ["@odata.type": .string("#microsoft.graph.group"), "id": .string(id), "displayName": .string(name),
                                          "memberOf": .array(strings("memberof").map { .object(["id": .string($0)]) })]
        if props["members"] != nil || props["groupasmembers"] != nil {
            dict["members"] = .array(strings("members").map { .object(["@odata.type": .string("#microsoft.graph.user"), "userPrincipalName": .string($0)]) }
                + strings("groupasmembers").map { .object(["@odata.type": .string("#microsoft.graph.group"), "id": .string($0)]) })
        }
        return .object(dict)
    }

    static func filter(_ props: [String: Value]) -> GraphValue {
        var dict: [String: GraphValue] = ["@odata.type": .string("#microsoft.graph.deviceAndAppManagementAssignmentFilter")]
        for (key, name) in [("id", "id"), ("identity", "id"), ("displayname", "displayName"), ("description", "description"), ("platform", "platform"),
                            ("rule", "rule"), ("assignmentfiltermanagementtype", "assignmentFilterManagementType")] {
            if let v = props[key].flatMap(graph), dict[name] == nil { dict[name] = v }
        }
        return .object(dict)
    }

    /// The strings of a list value (or of one string).
    static func strings(_ v: Value?) -> [String] {
        list(v).compactMap { if case .string(let s) = $0 { s } else { nil } }
    }

    static func list(_ v: Value?) -> [Value] {
        switch v {
        case .list(let items)?: items
        case .string?: [v!]
        case .object?: [v!]
        default: []
        }
    }

    static func graph(_ v: Value) -> GraphValue? {
        switch v {
        case .string(let s): .string(s)
        case .bool(let b): .bool(b)
        case .number(let n): .number(n)
        case .null: .null
        case .list(let items): .array(items.compactMap(graph))
        case .object(_, let fields): .object(Dictionary(fields.compactMap { k, v in graph(v).map { (k.prefix(1).lowercased() + k.dropFirst(), $0) } }, uniquingKeysWith: { a, _ in a }))
        case .variable: nil
        }
    }

    /// A .NET TimeSpan (`12:00:00`, `90.00:00:00`), as older exports write durations, in ISO 8601.
    static func duration(_ v: GraphValue) -> GraphValue {
        guard case .string(let s) = v else { return v }
        let parts = s.split(separator: ":")
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isNumber || $0 == "." } }) else { return v }
        let dayHour = parts[0].split(separator: ".")
        guard let hours = Int(dayHour.last!), let minutes = Int(parts[1]), let seconds = Int(parts[2]) else { return v }
        let days = dayHour.count == 2 ? Int(dayHour[0]) ?? 0 : 0
        var out = "P" + (days > 0 ? "\(days)D" : "")
        if hours > 0 || minutes > 0 || seconds > 0 || days == 0 {
            out += "T" + (hours > 0 ? "\(hours)H" : "") + (minutes > 0 ? "\(minutes)M" : "") + (seconds > 0 || (hours == 0 && minutes == 0) ? "\(seconds)S" : "")
        }
        return .string(out)
    }
}

extension WhatIfPolicies {
    /// Adds the iOS app protection policies and assignment filters of a Microsoft365DSC export.
    public mutating func add(dscExport text: String, source: String) throws(PolicyImportError) -> (warnings: [String], skipped: [String]) {
        let (objects, skipped) = try DSCExport.graphObjects(text, source: source)
        var warnings: [String] = [], more: [String] = []
        for object in objects {
            guard case .object(let dict) = object else { continue }
            switch Self.kind(of: dict) {
            case "iosmanagedappprotection": warnings += try addProtection(object, source: source)
            case "conditionalaccesspolicy": warnings += try addConditionalAccess(object, source: source)
            case "group": addGroup(dict, name: Self.displayName(dict))
            case "ipnamedlocation", "countrynamedlocation", "compliantnetworknamedlocation": addNamedLocation(dict, name: Self.displayName(dict))
            case "androidmanagedappprotection":
                otherPlatformProtections["android", default: []].append(Self.displayName(dict))
                more.append("\(source): IntuneAppProtectionPolicyAndroid \"\(Self.displayName(dict))\" is not evaluated (iOS/iPadOS only); an Android persona names it")
            default:
                switch try AssignmentFilter.importFilter(dict, source: source) {
                case .success(let f): filters[f.id.lowercased()] = f
                case .failure(let why): more.append("\(source): \(why)")
                }
            }
        }
        return (warnings, skipped + more)
    }
}
