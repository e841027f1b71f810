import GRDB
public import MAMModel
public import MAMPolicy
import Foundation

/// What an identity switch came to (`IntuneMAMSwitchIdentityResult` plus why): the result,
/// the decision with its reason (`identity-switch-canceled`, `identity-switch-not-allowed`,
/// `conditional-launch`, `unknown-app`), conditional launch's warnings, and the selective
/// wipe a `wipe` action carried out.
public struct IdentitySwitchReport: Sendable, Hashable, CustomStringConvertible {
    public let result: IdentitySwitchResult
    public let decision: Verdict
    public let warnings: [String]
    /// Set when a conditional-launch `wipe` action signed the account out of the app.
    public let wipe: WipeReport?

    public var description: String { "\(result): \(decision)" }
}

extension DeviceState {
    // MARK: Reading identities

    /// The app-wide identity: `nil` when unset, `""` for the unmanaged identity.
    public func processIdentity(app bundle: BundleID) throws -> String? {
        if let cached = readCache.processIdentity[bundle.folded] { return cached }
        let identity = try readStore { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT identity FROM process_identity WHERE app = ?"), arguments: [bundle.folded])
        }
        readCache.processIdentity[bundle.folded] = .some(identity)
        return identity
    }

    /// The identity of one window (scene) of the app; `nil` when unset (falls back to the
    /// process identity).
    public func uiIdentity(app bundle: BundleID, window: String) throws -> String? {
        let key = bundle.folded + "\u{0}" + window
        if let cached = readCache.uiIdentity[key] { return cached }
        let identity = try readStore { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT identity FROM ui_identity WHERE app = ? AND window = ?"),
                                arguments: [bundle.folded, window])
        }
        readCache.uiIdentity[key] = .some(identity)
        return identity
    }

    /// The three layers for a task in `window` of `app`; `thread` is the child's current
    /// thread identity (MAMKit's `ThreadIdentity`), which only the child knows.
    public func identityLayers(app bundle: BundleID, window: String? = nil, thread: String? = nil) throws -> IdentityLayers {
        IdentityLayers(process: try processIdentity(app: bundle),
                       ui: try window.flatMap { try uiIdentity(app: bundle, window: $0) },
                       thread: thread)
    }

    /// The effective identity of a UI or file task (RULES.md §1): thread ?? UI ?? process for
    /// UI, thread ?? process for files.
    public func effectiveIdentity(app bundle: BundleID, window: String? = nil, thread: String? = nil,
                                  for task: TaskKind) throws -> String? {
        try identityLayers(app: bundle, window: window, thread: thread).effective(for: task)
    }

    /// Whether policy applies to a task: its effective identity is a managed account.
    public func isPolicyApplied(app bundle: BundleID, window: String? = nil, thread: String? = nil,
                                for task: TaskKind) throws -> Bool {
        fleet.isManaged(account(forIdentity: try effectiveIdentity(app: bundle, window: window, thread: thread, for: task)), in: bundle)
    }

    /// Stores what the device remembers of `account`'s PIN for the apps of `publisher`.
    static func storePin(_ db: Database, account: Account, publisher: String, _ pin: PinState) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO pin_state (account_key, publisher, pin, failed_attempts, set_at, previous, last_access) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       arguments: [key(of: account), publisher, pin.pin, pin.failedAttempts, pin.setAt?.secondsSince1970,
                                   String(decoding: try JSONEncoder().encode(pin.previous), as: UTF8.self), pin.lastAccess?.secondsSince1970])
    }

    /// The publisher whose apps share a PIN (RULES.md §8): the app's Apple team id (an
    /// extension's is its container's), `""` for the apps that name none.
    public func publisher(of app: AppDescriptor) -> String {
        let owner = app.containingApp.flatMap { fleet.app($0) } ?? app
        return (owner.teamId ?? app.teamId ?? "").uppercased()
    }

    /// The PIN the device remembers for the managed account `accountID` in the apps of
    /// `publisher`.
    public func pinState(for accountID: String, publisher: String = "") throws -> PinState {
        let key = identityKey(accountID)
        let row = try readStore { db in
            try Row.fetchOne(db, sql: "SELECT pin, failed_attempts, set_at, previous, last_access FROM pin_state WHERE account_key = ? AND publisher = ?",
                             arguments: [key, publisher])
        }
        guard let row else { return PinState() }
        let previous: String = row["previous"]
        return PinState(pin: row["pin"], failedAttempts: row["failed_attempts"], setAt: (row["set_at"] as Double?).map(Instant.init(secondsSince1970:)),
                        previous: previous.isEmpty ? [] : try JSONDecoder().decode([String].self, from: Data(previous.utf8)),
                        lastAccess: (row["last_access"] as Double?).map(Instant.init(secondsSince1970:)))
    }

    // MARK: Changing identities

    /// `setUIPolicyAccountId(_:forWindow:)`: switches one window of `app` to `accountID`
    /// (`nil` = fall back to the process identity, `""` = no user / personal).
    ///
    /// A managed account runs conditional launch through `Enforcer.switchIdentity`: the PIN
    /// (`pin` is what the user entered, `nil` = dismissed; the first managed switch on the
    /// device sets it), jailbreak, OS/app/SDK versions, offline periods measured on the
    /// simulated clock from the app's last check-in, disabled account. The PIN state that comes
    /// back is stored whatever the result; the window's identity changes only on `success`; a
    /// `wipe` action signs the account out of the app and wipes its data there.
    ///
    /// - Parameter now: the time of the switch; `nil` = the device's simulated clock.
    public func setUIPolicyAccountId(app bundle: BundleID, window: String, account accountID: String?,
                                     pin: String? = nil, newPin: String? = nil, now: Instant? = nil) throws -> IdentitySwitchReport {
        try switchIdentity(app: bundle, to: accountID, pin: pin, newPin: newPin, now: now) { db, identity in
            if let identity {
                try db.execute(sql: "INSERT OR REPLACE INTO ui_identity (app, window, identity) VALUES (?, ?, ?)",
                               arguments: [bundle.folded, window, identity])
            } else {
                try db.execute(sql: "DELETE FROM ui_identity WHERE app = ? AND window = ?", arguments: [bundle.folded, window])
            }
        }
    }

    /// `setProcessAccountId`: switches the app-wide identity, with the same checks as
    /// `setUIPolicyAccountId`.
    public func setProcessAccountId(app bundle: BundleID, account accountID: String?,
                                    pin: String? = nil, newPin: String? = nil, now: Instant? = nil) throws -> IdentitySwitchReport {
        try switchIdentity(app: bundle, to: accountID, pin: pin, newPin: newPin, now: now) { db, identity in
            try Self.storeProcessIdentity(db, app: bundle, identity)
        }
    }

    private func switchIdentity(app bundle: BundleID, to accountID: String?, pin: String?, newPin: String? = nil, now: Instant?,
                                store: (Database, String?) throws -> Void) throws -> IdentitySwitchReport {
        guard let app = fleet.app(bundle) else {
            return IdentitySwitchReport(result: .failed, decision: .blocked(.unknownApp, because: DeviceStateError.unknownApp(bundle).message),
                                        warnings: [], wipe: nil)
        }
        guard let accountID else {
            try writeStore { db in try store(db, nil) }
            return IdentitySwitchReport(result: .success, decision: .allowed("the identity of \(app.bundleID) is cleared; the next layer applies"),
                                        warnings: [], wipe: nil)
        }
        let account = accountID.isEmpty ? nil : (fleet.account(named: accountID) ?? Account(upn: accountID))
        let managed = fleet.isManaged(account, in: bundle)
        let publisher = self.publisher(of: app)
        let before = managed ? try pinState(for: accountID, publisher: publisher) : PinState()
        // Switching identity while online is a check-in (RULES.md §8): the offline period
        // is measured from here.
        if managed, app.sdkIntegrated, try isOnline(), try !checkInWillFail() { try checkIn(app: app.bundleID) }
        let facts = try launchFacts(app: app, account: account ?? Account(upn: ""), at: now ?? self.now)
        let signedIn = try signedInAccounts(app: accountScope(app))
        let outcome = PolicyReads.decision(in: fleet) { fleet in
            Enforcer.switchIdentity(to: account, signedIn: signedIn, enteredPin: pin, pin: before, facts: facts, app: bundle, in: fleet, newPin: newPin)
        }
        // The rules speak of "this app"; the host knows which one.
        let decision = outcome.decision.blockedBy.map {
            Verdict.blocked($0, because: outcome.decision.explanation.replacingOccurrences(of: "this app", with: "\(app.bundleID)"))
        } ?? outcome.decision
        let identity = canonicalIdentity(accountID)
        let wipe = try writeStore { db -> WipeReport? in
            if managed, let account {
                try Self.storePin(db, account: account, publisher: publisher, outcome.pin)
            }
            if outcome.result == .success {
                try store(db, identity)
                // Conditional launch passed for a managed account: access is open again.
                if managed { try Self.setAccessBlock(db, app: app.bundleID, nil) }
            }
            guard outcome.action == .wipe, let account else { return nil }
            try removeSignIn(db, app: app, account: account)
            return try wipeData(db, app: app, account: account, appHandledWipe: false)
        }
        return IdentitySwitchReport(result: outcome.result, decision: decision, warnings: outcome.warnings, wipe: wipe)
    }
}

