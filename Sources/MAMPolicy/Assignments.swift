/// One of a policy's `assignments` as Graph writes it (`targetedManagedAppPolicyAssignment`,
/// `managedAppPolicyAssignment`): a target, and the assignment filter narrowing it.
public struct PolicyAssignment: Sendable, Hashable {
    public enum Target: Sendable, Hashable {
        /// `#microsoft.graph.groupAssignmentTarget`
        case group(String)
        /// `#microsoft.graph.exclusionGroupAssignmentTarget`
        case exclusionGroup(String)
        /// `#microsoft.graph.allLicensedUsersAssignmentTarget`
        case allLicensedUsers
        /// `#microsoft.graph.allDevicesAssignmentTarget`: app protection targets users, so it
        /// reaches no one here (the importer warns).
        case allDevices
    }

    public enum FilterMode: String, Sendable, Hashable { case none, include, exclude }

    public var target: Target
    public var filterId: String?
    public var filterMode: FilterMode

    public init(_ target: Target, filterId: String? = nil, filterMode: FilterMode = .none) {
        self.target = target
        self.filterId = filterId
        self.filterMode = filterId == nil ? .none : filterMode
    }

    /// The target's `@odata.type` names, lowercased and without `#microsoft.graph.`.
    static let targetTypes: [String: String] = [
        "groupassignmenttarget": "group", "exclusiongroupassignmenttarget": "exclusionGroup",
        "alllicensedusersassignmenttarget": "allLicensedUsers", "alldevicesassignmenttarget": "allDevices",
    ]

    /// The assignments of a Graph `assignments` array. `path` names it in errors.
    package static func parse(_ value: GraphValue, _ path: String, _ c: inout GraphPolicyImporter.Context) throws(PolicyImportError) -> [PolicyAssignment] {
        guard case .array(let items) = value else { throw c.error(path, value, "an array of assignments") }
        var out: [PolicyAssignment] = []
        for (i, item) in items.enumerated() {
            let at = "\(path)[\(i)]"
            guard case .object(let dict) = item else { throw c.error(at, item, "an assignment object") }
            // An export may keep the target at the top (IntuneBackupAndRestore's flattened form) or under "target".
            let targetValue = dict["target"] ?? item
            guard case .object(let target) = targetValue else { throw c.error("\(at).target", targetValue, "an assignment target object") }
            guard case .string(let type)? = target["@odata.type"] else {
                throw c.error("\(at).target.@odata.type", target["@odata.type"] ?? .null, "the target's type, e.g. \"#microsoft.graph.groupAssignmentTarget\"")
            }
            func group() throws(PolicyImportError) -> String {
                if case .string(let id)? = target["groupId"], !id.isEmpty { return id }
                // IntuneCD's backups drop the id and keep the group's display name.
                if case .string(let name)? = target["groupName"], !name.isEmpty { return name }
                throw c.error("\(at).target.groupId", target["groupId"] ?? .null, "the id (or, in an IntuneCD backup, groupName) of the group \(type) names")
            }
            let kind: Target
            switch targetTypes[GraphPolicyImporter.bareTypeName(type)] {
            case "group": kind = .group(try group())
            case "exclusionGroup": kind = .exclusionGroup(try group())
            case "allLicensedUsers": kind = .allLicensedUsers
            case "allDevices":
                kind = .allDevices
                c.warn("\(at).target", "allDevicesAssignmentTarget: app protection policies are assigned to users (Microsoft Learn, app protection policies: \"assign the app protection policy to groups of users\"); this assignment reaches no persona")
            default:
                throw c.error("\(at).target.@odata.type", .string(type), "one of #microsoft.graph.groupAssignmentTarget, exclusionGroupAssignmentTarget, allLicensedUsersAssignmentTarget, allDevicesAssignmentTarget")
            }
            var (filterId, mode) = try filter(of: target, at, &c)
            if case .exclusionGroup = kind, filterId != nil {
                c.warn("\(at).target", "an exclusion group's filter is ignored: Intune does not apply filters to excluded groups")
                filterId = nil
                mode = .none
            }
            out.append(PolicyAssignment(kind, filterId: filterId, filterMode: mode))
        }
        return out
    }

    /// The assignment filter a target names (the all-zero id is none) and its mode.
    static func filter(of target: [String: GraphValue], _ at: String, _ c: inout GraphPolicyImporter.Context) throws(PolicyImportError) -> (String?, FilterMode) {
        var filterId: String?
        if case .string(let f)? = target["deviceAndAppManagementAssignmentFilterId"], !f.isEmpty, f != "00000000-0000-0000-0000-000000000000" { filterId = f }
        var mode = PolicyAssignment.FilterMode.none
        if let m = target["deviceAndAppManagementAssignmentFilterType"], m != .null {
            guard case .string(let s) = m, let parsed = FilterMode(rawValue: s.lowercased()) else {
                throw c.error("\(at).target.deviceAndAppManagementAssignmentFilterType", m, "none, include or exclude")
            }
            mode = parsed
        }
        if let filterId, mode == .none {
            throw c.error("\(at).target.deviceAndAppManagementAssignmentFilterType", target["deviceAndAppManagementAssignmentFilterType"] ?? .null,
                          "include or exclude, since the assignment names filter \(filterId)")
        }
        return (filterId, mode)
    }
}

