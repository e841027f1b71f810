import GRDB
public import MAMModel
import MAMPolicy
import Foundation

/// What conditional launch decided when an app was launched or resumed (RULES.md §8).
public struct LaunchCheckReport: Sendable, Hashable, CustomStringConvertible {
    /// `allowed` when the app may show the org data it shows, else `blocked(conditional-launch)`.
    public let decision: Verdict
    /// Sentences of the checks whose action is `warn`.
    public let warnings: [String]
    /// Set when a `wipe` action signed the account out of the app and deleted its data.
    public let wipe: WipeReport?
    /// Whether the app checked in with the Intune service (the device was online).
    public let checkedIn: Bool

    public init(decision: Verdict, warnings: [String], wipe: WipeReport?, checkedIn: Bool) {
        self.decision = decision
        self.warnings = warnings
        self.wipe = wipe
        self.checkedIn = checkedIn
    }

    public var description: String { decision.description }
}

/// The app lifecycle the device sees: launch (with the windows a relaunched app restores),
/// pause and resume, the network the check-ins need, and the access a failed conditional
/// launch takes away.
extension DeviceState {
    // MARK: Network

    /// Whether the device is online (`setNetwork`); a new device is.
    public func isOnline() throws -> Bool {
        if let knownNetwork { return knownNetwork }
        let online = try readStore { db in try Self.setting(db, "network") } != "offline"
        knownNetwork = online
        return online
    }

    public func setNetwork(online: Bool) throws {
        knownNetwork = nil
        try writeStore { db in try Self.setSetting(db, "network", online ? nil : "offline") }
        knownNetwork = online
    }

    // MARK: Access blocked by conditional launch

    /// Whether the next check-in fails: a fault waits for it, or for the token it needs.
    func checkInWillFail() throws -> Bool {
        try hasServiceFault(call: "checkIn") || hasServiceFault(call: "token")
    }

    /// Why conditional launch keeps `app` from org data since its last launch or resume;
    /// `nil` when it does not. A successful switch to a managed identity, or a launch or resume
    /// that passes, opens access again.
    /// A block lasts while the app holds the policy it was decided under: once it holds
    /// another for that account (an administrator's change, delivered at once or at a
    /// check-in), the block came from a policy it no longer has.
    public func accessBlock(app bundle: BundleID) throws -> String? {
        guard let owner = fleet.app(bundle) else { return nil }
        let key = (owner.containingApp ?? owner.bundleID).folded
        let stored: (why: String?, under: String?)
        if let cached = readCache.accessBlocked[key] {
            stored = cached
        } else {
            let row = try readStore { db in
                try Row.fetchOne(db.cachedStatement(sql: "SELECT access_blocked, access_blocked_under FROM app_state WHERE app = ?"), arguments: [key])
            }
            stored = (row?["access_blocked"], row?["access_blocked_under"])
            readCache.accessBlocked[key] = stored
        }
        guard let why = stored.why else { return nil }
        guard let under = stored.under, let tab = under.firstIndex(of: "\t") else { return why }
        let accountKey = String(under[..<tab]), policyKey = String(under[under.index(after: tab)...])
        guard let account = fleet.accounts.first(where: { Self.key(of: $0) == accountKey }) else { return why }
        let held = try fleet(heldBy: owner.containingApp ?? owner.bundleID).policy(for: account, in: owner.containingApp ?? owner.bundleID)
        return held.map(Self.policyKey) == policyKey ? why : nil
    }

    /// `under`: the account the block is about and the policy it was decided with.
    static func setAccessBlock(_ db: Database, app: BundleID, _ why: String?, under: (account: Account, policy: IosManagedAppProtection?)? = nil) throws {
        let decided = under.flatMap { u in u.policy.map { "\(key(of: u.account))\t\(policyKey($0))" } }
        try db.execute(sql: """
            INSERT INTO app_state (app, access_blocked, access_blocked_under) VALUES (?, ?, ?)
            ON CONFLICT (app) DO UPDATE SET access_blocked = excluded.access_blocked, access_blocked_under = excluded.access_blocked_under
            """, arguments: [app.folded, why, decided])
    }

