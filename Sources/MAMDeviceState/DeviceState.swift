public import Foundation
import GRDB
import X509
public import MAMDeclarations
public import MAMLoop
public import MAMModel
public import MAMPolicy

/// `DeviceState`'s state on its loop's thread (`LoopBound`): its fields are read and
/// written through `DeviceState`'s properties of the same names.
public struct DeviceStateLoopState {
    var generation: UInt64 = 0
    var now: Instant
}

/// The device's durable state — accounts and enrolment, sign-ins per app, identities,
/// containers and file owners, keychain items, PIN, simulated clock, run-time policy changes
/// and the audit log — kept in SQLite under a device directory (DESIGN.md "State and
/// persistence").
///
/// **Threading.** A `DeviceState` belongs to the host's event-loop thread: create it there
/// and call it only from there. It is deliberately not `Sendable` and takes no locks; the
/// compiler keeps it from crossing isolation domains. (The database connection serializes its
/// own access, but the in-memory `fleet` and clock are plain stored properties.)
///
/// **Durability.** Every mutating method runs one SQLite transaction (WAL journal) and
/// commits it before it returns, so what the host acknowledged to a child survives the
/// child's crash and a host SIGKILL. Opening the same directory again restores everything;
/// the host passes the same scenario fleet and policies it started from, and the store
/// re-applies what changed at run time (accounts added, policies re-targeted, the
/// allowed-accounts list, device facts, the clock).
///
/// **Decisions.** The rules are MAMPolicy's (`Enforcer`); this type only gathers the state a
/// rule needs, asks, and stores the result.
public final class DeviceState: LoopBound<DeviceStateLoopState> {
    /// `--device-dir`.
    public let directory: URL
    let db: DatabaseQueue
    /// Seals the file keys and keychain values inside the store.
    let storeKey: StoreKey
    /// Where each loop iteration's audit records go first (`AuditJournal`).
    let auditJournal: AuditJournal
    /// Sign-ins and identities as last read, by app (one `DeviceState` owns a device
    /// directory: another instance's writes are not seen here): the broker asks for them on every share,
    /// and a query per share would cost more than the rest of the share. Any write through
    /// `writeStore` empties it, so it never outlives what it mirrors.
    var readCache = ReadCache()
    /// PKCS #12 identities already opened, by asset and content: each file's PBKDF2 work is
    /// done once per host, not at every managedSecret or signWithIdentity.
    var openedIdentities: [String: (certificate: Certificate, key: SigningKey)] = [:]

    struct ReadCache {
        var signedIn: [String: [Account]] = [:]
        var processIdentity: [String: String?] = [:]
        var uiIdentity: [String: String?] = [:]
        /// The accounts of a window of several (asked at every service call with a window).
        var uiAccounts: [String: [String]?] = [:]
        /// Why org data is blocked in an app (`accessBlock`), checked for both sides of every share.
        var accessBlocked: [String: (why: String?, under: String?)] = [:]
    }

    /// The fleet each app holds under `delivery: checkIn` (`fleet(heldBy:)`), by the
    /// generation it was made in.
    var heldFleets: [String: (generation: UInt64, fleet: Fleet)] = [:]

    /// Whether the device is online, as `setNetwork` last stored it (read at every launch;
    /// nothing else writes the setting, so other writes leave it in place).
    var knownNetwork: Bool?

    /// Every write of device state goes through here (the audit log excepted, which no
    /// cached read depends on).
    func writeStore<T>(_ updates: (Database) throws -> T) throws -> T {
        readCache = ReadCache()
        generation &+= 1
        return try transaction(updates)
    }

    /// One write transaction, begun and ended with statements prepared once: the host writes
    /// at every launch and after every batch of decisions, and preparing BEGIN, SAVEPOINT and
    /// COMMIT anew each time cost more than the writes. Rolled back if `updates` throws.
    func transaction<T>(_ updates: (Database) throws -> T) throws -> T {
        try db.writeWithoutTransaction { db in
            try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
            do {
                let result = try updates(db)
                try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
                return result
            } catch {
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK TRANSACTION") }
                throw error
            }
        }
    }

    /// A read on the device's one connection, without a transaction of its own: every access
    /// to the connection is serialised (a read cannot see half a write) and one host owns the
    /// device directory, so nothing else writes between its statements.
    func readStore<T>(_ value: (Database) throws -> T) throws -> T {
        try db.inDatabase(value)
    }

