import Foundation
import GRDB
public import MAMModel
import MAMPolicy

/// The answer to a sign-in: the decision (`account-not-allowed`, `second-managed-account`,
/// `unknown-account`, `unknown-app` or allowed) and the app's state after it.
public struct SignInResult: Sendable, Hashable, CustomStringConvertible {
    public let decision: Verdict
    /// The fleet's account, when the entered id names one.
    public let account: Account?
    /// Whether the account is the device's managed (enrolled) account.
    public let isManaged: Bool
    /// The app's process identity after the sign-in (the enrolled account for a
    /// single-identity app; unchanged, usually `nil`, for a multi-identity app).
    public let processIdentity: String?

    public var isAllowed: Bool { decision.isAllowed }
    public var description: String { decision.description }
}

/// The answer to a sign-out: the decision (`not-signed-in`, `unknown-account`, `unknown-app`
/// or allowed) and what the selective wipe removed.
public struct SignOutResult: Sendable, Hashable, CustomStringConvertible {
    public let decision: Verdict
    /// `nil` when nothing was signed out.
    public let wipe: WipeReport?

    public var isAllowed: Bool { decision.isAllowed }
    public var description: String { decision.description }
}

/// An app to notify with `allowedAccountsDidChange`, and the accounts the new list signed out
/// of it.
public struct AllowedAccountsChange: Sendable, Hashable {
    public let app: BundleID
    public let signedOut: [Account]
}

extension DeviceState {
    // MARK: Queries

    /// The accounts signed in to `app`, in sign-in order.
    public func signedInAccounts(app bundle: BundleID) throws -> [Account] {
        if let cached = readCache.signedIn[bundle.folded] { return cached }
        let keys = try readStore { db in
            try String.fetchAll(db.cachedStatement(sql: "SELECT account_key FROM sign_in WHERE app = ? ORDER BY seq"), arguments: [bundle.folded])
        }
        let accounts = keys.compactMap { fleet.account(named: $0) }
        readCache.signedIn[bundle.folded] = accounts
        return accounts
    }

    /// Every account signed in to some app of the device, in first sign-in order.
    public func signedInAccountsOnDevice() throws -> [Account] {
        let keys = try readStore { db in
            try String.fetchAll(db, sql: "SELECT account_key FROM sign_in GROUP BY account_key ORDER BY MIN(seq)")
        }
        return keys.compactMap { fleet.account(named: $0) }
    }

    /// The device's managed account (Intune supports one): set by the first managed sign-in,
    /// cleared when that account is signed out of every app.
    public var enrolledManagedAccount: Account? {
        get throws {
            try readStore { db in try Self.setting(db, "enrolled_account") }.flatMap { fleet.account(named: $0) }
        }
    }

    /// Whether `accountID` is signed in to `app`.
    public func isSignedIn(_ accountID: String, app bundle: BundleID) throws -> Bool {
        let key = identityKey(accountID)
        return try readStore { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM sign_in WHERE app = ? AND account_key = ?", arguments: [bundle.folded, key]) ?? false
        }
    }

    // MARK: Sign-in and sign-out

