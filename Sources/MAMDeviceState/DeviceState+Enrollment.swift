import Foundation
import GRDB
public import MAMModel
public import MAMPolicy

/// An app's enrollment of one account, as the SDK holds it.
public struct EnrollmentRecord: Sendable, Hashable {
    public enum State: String, Sendable {
        /// Registered with the SDK, not enrolled: a failed enrollment it tries again.
        case registered
        case enrolled
    }

    public let account: Account
    public let state: State
    /// The last status the app's delegate received for the account.
    public let status: EnrollmentStatus
    /// When the SDK tries a registered account again.
    public let retryAt: Instant?
    /// The policy the app holds for the account (its catalogue key), when it holds one.
    public let heldPolicy: String?
    /// Whether the app received a policy (or its absence) from the service at all.
    public let holdsPolicy: Bool
}

/// One status an app's enrollment delegate received: the report's timeline.
public struct EnrollmentEvent: Sendable, Hashable {
    public enum Kind: String, Sendable {
        /// `enrollmentRequestWithStatus`
        case enrollment
        /// `policyRequestWithStatus` (a check-in)
        case policy
        /// `unenrollRequestWithStatus`
        case unenrollment
    }

    public let time: Instant
    public let app: String
    public let account: String
    public let kind: Kind
    public let status: EnrollmentStatus
    /// What made the request: `enroll`, `signIn`, `checkIn`, `launch`, `resume`, `cadence`,
    /// `retry`, `unenroll`, `wipe`.
    public let via: String
    public let detail: String
}

/// The enrollment lifecycle and the service's view of the tenant (SCENARIOS.md v1.3): what each
/// app holds, what the service would answer now (licences and assignments as visible after the
/// propagation delay), the faults a scenario injects and the wipes waiting for a check-in.
/// Every change is one transaction, so a killed host or child loses none of it.
extension DeviceState {
    // MARK: Records

    /// The accounts `app` is registered or enrolled with.
    public func enrollments(app bundle: BundleID) throws -> [EnrollmentRecord] {
        let owner = try enrollmentOwner(bundle)
        let rows = try readStore { db in
            // Prepared once: every launch asks. Compiled each time (GRDB's authorizer called
            // for each column), it made a fleet's start cost the host a fifth more CPU per app.
            try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM enrollment WHERE app = ? ORDER BY since, account_key"), arguments: [owner])
        }
        return rows.compactMap { row in
            guard let account = fleet.account(named: row["account_key"]), let state = EnrollmentRecord.State(rawValue: row["state"]),
                  let status = EnrollmentStatus(rawValue: UInt32(row["status"] as Int64)) else { return nil }
            let retry: Double? = row["retry_at"]
            return EnrollmentRecord(account: account, state: state, status: status, retryAt: retry.map(Instant.init(secondsSince1970:)),
                                    heldPolicy: row["held_policy"], holdsPolicy: row["holds"])
        }
    }

    /// The account `app` is enrolled with (the SDK enrolls one account an app).
    public func enrolledAccount(app bundle: BundleID) throws -> Account? {
        try enrollments(app: bundle).first { $0.state == .enrolled }?.account
    }

