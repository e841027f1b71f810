import Foundation
import MAMKit
import MAMModel
import MAMWire
import Synchronization

/// Strict Mode (docs/STRICT.md): the façade sees every SDK call the app's code makes, so it
/// reports the integration mistakes it sees — each once per check and line — to the host, with
/// the caller's file and line (the `file`/`line` parameters the SDK-named methods take by
/// default, so a team's call compiles unchanged). The host keeps them; `--strict` fails the run.
enum Strict {
    /// What the façade saw of enrollment, for the checks that need its history.
    private struct Memory {
        /// Lines already reported, per check: a loop reports its mistake once.
        var reported: Set<String> = []
        /// The first enrollment call made while no enrollment delegate was set.
        var enrolledWithoutDelegate: (call: String, file: String, line: UInt)?
        /// Accounts the SDK refused with a status no retry changes, with that status.
        var refused: [String: EnrollmentStatus] = [:]
        /// The account screen the app put up (`setUIPolicyAccountId`), where.
        var screen: (accountId: String, file: String, line: UInt)?
        /// How many policy changes the app was told, per account (its key: `policyKey`).
        var changes: [String: Int] = [:]
    }

    /// Where the app's code made an SDK call.
    struct Site: Sendable {
        var call: String
        var file: String
        var line: UInt
    }
    private static let memory = Mutex(Memory())
    /// The thread-dictionary key set while the façade calls an enrollment delegate: a
    /// deregistration on that thread, then, is made from inside the callback (one dispatched
    /// for later runs after it and is not).
    static let callbackKey = "mamsim.strict.enrollment-callback"
    static var inEnrollmentCallback: Bool { Thread.current.threadDictionary[callbackKey] != nil }

    /// Runs `body` (the app's delegate method) marked as inside an enrollment callback.
    static func inCallback(_ body: () -> Void) {
        let dictionary = Thread.current.threadDictionary
        dictionary[callbackKey] = true
        defer { dictionary.removeObject(forKey: callbackKey) }
        body()
    }

    /// Refusals a retry does not change: another user's device enrollment (210), an account
    /// the service does not manage for this app (214), a second account in a single-account
    /// app (227).
    static let finalRefusals: Set<EnrollmentStatus> = [.mdmEnrolledDifferentUser, .notEnrolledAccount, .singleManagedAccountMode]

    /// Forgets what the façade saw: a new connection is a new process of the app.
    static func reset() { memory.withLock { $0 = Memory() } }

    static func report(_ check: StrictCheck, _ call: String, _ file: String, _ line: UInt, _ detail: String) {
        guard let finding = fresh(check, call, file, line, detail) else { return }
        MAMIntuneFacade.send(finding)
    }

    /// Reports and waits for the host's receipt: for a finding that must reach the host before
    /// what the app does next (its answer to a restart, which ends the process).
    static func reportNow(_ check: StrictCheck, _ call: String, _ file: String, _ line: UInt, _ detail: String) async {
        guard let finding = fresh(check, call, file, line, detail) else { return }
        _ = await MAMIntuneFacade.app.call(finding)
    }

    private static func fresh(_ check: StrictCheck, _ call: String, _ file: String, _ line: UInt, _ detail: String) -> Service.StrictFinding? {
        let fresh = memory.withLock { $0.reported.insert("\(check.rawValue) \(file):\(line)").inserted }
        guard fresh else { return nil }
        return Service.StrictFinding(check: check.rawValue, call: call, file: file, line: UInt32(clamping: line), detail: detail)
    }

    /// `accountId` where the SDK takes an account id: a UPN of an account the app knows by its
    /// OID is the mistake (SDK 20+ takes OIDs; the SDK reads it as no account).
    static func checkAccountId(_ accountId: String?, _ call: String, _ file: String, _ line: UInt) {
        guard let accountId, accountId.contains("@") else { return }
        guard let known = MAMIntuneFacade.directory().accounts.first(where: { $0.matches(accountId) }), !known.oid.isEmpty else { return }
        report(.accountIdIsUPN, call, file, line, "\(accountId) is a UPN; the account id of that account is its OID, \(known.oid)")
    }