    /// Signs the account named `accountID` (UPN or OID, any case) in to `app` (RULES.md §5).
    ///
    /// Refused with `unknown-app`, `unknown-account` (not an account of the fleet),
    /// `account-not-allowed` (the explanation names the admin's list and the entered account)
    /// or `second-managed-account`. A managed account becomes the device's enrolled account;
    /// in a single-identity app it becomes the process identity. Signing in again is allowed
    /// and changes nothing.
    public func signIn(app bundle: BundleID, account accountID: String) throws -> SignInResult {
        guard let app = fleet.app(bundle) else {
            return SignInResult(decision: .blocked(.unknownApp, because: DeviceStateError.unknownApp(bundle).message),
                                account: nil, isManaged: false, processIdentity: nil)
        }
        guard let account = fleet.account(named: accountID) else {
            return SignInResult(decision: .blocked(.unknownAccount, because: "\(accountID) cannot sign in to \(app.bundleID): it is not an account of this device's fleet; add it to the scenario's accounts or check its spelling"),
                                account: nil, isManaged: false, processIdentity: try processIdentity(app: bundle))
        }
        // Managed in this app only if the account's policy targets it (RULES.md §1); the
        // device's enrolment follows the account's policy whatever the app.
        let managed = fleet.isManaged(account, in: bundle)
        if try isSignedIn(accountID, app: bundle) {
            return SignInResult(decision: .allowed("\(account) is already signed in to \(app.bundleID)"),
                                account: account, isManaged: managed, processIdentity: try processIdentity(app: bundle))
        }
        var onDevice = try signedInAccountsOnDevice()
        if let enrolled = try enrolledManagedAccount, !onDevice.contains(where: { $0.isSame(as: enrolled) }) {
            onDevice.append(enrolled)
        }
        let (descriptor, enrolled) = (app, onDevice)
        let decision = PolicyReads.decision(in: fleet) { Enforcer.signIn(account, to: descriptor, enrolled: enrolled, in: $0) }
        guard decision.isAllowed else {
            return SignInResult(decision: decision, account: account, isManaged: managed, processIdentity: try processIdentity(app: bundle))
        }
        let key = Self.key(of: account)
        try writeStore { db in
            try db.execute(sql: "INSERT INTO sign_in (app, account_key) VALUES (?, ?)", arguments: [app.bundleID.folded, key])
            // Signed in again, the SDK registers the account again in the app.
            try db.execute(sql: "DELETE FROM deregistered WHERE app = ? AND account_key = ?", arguments: [(app.containingApp ?? app.bundleID).folded, key])
            // The enrolment moves only when there is none, or when a run-time policy change
            // left the enrolled account unmanaged.
            let enrolled = try Self.setting(db, "enrolled_account").flatMap { fleet.account(named: $0) }
            if fleet.isManaged(account), !fleet.isManaged(enrolled) {
                try Self.setSetting(db, "enrolled_account", key)
            }
            try refreshSingleIdentityProcess(db, app: app)
        }
        try refreshInactive()
        return SignInResult(decision: .allowed("\(decision.explanation) in \(app.bundleID)"),
                            account: account, isManaged: managed, processIdentity: try processIdentity(app: bundle))
    }

    /// Signs `accountID` out of `app` and selectively wipes its data there (RULES.md §5):
    /// the host has asked the app (`wipeDataForAccountId`); `appHandledWipe` is its answer.
    /// The account's identities in the app are cleared; other accounts, their data and the
    /// policy state are untouched. When the managed account leaves its last app, the device
    /// is no longer enrolled and its PIN is forgotten.
    public func signOut(app bundle: BundleID, account accountID: String, appHandledWipe: Bool = false) throws -> SignOutResult {
        guard let app = fleet.app(bundle) else {
            return SignOutResult(decision: .blocked(.unknownApp, because: DeviceStateError.unknownApp(bundle).message), wipe: nil)
        }
        guard let account = fleet.account(named: accountID) else {
            return SignOutResult(decision: .blocked(.unknownAccount, because: "\(accountID) cannot be signed out of \(app.bundleID): it is not an account of this device's fleet; check its spelling"), wipe: nil)
        }
        guard try isSignedIn(accountID, app: bundle) else {
            return SignOutResult(decision: .blocked(.notSignedIn, because: "\(account) is not signed in to \(app.bundleID), so there is nothing to sign out; sign it in first"), wipe: nil)
        }
        let report = try writeStore { db -> WipeReport in
            try removeSignIn(db, app: app, account: account)
            return try wipeData(db, app: app, account: account, appHandledWipe: appHandledWipe)
        }
        try refreshInactive()
        return SignOutResult(decision: .allowed("\(account) is signed out of \(app.bundleID); \(report)"), wipe: report)
    }

    /// Replaces the allowed-accounts list (`allowedAccounts` + `allowedAccountIds`; `nil` =
    /// not targeted). Signed-in accounts the new list does not allow are signed out at once;
    /// the result names the apps to notify (`allowedAccountsDidChange`). Their data is not
    /// wiped here: the host asks each app to wipe and then calls `wipe(app:account:appHandledWipe:)`.
    @discardableResult
    public func setAllowedAccounts(_ list: [String]?) throws -> [AllowedAccountsChange] {
        var next = fleet
        next.allowedAccounts = list
        var changes: [AllowedAccountsChange] = []
        for app in fleet.apps.values.sorted(by: { $0.bundleID < $1.bundleID }) {
            let out = Enforcer.accountsToSignOut(try signedInAccounts(app: app.bundleID), of: app, in: next)
            if !out.isEmpty { changes.append(AllowedAccountsChange(app: app.bundleID, signedOut: out)) }
        }
        let text = String(decoding: try JSONEncoder().encode(list), as: UTF8.self)
        try writeStore { db in
            try Self.setSetting(db, "allowed_accounts", text)
            for change in changes {
                guard let app = fleet.app(change.app) else { continue }
                for account in change.signedOut { try removeSignIn(db, app: app, account: account) }
            }
        }
        fleet = next
        try refreshInactive()
        return changes
    }

