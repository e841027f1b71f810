public import MAMModel

/// The world a decision is made in: accounts with their policies, installed apps and
/// extensions, device facts and the allowed-accounts list. A plain value: the host builds it
/// from a scenario, changes it with the mutating methods and passes it to `Enforcer`.
///
/// Lookups are by precomputed folded keys (`Account.upnKey`/`oidKey`, `BundleID.folded`),
/// so deciding never lowercases a string.
public struct Fleet: Sendable {
    public var device: DeviceFacts
    /// The Intune service's time and the tenant facts enrollment reads.
    public var service = IntuneServiceSettings()
    /// `allowedAccounts` (UPNs) and `allowedAccountIds` (OIDs) merged; `nil` = not targeted.
    public var allowedAccounts: [String]? {
        didSet { allowedKeys = allowedAccounts.map { Set($0.map { $0.lowercased() }) } }
    }
    private(set) var allowedKeys: Set<String>?
    private var entries: [AccountEntry] = []
    private var index: [String: Int] = [:]
    public private(set) var apps: [BundleID: AppDescriptor] = [:]
    private var appEntries: [BundleID: AppEntry] = [:]
    /// The installed extensions by the app they name as containing app (installed or not).
    private var extensionsByContainer: [BundleID: Set<BundleID>] = [:]
    /// Per account (its key: `upnKey`, else `oidKey`), the apps where the SDK does not hold it
    /// enrolled although a policy targets it: its enrollment was refused (225, 212… the SDK
    /// tries again at its interval) or it was deregistered (unenroll, sign-out, the admin's
    /// wipe). App Protection isn't active for it there (memdocs
    /// app-protection-policy-delivery.md), nor in that app's extensions: every question —
    /// the policy asked, a share, a save, the enforcer's rules — reads it from here.
    public private(set) var inactive: [String: Set<BundleID>] = [:]

    public init(device: DeviceFacts = DeviceFacts(), allowedAccounts: [String]? = nil) {
        self.device = device
        self.allowedAccounts = allowedAccounts
        self.allowedKeys = allowedAccounts.map { Set($0.map { $0.lowercased() }) }
    }

    // MARK: Building

    /// Adds an account (or replaces the one with the same UPN or OID) with its policy.
    public mutating func add(_ account: Account, policy: IosManagedAppProtection? = nil) {
        add(AccountEntry(account: account, policy: policy))
    }

    /// Adds an account with several policies, each applying in the apps it targets (targets
    /// that overlap are a conflict the caller resolves first: where two target an app, the
    /// first listed is the one found).
    public mutating func add(_ account: Account, policies: [IosManagedAppProtection]) {
        add(AccountEntry(account: account, policies: policies))
    }

    private mutating func add(_ entry: AccountEntry) {
        let account = entry.account
        if let i = position(of: account) {
            entries[i] = entry
        } else {
            entries.append(entry)
        }
        reindex()
    }

    /// Targets `account` with `policy`, or untargets it (`nil`): the account becomes unmanaged.
    public mutating func setPolicy(_ policy: IosManagedAppProtection?, for account: Account) {
        let known = entry(for: account)?.account ?? account
        add(known, policy: policy)
    }

    /// The fleet as a view of several accounts sees it: `account`'s policy replaced by the SDK's
    /// standard lock-down policy (`Enforcer.lockDown`). Unchanged when `account` is unmanaged.
    public func lockingDown(_ account: Account) -> Fleet {
        guard let p = policy(for: account) else { return self }
        var f = self
        f.setPolicy(Enforcer.lockDown(p), for: account)
        return f
    }

    /// Installs (or replaces) an app or extension.
    public mutating func install(_ app: AppDescriptor) {
        forgetContainer(of: app.bundleID)
        apps[app.bundleID] = app
        if let container = app.containingApp { extensionsByContainer[container, default: []].insert(app.bundleID) }
        reindex(app.bundleID)
    }

    /// Installs (or replaces) several apps and extensions.
    public mutating func install(contentsOf apps: some Sequence<AppDescriptor>) {
        for app in apps { install(app) }
    }

    public mutating func uninstall(_ bundle: BundleID) {
        forgetContainer(of: bundle)
        apps[bundle] = nil
        reindex(bundle)
    }