    /// An enrollment call: remembered when no delegate will hear its status; a retry of a
    /// final refusal is the mistake.
    static func enrollmentCalled(_ accountId: String?, delegateSet: Bool, _ call: String, _ file: String, _ line: UInt) {
        let refusal: EnrollmentStatus? = memory.withLock { m in
            if !delegateSet && m.enrolledWithoutDelegate == nil { m.enrolledWithoutDelegate = (call, file, line) }
            guard let accountId, !accountId.isEmpty else { return nil }
            return m.refused[accountId.lowercased()]
        }
        if let refusal, let accountId {
            report(.enrollmentRetriedAfterRefusal, call, file, line,
                   "the SDK refused \(accountId) with \(refusal.rawValue) (\(refusal.name)), which no retry changes; tell the user instead")
        }
    }

    /// The enrollment delegate was set: late when an enrollment call came before it.
    static func enrollmentDelegateSet() {
        guard let first = memory.withLock({ m -> (call: String, file: String, line: UInt)? in
            defer { m.enrolledWithoutDelegate = nil }
            return m.enrolledWithoutDelegate
        }) else { return }
        report(.enrollmentDelegateLate, first.call, first.file, first.line,
               "\(first.call) was called before IntuneMAMEnrollmentManager's delegate was set; set the delegate first, at launch")
    }

    /// A status the app's delegate hears: a final refusal is remembered for its account.
    static func statusTold(_ status: IntuneMAMEnrollmentStatus) {
        guard finalRefusals.contains(status.statusCode) else { return }
        memory.withLock { m in
            for name in [status.accountId, status.identity] where !name.isEmpty { m.refused[name.lowercased()] = status.statusCode }
        }
    }

    // MARK: locations

    /// Save and open locations that belong to an account: the SDK's documentation says the
    /// account of the location "must be passed" for these (seed 000); for the others `nil`
    /// (no account, an unknown owner) is right.
    static let accountSaveLocations: Set<IntuneMAMSaveLocation> = [.oneDriveForBusiness, .sharePoint, .accountDocument]
    static let accountOpenLocations: Set<IntuneMAMOpenLocation> = [.oneDriveForBusiness, .sharePoint, .accountDocument]

    static func checkLocation(_ location: String, needsAccount: Bool, _ accountId: String?, _ call: String, _ file: String, _ line: UInt) {
        guard needsAccount, accountId?.isEmpty ?? true else { return }
        report(.locationNeedsAccount, call, file, line,
               "\(location) belongs to an account: pass the OID of the account signed in to it (nil reads as an unmanaged owner, whose answer is not that account's policy)")
    }

    // MARK: restart

    /// The app put an account's screen up: state a restart the app does not handle loses.
    static func screenShown(_ accountId: String?, _ file: String, _ line: UInt) {
        memory.withLock { m in
            m.screen = (accountId ?? "").isEmpty ? nil : (accountId ?? "", file, line)
        }
    }

    /// The SDK restarts the app; `handled` is the policy delegate's `restartApplication()`.
    /// Reported (the host keeps it only for an app that does not restore its state) before the
    /// answer goes, as the answer ends the process.
    static func restarting(handled: Bool) async {
        guard !handled, let screen = memory.withLock({ $0.screen }) else { return }
        await reportNow(.restartUnhandledWithState, "setUIPolicyAccountId(_:completionHandler:)", screen.file, screen.line,
                        "the SDK restarted the app while this screen showed \(screen.accountId), and no policy delegate handled restartApplication(): implement it to keep the user's place (save it, return true and restart), or restore it at launch")
    }

    // MARK: policy changes

    /// The key a policy is kept under: the account's OID (its UPN when it has none), `""` for
    /// no managed account.
    static func policyKey(upn: String, oid: String) -> String { (oid.isEmpty ? upn : oid).lowercased() }

    /// A policy read (`policy(forAccountId:)` and the others): the change count it was read at.
    static func policyRead(_ key: String, _ site: Site) -> Int {
        memory.withLock { $0.changes[key, default: 0] }
    }

    /// A policy object read at change count `readAt` used now: stale when its account's policy
    /// changed since.
    static func policyUsed(_ key: String, readAt: Int, _ site: Site) {
        guard memory.withLock({ $0.changes[key, default: 0] }) > readAt else { return }
        report(.policyCachedWithoutObserver, site.call, site.file, site.line,
               "the policy read here was used after its account's policy changed: observe IntuneMAMPolicyDidChange and read the policy again")
    }

    /// `key`'s policy changed: counted before the notification is posted, so that an object
    /// read before it and used after it is seen (`policyUsed`). A policy that is simply not read
    /// again is no finding: an app may observe the change and read it later, or never need it
    /// again (issue 87: the team's observer counted changes and read the policy afterwards).
    static func policyChanging(_ key: String) {
        memory.withLock { m in m.changes[key, default: 0] += 1 }
    }
}