    /// Moves on every change of what a decision reads (any `writeStore`, any change of the
    /// fleet): what was decided under one generation holds until it moves.
    /// Read on every share (the broker's route table), on the host's loop thread only: the
    /// runtime's check of each access was a call per brokered item.
    public private(set) var generation: UInt64 {
        @inline(__always) _read { yield value.generation }
        @inline(__always) _modify { yield &value.generation }
    }

    /// The scenario's fleet with every run-time change applied.
    public internal(set) var fleet: Fleet {
        didSet {
            readCache = ReadCache()
            generation &+= 1
        }
    }
    /// Policies a run-time assignment may name, by `policyKey`.
    private(set) var policyCatalog: [String: IosManagedAppProtection] = [:]
    /// The simulated clock (RULES.md §8); persisted on every change. Read for every audit
    /// record, on the host's loop thread only (as `generation`, its `LoopBound` state).
    public internal(set) var now: Instant {
        @inline(__always) _read { yield value.now }
        @inline(__always) _modify { yield &value.now }
    }
    /// `generation` and `now` as the host's loop reads them, per brokered item: one call, no
    /// exclusivity check (a stored property read from another module was checked by the
    /// runtime at each read, whatever its attribute said).
    public func generationOnLoop() -> UInt64 { generation }
    public func nowOnLoop() -> Instant { now }
    /// Apple DDM declarations in force (`loadDeclarations`, `applyDeclarations`).
    public internal(set) var declarations = DeclarationSet()
    /// Entra conditional access policies in force (`loadConditionalAccess`).
    public internal(set) var conditionalAccess: [ConditionalAccessPolicy] = []
    /// The Intune app configuration policies in force (`loadAppConfigPolicies`).
    public internal(set) var appConfigPolicies: [AppConfigPolicy] = []

    /// The clock of a new device directory when the caller gives none: 2026-01-01T00:00:00Z.
    public static let defaultClockStart = Instant(secondsSince1970: 1_767_225_600)

    /// Opens (creating if needed) the device directory and its store.
    ///
    /// - Parameters:
    ///   - directory: the device directory; created with `containers/` and `groups/`.
    ///   - fleet: the accounts, policies, apps and device facts of the scenario.
    ///   - policies: further policies that run-time assignments may name (the fleet's own
    ///     policies are always known).
    ///   - clockStart: the simulated time of a new store; an existing store keeps its clock.
    public init(directory: URL, fleet: Fleet, policies: [IosManagedAppProtection] = [],
                clockStart: Instant = DeviceState.defaultClockStart) throws {
        self.directory = directory
        self.fleet = fleet
        let fm = FileManager.default
        for sub in ["containers", "groups"] {
            try fm.createDirectory(at: directory.appendingPathComponent(sub, isDirectory: true),
                                   withIntermediateDirectories: true)
        }
        storeKey = try StoreKey.load(in: directory)
        db = try DeviceStore.open(at: directory.appendingPathComponent(DeviceStore.fileName))
        auditJournal = try AuditJournal(directory: directory)
        super.init(DeviceStateLoopState(now: clockStart))
        for account in fleet.accounts {
            if let p = fleet.policy(for: account) { policyCatalog[Self.policyKey(p)] = p }
        }
        for p in policies { policyCatalog[Self.policyKey(p)] = p }
        try restore()
    }

    /// The name a stored assignment uses for a policy: its Graph `id`, else its display name.
    public static func policyKey(_ policy: IosManagedAppProtection) -> String {
        policy.id ?? policy.displayName
    }

