public import MAMModel

/// Device facts the rules read (RULES.md §2, §8): MDM enrolment, jailbreak, OS version and
/// Apple MDM restrictions.
public struct DeviceFacts: Sendable, Hashable {
    public var mdmEnrolled: Bool
    public var jailbroken: Bool
    public var osVersion: Version
    /// Apple MDM restrictions by key, e.g. `allowOpenFromManagedToUnmanaged: false`.
    public var restrictions: [String: Bool]
    /// The device model identifier (`iPhone15,2`), for `allowedIosDeviceModels`.
    public var model: String

    public init(mdmEnrolled: Bool = false, jailbroken: Bool = false, osVersion: Version = Version("18.4")!,
                restrictions: [String: Bool] = [:], model: String = "iPhone15,2") {
        self.mdmEnrolled = mdmEnrolled
        self.jailbroken = jailbroken
        self.osVersion = osVersion
        self.restrictions = restrictions
        self.model = model
    }
}

/// One account of the fleet with the policy that targets it (if any), plus the phrase the
/// explanations start with, composed once so decisions do not rebuild it.
///
/// A class, so a lookup hands out one reference instead of copying a policy of a hundred
/// fields; the settings a transfer decision reads are copied out flat for the same reason.
public final class AccountEntry: Sendable {
    public let account: Account
    /// `nil` ⇒ the account is unmanaged.
    public let policy: IosManagedAppProtection?
    let isManaged: Bool
    /// `alice@contoso.com's policy "Contoso strict"`.
    let subject: String
    let outbound: DataTransferLevel
    let inbound: DataTransferLevel
    let osSharing: Bool
    let incomingOrgData: Bool
    let appSet: Set<BundleID>
    let exemptKeys: Set<String>

    init(account: Account, policy: IosManagedAppProtection?) {
        self.account = account
        self.policy = policy
        self.isManaged = policy != nil
        self.subject = "\(account)'s policy \"\(policy?.title ?? "")\""
        self.outbound = policy?.allowedOutboundDataTransferDestinations ?? .allApps
        self.inbound = policy?.allowedInboundDataTransferSources ?? .allApps
        self.osSharing = policy?.disableProtectionOfManagedOutboundOpenInData ?? false
        self.incomingOrgData = policy?.protectInboundDataFromUnknownSources ?? false
        self.appSet = policy?.appSet ?? []
        self.exemptKeys = policy?.exemptSchemeKeys ?? []
    }

    func isExempt(_ app: AppEntry) -> Bool {
        for key in app.app.schemeKeys where exemptKeys.contains(key) { return true }
        return false
    }
}

/// One installed app or extension, with what decides whether a policy manages it resolved
/// when the fleet changes (an extension is managed iff its containing app is).
public final class AppEntry: Sendable {
    public let app: AppDescriptor
    /// The bundle a policy's app list must name: the containing app's for an extension.
    let managementBundle: BundleID
    /// Whether that app integrates the SDK.
    let managementSDK: Bool

    init(app: AppDescriptor, container: AppDescriptor?) {
        self.app = app
        let subject = app.isExtension ? (container ?? app) : app
        self.managementBundle = subject.bundleID
        self.managementSDK = subject.sdkIntegrated
    }

    var bundleID: BundleID { app.bundleID }
}

/// The world a decision is made in: accounts with their policies, installed apps and
/// extensions, device facts and the allowed-accounts list. A plain value: the host builds it
/// from a scenario, changes it with the mutating methods and passes it to `Enforcer`.
///
/// Lookups are by precomputed folded keys (`Account.upnKey`/`oidKey`, `BundleID.folded`),
/// so deciding never lowercases a string.
public struct Fleet: Sendable {
    public var device: DeviceFacts
    /// `allowedAccounts` (UPNs) and `allowedAccountIds` (OIDs) merged; `nil` = not targeted.
    public var allowedAccounts: [String]? {
        didSet { allowedKeys = allowedAccounts.map { Set($0.map { $0.lowercased() }) } }
    }
    private(set) var allowedKeys: Set<String>?
    private var entries: [AccountEntry] = []
    private var index: [String: Int] = [:]
    public private(set) var apps: [BundleID: AppDescriptor] = [:]
    private var appEntries: [BundleID: AppEntry] = [:]

    public init(device: DeviceFacts = DeviceFacts(), allowedAccounts: [String]? = nil) {
        self.device = device
        self.allowedAccounts = allowedAccounts
        self.allowedKeys = allowedAccounts.map { Set($0.map { $0.lowercased() }) }
    }

    // MARK: Building

    /// Adds an account (or replaces the one with the same UPN or OID) with its policy.
    public mutating func add(_ account: Account, policy: IosManagedAppProtection? = nil) {
        let entry = AccountEntry(account: account, policy: policy)
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

    /// Installs (or replaces) an app or extension.
    public mutating func install(_ app: AppDescriptor) {
        apps[app.bundleID] = app
        reindexApps()
    }

    public mutating func uninstall(_ bundle: BundleID) {
        apps[bundle] = nil
        reindexApps()
    }

    private mutating func reindexApps() {
        appEntries = [:]
        for (id, app) in apps {
            appEntries[id] = AppEntry(app: app, container: app.containingApp.flatMap { apps[$0] })
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

    // MARK: Looking up

    /// Every account, in the order added.
    public var accounts: [Account] { entries.map(\.account) }

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

    func appEntry(_ bundle: BundleID) -> AppEntry? { appEntries[bundle] }

    /// Whether `app` is policy-managed for the account of `entry`: it (for an extension, its
    /// containing app) integrates the SDK and the policy targets it (an empty app list
    /// targets every SDK app).
    func isPolicyManaged(_ app: AppEntry, for entry: AccountEntry) -> Bool {
        entry.isManaged && app.managementSDK && (entry.appSet.isEmpty || entry.appSet.contains(app.managementBundle))
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