    // MARK: Inside a transaction

    /// Deletes the sign-in, clears the account's identities in the app and, when the enrolled
    /// account leaves its last app, the enrolment and PIN.
    func removeSignIn(_ db: Database, app: AppDescriptor, account: Account) throws {
        let key = Self.key(of: account)
        let bundle = app.bundleID.folded
        try db.execute(sql: "DELETE FROM sign_in WHERE app = ? AND account_key = ?", arguments: [bundle, key])
        // Microsoft's SDK guide (stage 3): an app deregisters the account when its user signs out.
        if app.kind == .app, app.sdkIntegrated { try Self.deregister(db, owner: bundle, key: key) }
        for row in try Row.fetchAll(db, sql: "SELECT window, identity, accounts FROM ui_identity WHERE app = ?", arguments: [bundle]) {
            let identity: String? = row["identity"]
            let window: String = row["window"]
            // A window showing several accounts loses the one that leaves (RULES.md §2, merged
            // windows); left with one, it is no longer merged and shows that one.
            if let text: String = row["accounts"], let shown = try? JSONDecoder().decode([String].self, from: Data(text.utf8)),
               shown.contains(where: { !$0.isEmpty && identityKey($0) == key }) {
                let rest = shown.filter { $0.isEmpty || identityKey($0) != key }
                let owner = rest.first { id in !id.isEmpty && fleet.isManaged(self.account(forIdentity: id), in: app.bundleID) } ?? rest.first { !$0.isEmpty } ?? ""
                let list = rest.count > 1 ? String(decoding: try JSONEncoder().encode(rest), as: UTF8.self) : nil
                try db.execute(sql: "UPDATE ui_identity SET identity = ?, accounts = ? WHERE app = ? AND window = ?",
                               arguments: [rest.count == 1 ? rest[0] : owner, list, bundle, window])
                continue
            }
            if let identity, !identity.isEmpty, identityKey(identity) == key {
                try db.execute(sql: "DELETE FROM ui_identity WHERE app = ? AND window = ?", arguments: [bundle, window])
            }
        }
        if let process = try String.fetchOne(db, sql: "SELECT identity FROM process_identity WHERE app = ?", arguments: [bundle]),
           !process.isEmpty, identityKey(process) == key {
            try db.execute(sql: "DELETE FROM process_identity WHERE app = ?", arguments: [bundle])
        }
        try refreshSingleIdentityProcess(db, app: app)
        let stillSignedIn = try Bool.fetchOne(db, sql: "SELECT 1 FROM sign_in WHERE account_key = ?", arguments: [key]) ?? false
        if !stillSignedIn, try Self.setting(db, "enrolled_account") == key {
            try Self.setSetting(db, "enrolled_account", nil)
            try db.execute(sql: "DELETE FROM pin_state WHERE account_key = ?", arguments: [key])
        }
    }

    /// A single-identity app's process identity is its enrolled account: the managed account
    /// signed in to it, else its first signed-in account, else unset.
    /// The process identity it stored (`nil` for a multi-identity app, which it leaves alone).
    @discardableResult
    func refreshSingleIdentityProcess(_ db: Database, app: AppDescriptor) throws -> String? {
        guard !app.multiIdentity else { return nil }
        let keys = try String.fetchAll(db.cachedStatement(sql: "SELECT account_key FROM sign_in WHERE app = ? ORDER BY seq"), arguments: [app.bundleID.folded])
        let accounts = keys.compactMap { fleet.account(named: $0) }
        let chosen = accounts.first(where: { fleet.isManaged($0, in: app.bundleID) }) ?? accounts.first
        try Self.storeProcessIdentity(db, app: app.bundleID, chosen?.description)
        return chosen?.description
    }

    static func storeProcessIdentity(_ db: Database, app: BundleID, _ identity: String?) throws {
        if let identity {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO process_identity (app, identity) VALUES (?, ?)").execute(arguments: [app.folded, identity])
        } else {
            try db.cachedStatement(sql: "DELETE FROM process_identity WHERE app = ?").execute(arguments: [app.folded])
        }
    }
}
