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
        let fresh = memory.withLock { $0.reported.insert("\(check.rawValue) \(file):\(line)").inserted }
        guard fresh else { return }
        MAMIntuneFacade.send(Service.StrictFinding(check: check.rawValue, call: call, file: file, line: UInt32(clamping: line), detail: detail))
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
}