    // MARK: Launch and resume

    /// A new process of `app` started (launch or relaunch after a kill). A multi-identity app
    /// starts with no process identity (RULES.md §1), a single-identity app with its enrolled
    /// account. An app that restores its state (`AppDescriptor.restoresState`) shows again
    /// the windows it showed, with the accounts still signed in to it; one that does not
    /// starts with no window identity. Sign-ins, file owners, keychain items and the PIN are
    /// device state and stay. Returns the layers the new process starts with.
    @discardableResult
    public func appLaunched(app bundle: BundleID) throws -> IdentityLayers {
        try resetIdentitiesAtLaunch(app: bundle)
        return try identityLayers(app: bundle)
    }

    /// `appLaunched` without reading the layers back: what the host does at each spawn.
    public func resetIdentitiesAtLaunch(app bundle: BundleID) throws {
        let app = try descriptor(bundle)
        let processIdentity: String? = try writeStore { db in
            let folded = app.bundleID.folded
            if app.restoresState, !app.isExtension {
                let signedIn = Set(try String.fetchAll(db.cachedStatement(sql: "SELECT account_key FROM sign_in WHERE app = ?"), arguments: [folded]))
                for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT window, identity FROM ui_identity WHERE app = ?"), arguments: [folded]) {
                    let identity: String? = row["identity"]
                    if let identity, !identity.isEmpty, !signedIn.contains(identityKey(identity)) {
                        try db.execute(sql: "DELETE FROM ui_identity WHERE app = ? AND window = ?", arguments: [folded, row["window"] as String])
                    }
                }
            } else {
                try db.cachedStatement(sql: "DELETE FROM ui_identity WHERE app = ?").execute(arguments: [folded])
            }
            if app.multiIdentity {
                try Self.storeProcessIdentity(db, app: app.bundleID, nil)
                return nil
            }
            return try refreshSingleIdentityProcess(db, app: app)
        }
        // Committed: the app's handshake reads it next, from here rather than the store.
        readCache.processIdentity[app.bundleID.folded] = .some(processIdentity)
    }

    /// Conditional launch when `app` is launched or resumed (RULES.md §8). The app checks in
    /// first when the device is online. It runs for the managed accounts the app shows: a
    /// single-identity app's process identity, a multi-identity app's restored windows (a
    /// multi-identity app showing nothing managed runs it on its first managed switch). A
    /// `block` keeps the app from org data until a launch, resume or managed switch passes; a
    /// `wipe` signs the account out of the app and deletes its data there.
    static let autofillConditionalLaunchSDK = Version("22.2.0")!

    public func launchChecks(app bundle: BundleID, inactiveFor: Double? = nil, enteredPin: String? = nil) throws -> LaunchCheckReport {
        let app = try descriptor(bundle)
        // An AutoFill credential provider runs conditional launch at its own launch (SDK 22.2),
        // for the account its containing app holds; its block is its own.
        let owner = app.kind == .autofill ? (app.containingApp.flatMap { fleet.app($0) } ?? app) : app
        guard !app.isExtension || app.kind == .autofill, app.sdkIntegrated else {
            return LaunchCheckReport(decision: .allowed("\(app.bundleID) does not integrate the Intune SDK: no conditional launch"),
                                     warnings: [], wipe: nil, checkedIn: false)
        }
        // AutoFill conditional launch came with SDK 22.2.0: an extension whose app links an
        // older SDK (its own version, else its containing app's) has none.
        if app.kind == .autofill, let written = app.sdkVersion ?? owner.sdkVersion, let sdk = Version(written), sdk < Self.autofillConditionalLaunchSDK {
            return LaunchCheckReport(decision: .allowed("\(app.bundleID) links Intune SDK \(written), older than \(Self.autofillConditionalLaunchSDK): an AutoFill extension has no conditional launch before it"),
                                     warnings: [], wipe: nil, checkedIn: false)
        }
        let online = try isOnline()
        // A check-in the service will fail (an injected fault the policy request then meets)
        // restarts neither the cadence nor the offline grace period (SCENARIOS.md v1.3).
        let failing = try online && checkInWillFail()
        if online, !failing { try checkIn(app: owner.bundleID) }
        let checkedIn = !online ? "offline, no check-in" : failing ? "its check-in failed" : "checked in"
        var shown: [Account] = []
        if app.kind == .autofill {
            // Single-identity unless its own Info.plist says otherwise: the enrolled account.
            if let a = try signedInAccounts(app: owner.bundleID).first(where: { fleet.isManaged($0, in: bundle) }) { shown.append(a) }
        } else if app.multiIdentity {
            let windows = try readStore { db in
                try String.fetchAll(db, sql: "SELECT identity FROM ui_identity WHERE app = ? AND identity IS NOT NULL ORDER BY window",
                                    arguments: [app.bundleID.folded])
            }
            for id in windows {
                if let a = account(forIdentity: id), fleet.isManaged(a, in: bundle), !shown.contains(where: { $0.isSame(as: a) }) { shown.append(a) }
            }
        } else if let a = account(forIdentity: try processIdentity(app: bundle)), fleet.isManaged(a, in: bundle) {
            shown.append(a)
        }
        var warnings: [String] = []
        for account in shown {
            let facts = try launchFacts(app: app, account: account, at: now)
            let publisher = self.publisher(of: app)
            let pin = try pinState(for: account.description, publisher: publisher)
            let checked = PolicyReads.decision(in: fleet) { fleet in
                Enforcer.launchChecks(for: account, facts: facts, app: bundle, in: fleet, inactiveFor: inactiveFor, enteredPin: enteredPin, pin: pin)
            }
            guard let outcome = checked else { continue }
            // The PIN asked again after inactivity (wrong entries count, a reset sticks), and
            // the access that starts the next recheck window.
            if outcome.pin != pin {
                try writeStore { db in try Self.storePin(db, account: account, publisher: publisher, outcome.pin) }
            }
            warnings += outcome.warnings
            guard outcome.result != .success else { continue }
            let why = outcome.decision.explanation.replacingOccurrences(of: "this app", with: "\(app.bundleID)")
            if outcome.action == .wipe {
                let report = try writeStore { db -> WipeReport in
                    try removeSignIn(db, app: app, account: account)
                    return try wipeData(db, app: app, account: account, appHandledWipe: false)
                }
                return LaunchCheckReport(decision: .blocked(.conditionalLaunch, because: "\(why); \(account) is signed out of \(app.bundleID) (\(checkedIn))"),
                                         warnings: warnings, wipe: report, checkedIn: online)
            }
            let decidedUnder = try fleet(heldBy: owner.bundleID).policy(for: account, in: bundle)
            try writeStore { db in try Self.setAccessBlock(db, app: app.bundleID, why, under: (account, decidedUnder)) }
            return LaunchCheckReport(decision: .blocked(.conditionalLaunch, because: "\(why); the app runs without access to org data (\(checkedIn))"),
                                     warnings: warnings, wipe: nil, checkedIn: online)
        }
        // Most launches pass with nothing blocked before: no write to make.
        if try accessBlock(app: app.bundleID) != nil {
            try writeStore { db in try Self.setAccessBlock(db, app: app.bundleID, nil) }
        }
        let what = shown.isEmpty ? "no managed account shown, nothing to check" : "conditional launch passed for \(shown.map(\.description).joined(separator: ", "))"
        return LaunchCheckReport(decision: .allowed("\(app.bundleID) opened: \(what) (\(checkedIn))"), warnings: warnings, wipe: nil, checkedIn: online)
    }
}