    /// Records the status the app's delegate got for `account`, and what it leaves the app
    /// with: enrolled (holding the policy `policy`), registered (tried again at `retryAt`), or
    /// neither (`nil`).
    public func recordEnrollment(app bundle: BundleID, account: Account, kind: EnrollmentEvent.Kind, status: EnrollmentStatus,
                                 via: String, detail: String, state: EnrollmentRecord.State?, retryAt: Instant? = nil,
                                 holding policy: String?? = nil) throws {
        let owner = try enrollmentOwner(bundle)
        let key = Self.key(of: account)
        try writeStore { db in
            try db.execute(sql: "INSERT INTO enrollment_event (time, app, account, kind, status, via, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
                           arguments: [now.secondsSince1970, owner, account.description, kind.rawValue, Int64(status.rawValue), via, detail])
            guard let state else {
                // Deregistered (SDK header: 104 "de-registered the account with the SDK").
                try Self.deregister(db, owner: owner, key: key)
                return
            }
            try db.execute(sql: "DELETE FROM deregistered WHERE app = ? AND account_key = ?", arguments: [owner, key])
            if state == .enrolled, fleet.isManaged(account) {
                // The device's managed account (RULES.md §5), when none holds the device: a
                // second account then gets 227 until this one is gone from every app.
                let held = try Self.setting(db, "enrolled_account")
                // (As the enrollment desk reads it: deregistered from every app, the first
                // account no longer holds the device, signed in or not — SDK issue #537.)
                let holds = try held.map { try Bool.fetchOne(db, sql: "SELECT 1 FROM enrollment WHERE account_key = ?", arguments: [$0]) ?? false } ?? false
                if !holds { try Self.setSetting(db, "enrolled_account", key) }
            }
            // A refusal of the app's own call (not a sign-in's) leaves the account inactive there
            // until a retry succeeds; a retry keeps what the first refusal decided.
            let refusedByCall = state == .registered && kind == .enrollment && via != "signIn"
            try db.execute(sql: """
                INSERT INTO enrollment (app, account_key, state, status, since, retry_at, refused_by_call) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (app, account_key) DO UPDATE SET state = excluded.state, status = excluded.status, retry_at = excluded.retry_at,
                    refused_by_call = CASE WHEN excluded.state <> 'registered' THEN 0 WHEN state = 'registered' THEN refused_by_call
                                           ELSE excluded.refused_by_call END
                """, arguments: [owner, key, state.rawValue, Int64(status.rawValue), now.secondsSince1970, retryAt?.secondsSince1970, refusedByCall])
            if let policy {
                try db.execute(sql: "UPDATE enrollment SET held_policy = ?, holds = 1 WHERE app = ? AND account_key = ?",
                               arguments: [policy, owner, key])
            }
        }
        try refreshInactive()
    }

    /// The app `bundle` (its enrollment owner) no longer holds `account`: the admin's wipe of
    /// an account not signed in there, or the SDK's own deregistration.
    public func deregister(app bundle: BundleID, account: Account) throws {
        let owner = try enrollmentOwner(bundle)
        try writeStore { db in try Self.deregister(db, owner: owner, key: Self.key(of: account)) }
        try refreshInactive()
    }

    /// The app `owner` no longer holds the account `key`: its record goes, and it is marked
    /// deregistered there.
    static func deregister(_ db: Database, owner: String, key: String) throws {
        try db.execute(sql: "DELETE FROM enrollment WHERE app = ? AND account_key = ?", arguments: [owner, key])
        try db.execute(sql: "INSERT OR IGNORE INTO deregistered (app, account_key) VALUES (?, ?)", arguments: [owner, key])
    }

    /// Sets `fleet.inactive` from the store: per account, the apps whose enrollment of it was
    /// refused (a registered record: the SDK tries again later) or that deregistered it. One
    /// answer for every question about such an account there: App Protection isn't active for
    /// it (memdocs app-protection-policy-delivery.md).
    func refreshInactive() throws {
        let rows = try readStore { db in
            try Row.fetchAll(db, sql: "SELECT app, account_key FROM enrollment WHERE state = ? AND refused_by_call = 1 UNION SELECT app, account_key FROM deregistered",
                             arguments: [EnrollmentRecord.State.registered.rawValue])
        }
        var places: [String: Set<BundleID>] = [:]
        for row in rows { places[row["account_key"], default: []].insert(BundleID(row["app"] as String)) }
        for account in fleet.accounts {
            let want = places[Self.key(of: account)] ?? []
            if (fleet.inactive[Self.key(of: account)] ?? []) != want { fleet.setInactive(want, for: account) }
        }
    }

    /// Whether any app holds `account` registered or enrolled: deregistered from every app, it
    /// is no longer the device's managed account (SDK issue #537: a second account enrolls).
    public func isEnrolledInAnyApp(_ account: Account) throws -> Bool {
        try readStore { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM enrollment WHERE account_key = ?", arguments: [Self.key(of: account)]) ?? false
        }
    }

    /// Lets the device's managed account go once no app holds it registered or enrolled.
    public func releaseManagedAccountIfUnenrolled(_ account: Account) throws {
        guard try !isEnrolledInAnyApp(account), let managed = try enrolledManagedAccount, managed.isSame(as: account) else { return }
        try writeStore { db in try Self.setSetting(db, "enrolled_account", nil) }
    }

    /// A status the delegate got that changes no record (a refused request).
    public func recordEnrollmentEvent(app bundle: BundleID, account: String, kind: EnrollmentEvent.Kind, status: EnrollmentStatus,
                                      via: String, detail: String) throws {
        let owner = try enrollmentOwner(bundle)
        try writeStore { db in
            try db.execute(sql: "INSERT INTO enrollment_event (time, app, account, kind, status, via, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
                           arguments: [now.secondsSince1970, owner, account, kind.rawValue, Int64(status.rawValue), via, detail])
        }
    }

