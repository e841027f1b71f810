import MAMModel
public import MAMPolicy

extension WhatIfPolicies {
    /// Adds every object of a Graph document (one object, an array or `{"value": [...]}`) by
    /// its `@odata.type` — iOS app protection, targeted app configuration, conditional access,
    /// assignment filters, groups — or, without one, by the properties only that kind has.
    /// Objects of other kinds (Android policies, device filters) are returned as skipped, with
    /// why; `source` names the file in errors and warnings.
    public mutating func add(document bytes: [UInt8], source: String) throws(PolicyImportError) -> (warnings: [String], skipped: [String]) {
        let root = try GraphValue.parse(bytes, source: source)
        let objects = try Self.objects(of: root, source: source)
        var warnings: [String] = [], skipped: [String] = []
        if let (policyId, found) = try Self.assignmentCollection(root, objects, source: source) {
            pendingAssignments.append((policyId, found, source))
            return (warnings, skipped)
        }
        for (index, object) in objects.enumerated() {
            guard case .object(let dict) = object else { continue }
            let place = objects.count > 1 ? "\(source), object \(index)" : source
            var name = ""
            if case .string(let n)? = dict["displayName"] { name = n }
            switch Self.kind(of: dict) {
            case "iosmanagedappprotection": warnings += try addProtection(object, source: place)
            case "targetedmanagedappconfiguration":
                let r = try GraphAppConfigImporter.importConfigurations(object, source: place)
                appConfigs += r.configurations
                warnings += r.warnings.map(\.message)
            case "conditionalaccesspolicy": warnings += try addConditionalAccess(object, source: place)
            case "deviceandappmanagementassignmentfilter":
                switch try AssignmentFilter.importFilter(dict, source: place) {
                case .success(let f): filters[f.id.lowercased()] = f
                case .failure(let why): skipped.append("\(place) (\"\(name)\"): \(why)")
                }
            case "group": addGroup(dict, name: name)
            case "ipnamedlocation", "countrynamedlocation", "namedlocation", "compliantnetworknamedlocation": addNamedLocation(dict, name: name)
            case let other:
                if let platform = Self.otherPlatform[other] { otherPlatformProtections[platform, default: []].append(name.isEmpty ? place : name) }
                skipped.append("\(place)\(name.isEmpty ? "" : " (\"\(name)\")"): \(other.isEmpty ? "not a kind whatif reads (no @odata.type, and not recognised by its properties)" : "#microsoft.graph.\(other) is not read by whatif")")
            }
        }
        return (warnings, skipped)
    }

    /// An iOS app protection policy of a document or export, added; its warnings.
    mutating func addProtection(_ object: GraphValue, source: String) throws(PolicyImportError) -> [String] {
        let r = try GraphPolicyImporter.importPolicies(object, source: source)
        protections += r.policies
        return r.warnings.map(\.message)
    }

    /// A conditional access policy of a document or export, added; its warnings but the
    /// scenario's remark on groups and roles: What If judges every persona's membership.
    mutating func addConditionalAccess(_ object: GraphValue, source: String) throws(PolicyImportError) -> [String] {
        let (ca, w) = try GraphConditionalAccessImporter.importPolicies(object, source: source)
        conditionalAccess += ca
        // What If judges memberships, and the conditions a device cannot know, from the
        // personas, and says in its answers what it could not: the scenario's remarks are not its.
        return w.filter { $0.kind != .membershipNeedsDeclaredAccounts && $0.kind != .judgedByWhatIf }.map(\.message)
    }

    /// The objects a document holds: an array of them, Graph's collection answer
    /// `{"value": [...]}`, its answer for one object `{"value": {...}}`, or one object.
    static func objects(of root: GraphValue, source: String) throws(PolicyImportError) -> [GraphValue] {
        switch root {
        case .array(let items): return items
        case .object(let dict):
            switch dict["value"] {
            case .array(let items)? where dict.keys.allSatisfy({ $0 == "value" || $0.hasPrefix("@") }): return items
            case .object(let one)? where dict.keys.allSatisfy({ $0 == "value" || $0.hasPrefix("@") }): return [.object(one)]
            default: return [root]
            }
        default:
            throw PolicyImportError(source: source, property: nil, value: root.description, message: "\(source) must hold a Graph object, an array of them or {\"value\": [...]}, but it holds \(root.kindName)")
        }
    }

    /// A document of one policy's assignments alone (IntuneBackupAndRestore keeps them in
    /// `…/Assignments/<policyId> - <name>.json`, as Graph's `/assignments` answers): the policy's
    /// id (from the items' `sourceId`, else the file name) and the assignments; `nil` otherwise.
    static func assignmentCollection(_ root: GraphValue, _ objects: [GraphValue], source: String) throws(PolicyImportError) -> (String, [PolicyAssignment])? {
        var context = ""
        if case .object(let d) = root, case .string(let c)? = d["@odata.context"] { context = c.lowercased() }
        let items = objects.compactMap { o -> [String: GraphValue]? in if case .object(let d) = o { return d } else { return nil } }
        let looksLikeAssignments = !items.isEmpty && items.allSatisfy { $0["target"] != nil && $0["displayName"] == nil && GraphPolicyImporter.odataType($0) == nil }
        guard context.hasSuffix("/assignments") || looksLikeAssignments else { return nil }
        var c = GraphPolicyImporter.Context(place: source, source: source)
        let assignments = try PolicyAssignment.parse(.array(objects), "value", &c)
        var policyId: String?
        for item in items { if case .string(let s)? = item["sourceId"], !s.isEmpty { policyId = s; break } }
        if policyId == nil {
            let file = source.split(separator: "/").last.map(String.init) ?? source
            let chars = Array(file)
            if let i = chars.indices.first(where: { chars[$0...].starts(with: [" ", "-", " "]) }) { policyId = String(chars[..<i]) }
        }
        guard let policyId else {
            throw PolicyImportError(source: source, property: nil, value: nil, message: "\(source) holds assignments but names no policy: neither a sourceId in them nor a file name \"<policyId> - <name>.json\"")
        }
        return (policyId, assignments)
    }

    /// Gives the assignments read from files of their own to their policies (by id); what
    /// matches no policy is returned, to be reported.
    public mutating func attachAssignments() -> [String] {
        var unmatched: [String] = []
        for (policyId, found, source) in pendingAssignments {
            let key = policyId.lowercased()
            if let i = protections.firstIndex(where: { $0.id?.lowercased() == key }) {
                protections[i].assignments += found
            } else {
                unmatched.append("\(source): assignments of policy \(policyId), which no iosManagedAppProtection read has as its id")
            }
        }
        pendingAssignments = []
        return unmatched
    }

    /// The lowercased type name (`iosmanagedappprotection`), from `@odata.type` or the keys only
    /// that kind has; "" when neither says.
    static func kind(of dict: [String: GraphValue]) -> String {
        if let t = GraphPolicyImporter.odataType(dict) { return GraphPolicyImporter.bareTypeName(t) }
        if dict["rule"] != nil, dict["platform"] != nil { return "deviceandappmanagementassignmentfilter" }
        if dict["conditions"] != nil, dict["grantControls"] != nil || dict["sessionControls"] != nil { return "conditionalaccesspolicy" }
        if dict["customSettings"] != nil { return "targetedmanagedappconfiguration" }
        if dict["allowedOutboundDataTransferDestinations"] != nil, dict["faceIdBlocked"] != nil { return "iosmanagedappprotection" }
        if dict["securityEnabled"] != nil, dict["mailEnabled"] != nil { return "group" }
        if dict["ipRanges"] != nil { return "ipnamedlocation" }
        if dict["countriesAndRegions"] != nil { return "countrynamedlocation" }
        return ""
    }

    /// App protection kinds of other platforms, by the platform a persona names.
    static let otherPlatform = ["androidmanagedappprotection": "android", "windowsmanagedappprotection": "windows",
                                "windowsinformationprotectionpolicy": "windows", "mdmwindowsinformationprotectionpolicy": "windows"]

    static func displayName(_ dict: [String: GraphValue]) -> String {
        if case .string(let n)? = dict["displayName"] { return n }
        return ""
    }
}

extension AssignmentFilter {
    /// A Graph `deviceAndAppManagementAssignmentFilter`: a managed-app filter for iOS, or
    /// `.failure` saying why it is not one (a device filter, another platform). A rule that does
    /// not parse is an error naming the file, filter and column.
    static func importFilter(_ dict: [String: GraphValue], source: String) throws(PolicyImportError) -> Result<AssignmentFilter, SkipReason> {
        func text(_ key: String) -> String? { if case .string(let s)? = dict[key] { return s } else { return nil } }
        let name = text("displayName") ?? ""
        // IntuneCD's backups drop ids; its assignments then name the filter by display name.
        guard let id = text("id").flatMap({ $0.isEmpty ? nil : $0 }) ?? (name.isEmpty ? nil : name) else {
            throw PolicyImportError(source: source, property: "id", value: dict["id"]?.description, message: "\(source): a filter has neither id nor displayName, which assignments name it by")
        }
        let platform = text("platform") ?? ""
        if let management = text("assignmentFilterManagementType"), management.lowercased() != "apps" {
            return .failure(SkipReason("a filter for managed devices (assignmentFilterManagementType \(management)); app protection reads managed-app filters"))
        }
        guard platform.lowercased() == "iosmobileapplicationmanagement" else {
            return .failure(SkipReason("platform \(platform.isEmpty ? "(none)" : platform), not iOSMobileApplicationManagement"))
        }
        guard let rule = text("rule") else {
            throw PolicyImportError(source: source, property: "rule", value: dict["rule"]?.description, message: "\(source): filter \"\(name)\" has no rule")
        }
        do {
            return .success(try AssignmentFilter(id: id, displayName: name, platform: platform, rule: rule, source: "\(source): filter \"\(name)\" rule"))
        } catch {
            throw PolicyImportError(source: source, property: "rule", value: rule, message: "\(error); the rule: \(rule)")
        }
    }

    struct SkipReason: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }
}