    private mutating func forgetContainer(of bundle: BundleID) {
        guard let container = apps[bundle]?.containingApp else { return }
        extensionsByContainer[container]?.remove(bundle)
        if extensionsByContainer[container]?.isEmpty == true { extensionsByContainer[container] = nil }
    }

    /// Rebuilds the entries `bundle` changes: its own and those of the extensions it contains
    /// (an extension is managed as its containing app). Only those: rebuilding every entry on
    /// each install made a scenario's fleet quadratic to build (5,000 apps and 500 extensions
    /// took 11 s).
    private mutating func reindex(_ bundle: BundleID) {
        appEntries[bundle] = apps[bundle].map { AppEntry(app: $0, container: $0.containingApp.flatMap { apps[$0] }) }
        for id in extensionsByContainer[bundle] ?? [] {
            guard let ext = apps[id] else { continue }
            appEntries[id] = AppEntry(app: ext, container: apps[bundle])
        }
    }

    private func position(of account: Account) -> Int? {
        if !account.upnKey.isEmpty, let i = index[account.upnKey] { return i }
        if !account.oidKey.isEmpty, let i = index[account.oidKey] { return i }
        return nil
    }

    private mutating func reindex() {
        index = [:]
        for (i, e) in entries.enumerated() {
            if !e.account.upnKey.isEmpty { index[e.account.upnKey] = i }
            if !e.account.oidKey.isEmpty { index[e.account.oidKey] = i }
        }
    }

    /// Whether this fleet's accounts and policies are `other`'s very entries (the device facts,
    /// apps and enrollments may differ): a fleet the host changed only that way since it took it.
    public func sharesEntries(with other: Fleet) -> Bool {
        entries.count == other.entries.count && zip(entries, other.entries).allSatisfy { $0 === $1 }
    }

    /// This fleet with `other`'s accounts, policies and directory: what another start would be
    /// at this point, where the host changed only the device facts, apps and enrollments.
    public func withAccounts(of other: Fleet) -> Fleet {
        var f = self
        (f.entries, f.index, f.directory) = (other.entries, other.index, other.directory)
        return f
    }

    // MARK: Looking up

    /// Every account, in the order added.
    public var accounts: [Account] { entries.map(\.account) }

    /// The directory groups and roles of the accounts that declare them (by folded UPN and OID).
    private var directory: [String: DirectoryMembership] = [:]

    /// Records `account`'s groups and roles, for conditional access.
    public mutating func setMembership(_ member: DirectoryMembership, of account: Account) {
        if !account.upnKey.isEmpty { directory[account.upnKey] = member }
        if !account.oidKey.isEmpty { directory[account.oidKey] = member }
    }

    /// `account`'s groups and roles, `nil` when it declares none (its groups are then unknown,
    /// and conditional access judges it by its users alone).
    public func membership(of account: Account) -> DirectoryMembership? {
        directory[account.upnKey] ?? (account.oidKey.isEmpty ? nil : directory[account.oidKey])
    }

    /// The account a UPN or OID names, in any letter case.
    public func account(named key: String) -> Account? {
        index[key.lowercased()].map { entries[$0].account }
    }

    /// The fleet's entry for `account` (matched by UPN, else OID).
    public func entry(for account: Account) -> AccountEntry? {
        position(of: account).map { entries[$0] }
    }

    /// The policy targeting `account`, `nil` when unmanaged or unknown.
    public func policy(for account: Account?) -> IosManagedAppProtection? {
        guard let account else { return nil }
        return entry(for: account)?.policy
    }

    /// Whether `account` is managed (targeted by a policy). `nil` and `""` are unmanaged.
    public func isManaged(_ account: Account?) -> Bool {
        // Through the entry's flag: returning the policy would copy a hundred-field value.
        guard let account else { return false }
        return entry(for: account)?.isManaged ?? false
    }

    /// The managed entry for `account`, or `nil` when it is unmanaged.
    func managedEntry(_ account: Account?) -> AccountEntry? {
        guard let account, !account.isEmpty, let e = entry(for: account), e.isManaged else { return nil }
        return e
    }

    public func app(_ bundle: BundleID) -> AppDescriptor? { apps[bundle] }

    package func appEntry(_ bundle: BundleID) -> AppEntry? { appEntries[bundle] }