    /// Records the fleet's accounts and the clock of a new store, then applies what the store
    /// changed at run time on top of the scenario's fleet.
    private func restore() throws {
        let start = now
        let base = fleet.accounts
        let loaded = try writeStore { db -> Restored in
            for a in base {
                try db.execute(sql: "INSERT OR IGNORE INTO account (key, upn, oid, tenant) VALUES (?, ?, ?, ?)",
                               arguments: [Self.key(of: a), a.upn, a.oid, a.tenant])
            }
            if try Self.setting(db, "clock") == nil {
                try Self.setSetting(db, "clock", String(start.secondsSince1970))
            }
            var r = Restored()
            r.clock = Double(try Self.setting(db, "clock") ?? "") ?? start.secondsSince1970
            r.accounts = try Row.fetchAll(db, sql: "SELECT upn, oid, tenant FROM account ORDER BY rowid").map {
                Account(upn: $0["upn"], oid: $0["oid"], tenant: $0["tenant"])
            }
            r.assignments = try Row.fetchAll(db, sql: "SELECT account_key, policy_key, applied FROM policy_assignment").map {
                ($0["account_key"], $0["policy_key"], $0["applied"])
            }
            r.allowed = try Self.setting(db, "allowed_accounts")
            r.device = try Self.setting(db, "device_facts")
            r.mdmManaged = try Self.setting(db, "mdm_managed_apps")
            return r
        }
        now = Instant(secondsSince1970: loaded.clock)
        for a in loaded.accounts where fleet.entry(for: a) == nil {
            fleet.add(a)
        }
        for (accountKey, policyKey, applied) in loaded.assignments {
            guard let account = fleet.account(named: accountKey) else { continue }
            guard let policyKey, applied else {
                fleet.setPolicy(nil, for: account)
                continue
            }
            guard let policy = policyCatalog[policyKey] else {
                throw DeviceStateError(.badRequest, "the device store at \(directory.path) assigns the policy \"\(policyKey)\" to \(account), but no policy of that name is loaded; start the host with the scenario that defines it, or use a new device directory")
            }
            fleet.setPolicy(policy, for: account)
        }
        try restoreSettings(loaded)
        try refreshInactive()
    }

    /// The allowed accounts, the device's facts and the apps' MDM management a run changed,
    /// as the store kept them.
    private func restoreSettings(_ loaded: Restored) throws {
        if let text = loaded.allowed {
            fleet.allowedAccounts = try JSONDecoder().decode([String]?.self, from: Data(text.utf8))
        }
        if let text = loaded.device {
            let stored = try JSONDecoder().decode(StoredDeviceFacts.self, from: Data(text.utf8))
            let configuredBroker = fleet.device.brokerInstalled
            fleet.device = stored.facts
            if stored.brokerInstalled == nil { fleet.device.brokerInstalled = configuredBroker }
        }
        if let text = loaded.mdmManaged, let changed = try? JSONDecoder().decode([String: Bool].self, from: Data(text.utf8)) {
            for var app in fleet.apps.values {
                guard let managed = changed[app.bundleID.folded] else { continue }
                app.mdmManaged = managed
                fleet.install(app)
            }
        }
    }

    private struct Restored {
        var clock = 0.0
        var accounts: [Account] = []
        /// Account, policy (`nil` = untargeted), whether it applies (single managed account).
        var assignments: [(String, String?, Bool)] = []
        var allowed: String?
        var device: String?
        var mdmManaged: String?
    }

    // MARK: Run-time changes to the fleet

    /// Adds an account to the device at run time (or replaces the one with the same UPN or
    /// OID), targeted by `policy` (`nil` = unmanaged).
    public func addAccount(_ account: Account, policy: IosManagedAppProtection? = nil) throws {
        if let policy { policyCatalog[Self.policyKey(policy)] = policy }
        try writeStore { db in
            try db.execute(sql: """
                INSERT INTO account (key, upn, oid, tenant) VALUES (?, ?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET upn = excluded.upn, oid = excluded.oid, tenant = excluded.tenant
                """, arguments: [Self.key(of: account), account.upn, account.oid, account.tenant])
            try db.execute(sql: "INSERT OR REPLACE INTO policy_assignment (account_key, policy_key) VALUES (?, ?)",
                           arguments: [Self.key(of: account), policy.map(Self.policyKey)])
        }
        fleet.add(account, policy: policy)
    }

    /// Targets the account named `accountID` (UPN or OID) with `policy`, or untargets it
    /// (`nil`): a policy assignment changed at run time.
    ///
    /// Intune manages one account per device (RULES.md §5): a policy that targets an account
    /// while another is the device's managed account is recorded but does not apply — the
    /// account stays unmanaged in every app. Returns whether the policy applies.
    @discardableResult
    public func assignPolicy(_ policy: IosManagedAppProtection?, to accountID: String) throws -> Bool {
        guard let account = fleet.account(named: accountID) else { throw Self.unknownAccount(accountID) }
        if let policy { policyCatalog[Self.policyKey(policy)] = policy }
        let applies = try policy == nil || !isOverriddenByEnrolledAccount(account)
        try writeStore { db in
            try recordAssignmentChange(db, account: account)
            try db.execute(sql: "INSERT OR REPLACE INTO policy_assignment (account_key, policy_key, applied) VALUES (?, ?, ?)",
                           arguments: [Self.key(of: account), policy.map(Self.policyKey), applies])
        }
        fleet.setPolicy(applies ? policy : nil, for: account)
        return applies
    }