/// What `setUIPolicyAccountIds` came to: the accounts the window shows, and those the SDK
/// blocked (`blockAccountId`) because their conditional launch failed or was cancelled.
public struct MergedViewReport: Sendable, Hashable {
    public enum BlockReason: String, Sendable, Hashable {
        case conditionalLaunchBlocked, conditionalLaunchCanceled
    }

    public let result: IdentitySwitchResult
    public let decision: Verdict
    /// The identities the window shows, in the order asked (`""`: the unmanaged identity).
    public let shown: [String]
    public let blocked: [Blocked]
    public let warnings: [String]

    /// An account the SDK hid from the window, and why.
    public struct Blocked: Sendable, Hashable {
        public let account: Account
        public let reason: BlockReason
        public let why: String
    }
}

extension DeviceState {
    /// The identities a window shows when it shows several (`setUIPolicyAccountIds`); `nil` for
    /// a window of one account or none.
    public func uiAccounts(app bundle: BundleID, window: String) throws -> [String]? {
        let key = bundle.folded + "\u{0}" + window
        if let cached = readCache.uiAccounts[key] { return cached }
        let text = try readStore { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT accounts FROM ui_identity WHERE app = ? AND window = ?"),
                                arguments: [bundle.folded, window])
        }
        let list = text.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) }
        readCache.uiAccounts[key] = .some(list)
        return list
    }

    /// The managed account (in `bundle`, under `fleet`) among the accounts `window` of `owner`
    /// shows when it shows several: its policy is replaced there by the SDK's lock-down policy
    /// (RULES.md §2, merged windows). `nil` for a window of one account or none.
    public func lockDownAccount(app owner: BundleID, window: String, managedIn bundle: BundleID, in fleet: Fleet) throws -> Account? {
        guard let shown = try uiAccounts(app: owner, window: window), shown.count > 1 else { return nil }
        return shown.compactMap(account(forIdentity:)).first { fleet.isManaged($0, in: bundle) }
    }

    /// `setUIPolicyAccountIds` (`IntuneMAMPolicyManager.h`): a window showing several accounts'
    /// data. Every named account but the unmanaged identity (`""`) must be signed in to the app,
    /// else `notAllowed` and nothing changes. Conditional launch runs for each managed account
    /// (as `setUIPolicyAccountId`, `pin` answering its prompt); one it blocks, or whose prompt the
    /// user dismisses, is blocked: hidden from the window (the host tells the app
    /// `blockAccountId`). The window then shows the rest; what it shows is owned by the managed
    /// account among them, if any, else unmanaged; with more than one account and a managed one,
    /// its policy is the SDK's lock-down policy. The result is `success` once every check ran.
    public func setUIPolicyAccountIds(app bundle: BundleID, window: String, accounts ids: [String], pin: String? = nil,
                                      now: Instant? = nil) throws -> MergedViewReport {
        let app = try descriptor(bundle)
        let owner = accountScope(app)
        let signedIn = try signedInAccounts(app: owner)
        var asked: [(id: String, account: Account?)] = []
        for id in ids {
            guard !id.isEmpty else {
                if !asked.contains(where: { $0.id.isEmpty }) { asked.append(("", nil)) }
                continue
            }
            guard let a = signedIn.first(where: { $0.matches(id) }) else {
                return MergedViewReport(result: .notAllowed, decision: .blocked(.identitySwitchNotAllowed, because: "\(id) is not signed in to \(app.bundleID): a window can show only its accounts"),
                                        shown: [], blocked: [], warnings: [])
            }
            if !asked.contains(where: { $0.account?.isSame(as: a) ?? false }) { asked.append((a.description, a)) }
        }
        var shown: [String] = []
        var blocked: [MergedViewReport.Blocked] = []
        var warnings: [String] = []
        var owning: String?
        for (id, account) in asked {
            guard let account, fleet.isManaged(account, in: bundle) else {
                shown.append(id)
                continue
            }
            let r = try setUIPolicyAccountId(app: bundle, window: window, account: id, pin: pin, now: now)
            warnings += r.warnings
            switch r.result {
            case .success:
                shown.append(id)
                if owning == nil { owning = id }
            case .canceled: blocked.append(.init(account: account, reason: .conditionalLaunchCanceled, why: r.decision.explanation))
            case .notAllowed, .failed: blocked.append(.init(account: account, reason: .conditionalLaunchBlocked, why: r.decision.explanation))
            }
        }
        let identity = owning ?? ""
        let list = shown.count > 1 ? String(decoding: try JSONEncoder().encode(shown), as: UTF8.self) : nil
        try writeStore { db in
            try db.execute(sql: "INSERT OR REPLACE INTO ui_identity (app, window, identity, accounts) VALUES (?, ?, ?, ?)",
                           arguments: [app.bundleID.folded, window, shown.count == 1 ? shown[0] : identity, list])
        }
        let what = shown.isEmpty ? "nothing" : shown.map { $0.isEmpty ? "the unmanaged identity" : $0 }.joined(separator: ", ")
        let policy = shown.count > 1 && owning != nil ? "; with \(owning!) among several accounts, the SDK's lock-down policy applies" : ""
        let hidden = blocked.isEmpty ? "" : "; blocked: " + blocked.map { "\($0.account) (\($0.reason.rawValue))" }.joined(separator: ", ")
        return MergedViewReport(result: .success, decision: .allowed("window \(window.isEmpty ? "(main)" : window) shows \(what)\(policy)\(hidden)"),
                                shown: shown, blocked: blocked, warnings: warnings)
    }
}