    /// Whether `app` is policy-managed for the account of `entry`: it (for an extension, its
    /// containing app) integrates the SDK and the account's policy — or one of its others —
    /// targets it (RULES.md §1).
    func isPolicyManaged(_ app: AppEntry, for entry: AccountEntry) -> Bool {
        if targets(entry, app) { return true }
        return !entry.siblings.isEmpty && isTargetedBySibling(app, of: entry)
    }

    /// Out of line: only an account with several policies (`whatif`) gets here.
    @inline(never)
    private func isTargetedBySibling(_ app: AppEntry, of entry: AccountEntry) -> Bool {
        entry.siblings.contains { targets($0, app) }
    }

    /// Whether `entry`'s own policy targets `app` (its account's others aside). While a run's
    /// reads are recorded, a decision of its own (`PolicyReads`), asked again with the entry of
    /// the same account (or the same other policy of it) in another fleet.
    @inline(__always)
    func targets(_ entry: AccountEntry, _ app: AppEntry) -> Bool {
        if _slowPath(policyReadsRecording) { return recordedTargets(entry, app) }
        return targetsUnrecorded(entry, app)
    }

    @inline(never)
    private func recordedTargets(_ entry: AccountEntry, _ app: AppEntry) -> Bool {
        let place = self.place(of: entry), bundle = app.bundleID
        return PolicyReads.decision(in: self, live: {
            PolicyReads.note(AccountEntry.targetingFields)
            return targetsUnrecorded(entry, app)
        }, again: { fleet in
            guard let place, let e = fleet.entry(at: place), let a = fleet.appEntry(bundle) else { return nil }
            return fleet.targetsUnrecorded(e, a)
        })
    }

    /// Where `entry` is in this fleet: its account, and which of the account's other policies
    /// it is (`nil`: the first); `nil` for an entry not in the fleet.
    private func place(of entry: AccountEntry) -> EntryPlace? {
        guard let first = self.entry(for: entry.account) else { return nil }
        if first === entry { return EntryPlace(account: entry.account, sibling: nil) }
        return first.siblings.firstIndex { $0 === entry }.map { EntryPlace(account: entry.account, sibling: $0) }
    }

    private func entry(at place: EntryPlace) -> AccountEntry? {
        guard let first = entry(for: place.account) else { return nil }
        guard let i = place.sibling else { return first }
        return i < first.siblings.count ? first.siblings[i] : nil
    }

    private struct EntryPlace: Sendable {
        let account: Account
        let sibling: Int?
    }

    @inline(__always)
    private func targetsUnrecorded(_ entry: AccountEntry, _ app: AppEntry) -> Bool {
        entry.isManaged && app.managementSDK && entry.takes(app)
    }

    /// The entry of the account's policy that applies in `app`: `entry` (the account's first)
    /// or one of its others; `nil` when none targets the app. In line: each transfer decision
    /// asks twice, and an account has one policy but in `whatif`.
    @inline(__always)
    func policyEntry(_ entry: AccountEntry, in app: AppEntry) -> AccountEntry? {
        if targets(entry, app) { return entry }
        return entry.siblings.isEmpty ? nil : siblingTargeting(app, of: entry)
    }

    /// `policyEntry`, where the app holds the account enrolled: `nil` where it was deregistered
    /// or its enrollment refused (RULES.md §1).
    func enrolledPolicyEntry(_ entry: AccountEntry, in app: AppEntry) -> AccountEntry? {
        if !inactive.isEmpty, isInactive(entry.account, in: app.bundleID) { return nil }
        return policyEntry(entry, in: app)
    }

    /// Out of line, as `isTargetedBySibling`.
    @inline(never)
    private func siblingTargeting(_ app: AppEntry, of entry: AccountEntry) -> AccountEntry? {
        entry.siblings.first { targets($0, app) }
    }

    /// Whether `entry`'s `targetedAppManagementLevels` reaches `app`'s device type
    /// (`AccountEntry.reaches(deviceTypeOf:)`).
    package func targetsDeviceType(_ entry: AccountEntry, _ app: AppEntry) -> Bool {
        entry.reaches(deviceTypeOf: app)
    }