    /// Every status apps' delegates received, in order (`app`: one app's).
    public func enrollmentEvents(app bundle: BundleID? = nil) throws -> [EnrollmentEvent] {
        let owner = try bundle.map(enrollmentOwner)
        let rows = try readStore { db in
            try Row.fetchAll(db, sql: "SELECT * FROM enrollment_event WHERE ? IS NULL OR app = ? ORDER BY rowid", arguments: [owner, owner])
        }
        return rows.compactMap { row in
            guard let kind = EnrollmentEvent.Kind(rawValue: row["kind"]), let status = EnrollmentStatus(rawValue: UInt32(row["status"] as Int64))
            else { return nil }
            return EnrollmentEvent(time: Instant(secondsSince1970: row["time"]), app: row["app"], account: row["account"], kind: kind,
                                   status: status, via: row["via"], detail: row["detail"])
        }
    }

    /// Enrollment is the containing app's: an extension shares its app's SDK state.
    private func enrollmentOwner(_ bundle: BundleID) throws -> String {
        let app = try descriptor(bundle)
        return (app.containingApp ?? app.bundleID).folded
    }

    // MARK: The service's view of the tenant

    /// Whether the account holds an Intune licence as the service sees it now.
    public func isLicensed(_ account: Account) throws -> Bool {
        let row = try readStore { db in
            try Row.fetchOne(db, sql: "SELECT licensed, previous, visible_at FROM license WHERE account_key = ?", arguments: [Self.key(of: account)])
        }
        guard let row else { return !isUnlicensedAtStart(account) }
        let visibleAt: Double = row["visible_at"]
        return now.secondsSince1970 >= visibleAt ? row["licensed"] : row["previous"]
    }

    private func isUnlicensedAtStart(_ account: Account) -> Bool {
        let unlicensed = fleet.service.unlicensed
        return unlicensed.contains(account.upnKey) || (!account.oidKey.isEmpty && unlicensed.contains(account.oidKey))
    }

    /// The administrator gives or takes the account's licence; the service sees it after the
    /// propagation delay.
    public func setLicense(_ accountID: String, licensed: Bool) throws {
        guard let account = fleet.account(named: accountID) else { throw Self.unknownAccount(accountID) }
        let previous = try isLicensed(account)
        try writeStore { db in
            try db.execute(sql: "INSERT OR REPLACE INTO license (account_key, licensed, previous, visible_at) VALUES (?, ?, ?, ?)",
                           arguments: [Self.key(of: account), licensed, previous, now.secondsSince1970 + fleet.service.propagation])
        }
    }

    /// Keeps what the service saw of the account's assignment until the propagation delay is
    /// over (called before an assignment changes).
    func recordAssignmentChange(_ db: Database, account: Account) throws {
        guard fleet.service.propagation > 0 else { return }
        let previous = fleet.policy(for: account).map(Self.policyKey)
        try db.execute(sql: "INSERT OR REPLACE INTO assignment_change (account_key, previous, visible_at) VALUES (?, ?, ?)",
                       arguments: [Self.key(of: account), previous, now.secondsSince1970 + fleet.service.propagation])
    }

    /// The policy the service assigns the account in `app` now (its catalogue key), `nil` when
    /// none targets the app for the account: an assignment changed less than the propagation
    /// delay ago is still the one before.
    public func servicePolicy(for account: Account, in bundle: BundleID) throws -> IosManagedAppProtection? {
        let row = try readStore { db in
            try Row.fetchOne(db, sql: "SELECT previous, visible_at FROM assignment_change WHERE account_key = ?", arguments: [Self.key(of: account)])
        }
        if let row, now.secondsSince1970 < (row["visible_at"] as Double) {
            let previous: String? = row["previous"]
            var seen = fleet
            seen.setPolicy(previous.flatMap { policyCatalog[$0] }, for: account)
            return seen.assignedPolicy(for: account, in: bundle)
        }
        return fleet.assignedPolicy(for: account, in: bundle)
    }

    // MARK: Faults and wipes waiting for a check-in

    /// The next `times` calls of `call` (`enroll`, `checkIn`, `unenroll`, `token`) answer `status`.
    public func addServiceFault(call: String, status: EnrollmentStatus, times: Int) throws {
        try writeStore { db in
            try db.execute(sql: "INSERT OR REPLACE INTO service_fault (call, status, remaining) VALUES (?, ?, ?)",
                           arguments: [call, Int64(status.rawValue), times])
        }
    }

