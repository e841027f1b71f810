public import MAMModel
public import MAMPolicy

/// A person an admin asks "what if" about: a user in some groups, on a device, with apps.
public struct WhatIfPersona: Sendable, Hashable {
    public struct App: Sendable, Hashable {
        public var bundleID: BundleID
        /// `CFBundleShortVersionString`, for `app.appVersion` and conditional launch.
        public var version: String?
        public var sdkIntegrated: Bool
        public var mdmManaged: Bool
        /// MSAL client capabilities; an SDK app declares `protapp` unless told otherwise.
        public var capabilities: [String]
        /// The client app type its sign-ins carry (`browser`, `mobileAppsAndDesktopClients`,
        /// `exchangeActiveSync`, `other`); `nil`: known from the bundle id (`WhatIf.clientApp`).
        public var clientApp: String?

        public init(_ bundleID: BundleID, version: String? = nil, sdkIntegrated: Bool = true, mdmManaged: Bool = false, capabilities: [String]? = nil) {
            self.bundleID = bundleID
            self.version = version
            self.sdkIntegrated = sdkIntegrated
            self.mdmManaged = mdmManaged
            self.capabilities = capabilities ?? (sdkIntegrated ? [Enforcer.protectionCapability] : [])
        }
    }

    public var name: String
    public var user: Account
    public var member: DirectoryMembership
    public var device: DeviceFacts
    /// `app.deviceManagementType`: `Unmanaged` or `Managed` from `device.mdmEnrolled` unless an
    /// enrollment type is given.
    public var managementType: String
    public var apps: [App]
    /// The resource a token is asked for (an Entra application id), for conditional access.
    public var resource: String
    /// Where the persona's groups are written (`file:line`), for messages about them.
    public var groupsAt: String = ""

    public init(name: String, user: Account, member: DirectoryMembership = DirectoryMembership(), device: DeviceFacts = DeviceFacts(),
                managementType: String? = nil, apps: [App], resource: String = WhatIfPersona.office365) {
        self.name = name
        self.user = user
        self.member = member
        self.device = device
        self.managementType = managementType ?? (device.mdmEnrolled ? ManagementTypeValues.managed : ManagementTypeValues.unmanaged)
        self.apps = apps
        self.resource = resource
    }

    /// Office 365 Exchange Online, the resource a mail app asks for.
    public static let office365 = "00000002-0000-0ff1-ce00-000000000000"

    /// An iPhone or iPad: what app protection here evaluates.
    var isIOS: Bool { ["ios", "ipados"].contains(device.platform.lowercased()) }

    func facts(_ app: App) -> ManagedAppFacts {
        ManagedAppFacts(managementType: managementType, appVersion: app.version, operatingSystemVersion: device.osVersion.description,
                        deviceModel: device.model, deviceManufacturer: "Apple")
    }
}

/// The policies an admin's change is about, as Graph exports them.
public struct WhatIfPolicies: Sendable {
    public var protections: [IosManagedAppProtection]
    public var appConfigs: [AppConfigPolicy]
    public var conditionalAccess: [ConditionalAccessPolicy]
    /// Managed-app assignment filters by id (lowercased).
    public var filters: [String: AssignmentFilter]
    /// Group display names by id (lowercased), for reasons and for personas that name groups.
    public var groupNames: [String: String]
    /// Named locations by id and by display name (lowercased), for conditional access's locations.
    public var namedLocations: [String: NamedLocation] = [:]
    /// App protection policies of other platforms the input holds, by platform (`Android`,
    /// `Windows`): not evaluated, named where a persona of that platform is.
    public var otherPlatformProtections: [String: [String]] = [:]
    /// The nesting and memberships a groups export lists.
    public var directory = GroupDirectory()
    /// Assignments read from files of their own, until `attachAssignments` gives them to their policy.
    var pendingAssignments: [(policyId: String, assignments: [PolicyAssignment], source: String)] = []

    public init(protections: [IosManagedAppProtection] = [], appConfigs: [AppConfigPolicy] = [], conditionalAccess: [ConditionalAccessPolicy] = [],
                filters: [AssignmentFilter] = [], groupNames: [String: String] = [:]) {
        self.protections = protections
        self.appConfigs = appConfigs
        self.conditionalAccess = conditionalAccess
        self.filters = Dictionary(filters.map { ($0.id.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        self.groupNames = Dictionary(groupNames.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    func groupName(_ id: String) -> String {
        groupNames[id.lowercased()].map { "\"\($0)\"" } ?? id
    }

    /// Every group and role a policy or configuration names (lowercased): what of a persona's
    /// membership can change a decision.
    func namedGroupsAndRoles() -> (groups: Set<String>, roles: Set<String>) {
        var groups = Set<String>(), roles = Set<String>()
        func add(_ assignments: [PolicyAssignment]) {
            for a in assignments {
                switch a.target {
                case .group(let g), .exclusionGroup(let g): groups.insert(g.lowercased())
                default: continue
                }
            }
        }
        protections.forEach { add($0.assignments) }
        appConfigs.forEach { add($0.assignments) }
        for c in conditionalAccess {
            groups.formUnion((c.includeGroups + c.excludeGroups).map { $0.lowercased() })
            roles.formUnion((c.includeRoles + c.excludeRoles).map { $0.lowercased() })
        }
        return (groups, roles)
    }

    /// Whether a policy names `user` itself (conditional access's users, a configuration's
    /// accounts): such a persona is not like any other.
    func namesUser(_ user: Account) -> Bool {
        conditionalAccess.contains { ($0.includeUsers + $0.excludeUsers).contains { user.matches($0) } }
            || appConfigs.contains { $0.accounts?.contains { user.matches($0) } ?? false }
    }

    /// The groups personas name that no policy names and no groups export knows: a typo, or
    /// a name where the policies have ids (pass the tenant's groups export beside them).
    public func unknownGroups(of personas: [WhatIfPersona]) -> [String] {
        let named = namedGroupsAndRoles().groups
        let known = named.union(groupNames.keys).union(groupNames.values.map { $0.lowercased() })
        var said = Set<String>()
        return personas.flatMap { p in
            p.member.named.filter { !known.contains($0.lowercased()) && said.insert($0.lowercased()).inserted }.map {
                "\(p.groupsAt.isEmpty ? "" : p.groupsAt + ": ")persona \"\(p.name)\": group \"\($0)\" is named by no policy and is in no groups export; if the policies name it by id, pass the tenant's groups (Graph /groups) beside them"
            }
        }
    }

    /// A persona's membership with every group it names by display name also known by id.
    func membership(_ m: DirectoryMembership) -> DirectoryMembership {
        var ids = m.groups
        for (id, name) in groupNames where m.groups.contains(name.lowercased()) { ids.insert(id) }
        var out = m
        out.groups = ids
        return out
    }
}