    /// Whether another account is the device's managed account, so `account` cannot become one.
    private func isOverriddenByEnrolledAccount(_ account: Account) throws -> Bool {
        guard let enrolled = try enrolledManagedAccount else { return false }
        return !enrolled.isSame(as: account)
    }

    /// The MDM server takes an installed app under management (or releases it): ManagedApp
    /// serves it from now on (seed 004: « lorsqu'il prend en charge la gestion d'une app déjà
    /// installée »). Stored, so a restart keeps it.
    public func setManagedByMDM(_ bundle: BundleID, _ managed: Bool) throws {
        guard var app = fleet.app(bundle) else { throw DeviceStateError.unknownApp(bundle) }
        var changed = try readStore { db in try Self.setting(db, "mdm_managed_apps") }
            .flatMap { try? JSONDecoder().decode([String: Bool].self, from: Data($0.utf8)) } ?? [:]
        changed[bundle.folded] = managed
        let text = String(decoding: try JSONEncoder().encode(changed), as: UTF8.self)
        try writeStore { db in try Self.setSetting(db, "mdm_managed_apps", text) }
        app.mdmManaged = managed
        fleet.install(app)
    }

    /// Replaces the device facts (jailbreak, OS version, MDM enrolment, restrictions, model).
    public func setDeviceFacts(_ facts: DeviceFacts) throws {
        let text = String(decoding: try JSONEncoder().encode(StoredDeviceFacts(facts)), as: UTF8.self)
        try writeStore { db in try Self.setSetting(db, "device_facts", text) }
        fleet.device = facts
    }

    /// Marks an account disabled in Entra (conditional launch's last check) or enabled again.
    public func setAccountDisabled(_ accountID: String, _ disabled: Bool) throws {
        guard let account = fleet.account(named: accountID) else { throw Self.unknownAccount(accountID) }
        try writeStore { db in
            try db.execute(sql: "UPDATE account SET disabled = ? WHERE key = ?", arguments: [disabled, Self.key(of: account)])
        }
    }

    func isDisabled(_ account: Account) throws -> Bool {
        try readStore { db in
            try Bool.fetchOne(db, sql: "SELECT disabled FROM account WHERE key = ?", arguments: [Self.key(of: account)]) ?? false
        }
    }

    // MARK: Helpers shared by the extensions

    /// The comparison key of an account: its lowercased UPN, else its lowercased OID.
    static func key(of account: Account) -> String {
        account.upnKey.isEmpty ? account.oidKey : account.upnKey
    }

    /// The installed app or extension `bundle`, or `unknown-app`.
    func descriptor(_ bundle: BundleID) throws -> AppDescriptor {
        guard let app = fleet.app(bundle) else { throw DeviceStateError.unknownApp(bundle) }
        return app
    }

    /// The spelling stored for an identity: the fleet account's UPN (or OID) for a known
    /// account, `""` for the unmanaged identity, the text as given otherwise.
    func canonicalIdentity(_ id: String?) -> String? {
        guard let id else { return nil }
        if id.isEmpty { return "" }
        return fleet.account(named: id)?.description ?? id
    }

    /// The key owners and identities compare by (case-insensitive, UPN or OID).
    func identityKey(_ id: String) -> String {
        if id.isEmpty { return "" }
        if let a = fleet.account(named: id) { return Self.key(of: a) }
        return id.lowercased()
    }

    /// The fleet account an identity names; `nil` for `nil`, `""` and unknown ids.
    public func account(forIdentity id: String?) -> Account? {
        guard let id, !id.isEmpty else { return nil }
        return fleet.account(named: id)
    }

    /// Whether an identity is a managed account (targeted by a policy); inside an app, its
    /// policy applies only if it targets the app (`fleet.isManaged(_:in:)`).
    public func isManaged(identity id: String?) -> Bool {
        fleet.isManaged(account(forIdentity: id))
    }

    public static func unknownAccount(_ id: String) -> DeviceStateError {
        DeviceStateError(.unknownAccount, "\(id) is not an account of this device; add it to the scenario's accounts first")
    }

    static func setting(_ db: Database, _ key: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key])
    }

    static func setSetting(_ db: Database, _ key: String, _ value: String?) throws {
        if let value {
            try db.execute(sql: "INSERT OR REPLACE INTO setting (key, value) VALUES (?, ?)", arguments: [key, value])
        } else {
            try db.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: [key])
        }
    }
}