    /// Whether some calls of `call` are still to fail.
    public func hasServiceFault(call: String) throws -> Bool {
        try readStore { db in try Bool.fetchOne(db, sql: "SELECT 1 FROM service_fault WHERE call = ? AND remaining > 0", arguments: [call]) ?? false }
    }

    /// When what the service answers may change between `start` and `end`: a licence or an
    /// assignment becoming visible to it, a registered account's retry.
    public func serviceChangeTimes(after start: Instant, upTo end: Instant) throws -> [Instant] {
        try readStore { db in
            try Double.fetchAll(db, sql: """
                SELECT visible_at FROM license WHERE visible_at > ?1 AND visible_at <= ?2
                UNION SELECT visible_at FROM assignment_change WHERE visible_at > ?1 AND visible_at <= ?2
                UNION SELECT retry_at FROM enrollment WHERE retry_at > ?1 AND retry_at <= ?2
                ORDER BY 1
                """, arguments: [start.secondsSince1970, end.secondsSince1970])
        }.map(Instant.init(secondsSince1970:))
    }

    /// The fault the next call of `call` answers, counted off.
    public func takeServiceFault(call: String) throws -> EnrollmentStatus? {
        let row = try readStore { db in try Row.fetchOne(db, sql: "SELECT status, remaining FROM service_fault WHERE call = ?", arguments: [call]) }
        guard let row, (row["remaining"] as Int) > 0, let status = EnrollmentStatus(rawValue: UInt32(row["status"] as Int64)) else { return nil }
        try writeStore { db in
            try db.execute(sql: "UPDATE service_fault SET remaining = remaining - 1 WHERE call = ?", arguments: [call])
            try db.execute(sql: "DELETE FROM service_fault WHERE remaining <= 0")
        }
        return status
    }

    /// The administrator's selective wipe of the account in `app`, waiting for its next check-in.
    public func addPendingWipe(app bundle: BundleID, account: Account) throws {
        let owner = try enrollmentOwner(bundle)
        try writeStore { db in
            try db.execute(sql: "INSERT OR IGNORE INTO pending_wipe (app, account_key) VALUES (?, ?)", arguments: [owner, Self.key(of: account)])
        }
    }

    public func hasPendingWipe(app bundle: BundleID, account: Account) throws -> Bool {
        let owner = try enrollmentOwner(bundle)
        return try readStore { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM pending_wipe WHERE app = ? AND account_key = ?", arguments: [owner, Self.key(of: account)]) ?? false
        }
    }

    public func removePendingWipe(app bundle: BundleID, account: Account) throws {
        let owner = try enrollmentOwner(bundle)
        try writeStore { db in
            try db.execute(sql: "DELETE FROM pending_wipe WHERE app = ? AND account_key = ?", arguments: [owner, Self.key(of: account)])
        }
    }

    /// The accounts with a wipe waiting in `app`.
    public func pendingWipes(app bundle: BundleID) throws -> [Account] {
        let owner = try enrollmentOwner(bundle)
        return try readStore { db in
            try String.fetchAll(db, sql: "SELECT account_key FROM pending_wipe WHERE app = ?", arguments: [owner])
        }.compactMap { fleet.account(named: $0) }
    }

    // MARK: What an app holds

    /// The fleet as `app` holds it (`delivery: checkIn`): each account's policy is the one the
    /// app received at its last check-in, none before its first. With immediate delivery the
    /// app holds what the service assigns, and this is the device's fleet.
    public func fleet(heldBy bundle: BundleID) throws -> Fleet {
        guard fleet.service.delivery == .checkIn else { return fleet }
        let owner = try enrollmentOwner(bundle)
        if let held = heldFleets[owner], held.generation == generation { return held.fleet }
        let rows = try readStore { db in
            try Row.fetchAll(db, sql: "SELECT account_key, held_policy FROM enrollment WHERE app = ? AND holds = 1", arguments: [owner])
        }
        var held = fleet
        var holding: [String: IosManagedAppProtection?] = [:]
        for row in rows { holding[row["account_key"]] = (row["held_policy"] as String?).flatMap { policyCatalog[$0] } }
        for account in fleet.accounts {
            held.setPolicy(holding[Self.key(of: account)] ?? nil, for: account)
        }
        heldFleets[owner] = (generation, held)
        return held
    }
}