/// Who a persona is in the directory: the groups it belongs to (by id or display name) and
/// its directory roles (for conditional access's `includeRoles`).
public struct DirectoryMembership: Sendable, Hashable {
    public var groups: Set<String>
    public var roles: Set<String>
    /// The groups as the persona names them, for reports.
    public var named: [String]
    /// Entra ID Protection's sign-in and user risk (`none`, `low`, `medium`, `high`, lowercased),
    /// where the persona says it; `nil` is unknown.
    public var signInRisk: String?
    public var userRisk: String?
    /// What a sign-in would carry, where the persona says it (`nil`: unknown), for
    /// conditional access's other conditions (Graph `signInConditions`): Microsoft Purview's
    /// insider risk (`minor`, `moderate`, `elevated`); the named location (id or display name)
    /// it comes from, its country (ISO 3166 alpha-2) and IP address; the client app type
    /// (`browser`, `mobileAppsAndDesktopClients`, `exchangeActiveSync`, `other`); the
    /// authentication flow (`none`, `deviceCodeFlow`, `authenticationTransfer`).
    public var insiderRisk: String?
    public var location: String?
    /// Whether the sign-in comes from a trusted named location (`AllTrusted`), where said.
    public var trustedLocation: Bool?
    public var country: String?
    public var ipAddress: String?
    public var clientApp: String?
    public var authenticationFlow: String?
    /// The user's type: a guest or external user type (`b2bCollaborationGuest`,
    /// `internalGuest`…), `member`, or `nil` where the persona says nothing.
    public var userType: String?

    public init(groups: some Sequence<String> = [], roles: some Sequence<String> = []) {
        self.named = Array(groups)
        self.groups = Set(groups.map { $0.lowercased() })
        self.roles = Set(roles.map { $0.lowercased() })
    }

    public func isMember(of group: String) -> Bool { groups.contains(group.lowercased()) }
}

/// Whether a policy's assignments reach a persona's app, and why.
public enum AssignmentResolution: Sendable, Hashable {
    case assigned(String)
    case notAssigned(String)
    case excluded(String)
    /// The inputs do not decide it (a filter reads what the persona does not say, or the
    /// assignments disagree where Microsoft does not document the rule).
    case undetermined(String)

    public var applies: Bool { if case .assigned = self { return true } else { return false } }

    public var reason: String {
        switch self {
        case .assigned(let r), .notAssigned(let r), .excluded(let r), .undetermined(let r): r
        }
    }
}

extension PolicyAssignment {
    /// Resolves `assignments` for a persona: exclusion beats inclusion (Microsoft Learn,
    /// "Include and exclude app assignments": "Exclusion takes precedence over inclusion");
    /// an included group's filter narrows it (include: where it matches, exclude: where not).
    /// `groupName` names a group id in reasons.
    public static func resolve(_ assignments: [PolicyAssignment], for member: DirectoryMembership, filters: [String: AssignmentFilter],
                               facts: ManagedAppFacts, groupName: (String) -> String = { $0 }) -> AssignmentResolution {
        if assignments.isEmpty { return .notAssigned("the policy has no assignments") }
        for a in assignments {
            if case .exclusionGroup(let g) = a.target, member.isMember(of: g) { return .excluded("excluded by group \(groupName(g))") }
        }
        var reaching: [(PolicyAssignment, String)] = []
        for a in assignments {
            switch a.target {
            case .group(let g) where member.isMember(of: g): reaching.append((a, "group \(groupName(g))"))
            case .allLicensedUsers: reaching.append((a, "all licensed users"))
            default: continue
            }
        }
        guard !reaching.isEmpty else {
            let named = assignments.compactMap { a -> String? in if case .group(let g) = a.target { return groupName(g) } else { return nil } }
            return .notAssigned(named.isEmpty ? "no assignment includes users" : "assigned to \(named.joined(separator: ", ")); the persona is in none")
        }
        var ins: [String] = [], outs: [String] = [], unknown: [String] = []
        var unknownExcludes = false
        for (a, via) in reaching {
            guard let id = a.filterId else { ins.append(via); continue }
            // IntuneCD writes the filter's display name where Graph has its id.
            guard let filter = filters[id.lowercased()] ?? filters.values.first(where: { $0.displayName.lowercased() == id.lowercased() }) else {
                unknown.append("\(via): filter \(id) is not among the filters given")
                unknownExcludes = unknownExcludes || a.filterMode == .exclude
                continue
            }
            let e = filter.rule.evaluate(facts)
            guard let matches = e.matches else {
                unknown.append("\(via), \(a.filterMode.rawValue) filter \"\(filter.title)\": \(e.reason)")
                unknownExcludes = unknownExcludes || a.filterMode == .exclude
                continue
            }
            let kept = a.filterMode == .exclude ? !matches : matches
            let said = "\(via), \(a.filterMode.rawValue) filter \"\(filter.title)\" \(matches ? "matches" : "does not match") (\(e.reason))"
            if kept { ins.append(said) } else { outs.append(said) }
        }
        switch (ins.isEmpty, outs.isEmpty, unknown.isEmpty) {
        case (false, true, true): return .assigned(ins.joined(separator: "; "))
        case (true, _, true): return .notAssigned(outs.joined(separator: "; "))
        case (true, _, false): return .undetermined(unknown.joined(separator: "; "))
        // In by one assignment, and the others undecided only by include filters: in either way.
        case (false, true, false) where !unknownExcludes: return .assigned(ins.joined(separator: "; "))
        default:
            // Assignments that disagree: one takes the persona in, another leaves it out (or may).
            return .undetermined("the policy's assignments disagree: in by \(ins.joined(separator: "; ")), out by \((outs + unknown).joined(separator: "; ")); "
                                 + "Microsoft Learn documents how one policy's filters combine for managed devices (exclude wins), not for managed apps")
        }
    }
}