    /// Whether a policy of `groupType` listing `apps` targets `app` (RULES.md §1): the listed
    /// apps always; besides them every SDK app (`allApps`, or `selectedPublicApps` that lists
    /// none — not `apps: []`, which selects none), or Microsoft's (core) apps.
    package static func targets(groupType: TargetedAppGroupType, apps: Set<BundleID>, listed: Bool, _ app: AppEntry) -> Bool {
        // Set.contains hashes the bundle id even when the set is empty, and a policy with no
        // list is the common case (a transfer decision asks up to four times).
        if !apps.isEmpty, apps.contains(app.managementBundle) { return true }
        switch groupType {
        case .selectedPublicApps: return apps.isEmpty && !listed
        case .allApps: return true
        case .allCoreMicrosoftApps: return app.microsoftCore
        case .allMicrosoftApps: return app.microsoft
        }
    }

    /// The installed SDK apps (extensions aside) `policy` targets, whoever it is assigned to.
    public func apps(targetedBy policy: IosManagedAppProtection) -> [BundleID] {
        let levels = AccountEntry(account: Account(upn: ""), policy: policy)
        return appEntries.values.filter { !$0.app.isExtension && $0.managementSDK && Self.targets(groupType: policy.appGroupType, apps: policy.appSet, listed: policy.appsListed, $0)
            && targetsDeviceType(levels, $0) }
            .map(\.bundleID).sorted()
    }

    /// The managed entry for `account` as seen inside the app `bundle`: `nil` when the account
    /// is unmanaged, or when its policy does not target that app — there the account is
    /// unmanaged and none of its restrictions apply (RULES.md §1). An app the fleet does not
    /// know is judged as targeted: a rule never opens up for lack of a fact.
    func managedEntry(_ account: Account?, in bundle: BundleID) -> AccountEntry? {
        guard let e = managedEntry(account) else { return nil }
        // (Empty on every device that enrolls no account by its lifecycle: one test.)
        if !inactive.isEmpty, isInactive(e.account, in: bundle) { return nil }
        guard let app = appEntries[bundle] else { return e }
        return policyEntry(e, in: app)
    }

    /// Whether `account` is refused or deregistered in `bundle` (or, for an extension, in the
    /// app that contains it).
    public func isInactive(_ account: Account, in bundle: BundleID) -> Bool {
        guard let places = inactive[account.upnKey.isEmpty ? account.oidKey : account.upnKey] else { return false }
        return places.contains(bundle) || (apps[bundle]?.containingApp.map(places.contains) ?? false)
    }

    /// Sets where the SDK does not hold `account` enrolled (`inactive`); an empty set clears it.
    public mutating func setInactive(_ apps: Set<BundleID>, for account: Account) {
        let key = account.upnKey.isEmpty ? account.oidKey : account.upnKey
        inactive[key] = apps.isEmpty ? nil : apps
    }

    /// The policy that applies to `account` inside the app `bundle`: `nil` when the account is
    /// unmanaged or its policy does not target the app.
    public func policy(for account: Account?, in bundle: BundleID) -> IosManagedAppProtection? {
        managedEntry(account, in: bundle)?.policy
    }

    /// The policy the service assigns `account` for the app `bundle`, whether or not the app
    /// holds the account enrolled (`inactive`): what an enrollment or a check-in receives.
    public func assignedPolicy(for account: Account?, in bundle: BundleID) -> IosManagedAppProtection? {
        guard let e = managedEntry(account) else { return nil }
        guard let app = appEntries[bundle] else { return e.policy }
        return policyEntry(e, in: app)?.policy
    }

    /// Whether `account` is managed inside the app `bundle`: managed, and its policy targets
    /// the app (RULES.md §1).
    public func isManaged(_ account: Account?, in bundle: BundleID) -> Bool {
        managedEntry(account, in: bundle) != nil
    }

    /// Whether the app `bundle` is policy-managed for `account`.
    public func isPolicyManaged(_ bundle: BundleID, for account: Account?) -> Bool {
        guard let app = appEntries[bundle], let e = managedEntry(account) else { return false }
        return isPolicyManaged(app, for: e)
    }

    /// Whether any managed account's policy manages `bundle`.
    public func isManagedByAnyPolicy(_ bundle: BundleID) -> Bool {
        guard let app = appEntries[bundle] else { return false }
        return entries.contains { isPolicyManaged(app, for: $0) }
    }
}
