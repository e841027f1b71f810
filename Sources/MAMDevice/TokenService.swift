public import MAMDeviceState
public import MAMModel
public import MAMPolicy
import MAMWire

/// The simulated Entra token service and app protection CA remediation (RULES.md §10): tokens
/// signed with the tenant's key, the compliance delegate's outcome delivered to the running
/// app, remediation loops noticed. A part of the host of its own: it owns the remediations
/// under way and their history, and answers the apps' `acquireToken` and
/// `remediateCompliance` requests.
public final class TokenService {
    private let supervisor: Supervisor
    private let state: DeviceState
    private let audit: AuditSink
    /// Tokens issued under `device.service.tokenLifetime`, by app, account and resource: MSAL's
    /// cache, in memory (a restarted host decides the next request afresh).
    private var cachedTokens: [String: (token: String, expires: Instant, homeAccountID: String?)] = [:]
    private let emit: (HostEvent) -> Void
    /// Per app and account, the last remediation outcome, the device state it met and how
    /// many times in a row it came back unchanged (remediation loops).
    private var remediations: [String: (status: ComplianceStatus, state: String, count: Int)] = [:]
    /// Per app (by handle), the remediations asked and not yet told to its delegate: the first
    /// is under way (or held for the user), the others wait their turn.
    private var queues: [String: [PendingRemediation]] = [:]
    /// Per app, who waits for its queue to empty (`finishRemediations`), and what was told since.
    private var draining: [String: [Drain]] = [:]
    /// A remediation repeated this many times in a row with nothing changing is a loop.
    static let remediationLoopThreshold = 3

    init(supervisor: Supervisor, state: DeviceState, audit: AuditSink, onEvent: @escaping (HostEvent) -> Void) {
        self.supervisor = supervisor
        self.state = state
        self.audit = audit
        emit = onEvent
    }

    /// A token for `key` to `resource`, or why not (`protection-policy-required` with the
    /// homeAccountId to remediate, `app-protection-unsupported`, `not-signed-in`). The token is
    /// an ES256 JWT signed with the tenant's key. `fromApp`: the request came from the app's
    /// own process, which gets tokens only for an account the user signed in to it
    /// (`AppSpec.userAccounts`, or signed in to its SDK); a scenario step is the user acting
    /// and is not held to that.
    public func acquireToken(for spec: AppSpec, account key: String, resource: String, fromApp: Bool) -> (TokenDecision, token: String?) {
        do {
            guard let account = state.fleet.account(named: key) else { throw DeviceStateError(.unknownAccount, "\(key) is not an account of this device") }
            if fromApp, try !isUserAccount(account, of: spec) {
                let refused = Verdict.blocked(.notSignedIn, because: "\(account) has not signed in to \(spec.bundleID): the app has no token for that account, and the user was not asked (sign the account in first, or list it under the app's msalAccounts)")
                audit.record(verb: .acquireToken, source: spec.handle, sourceIdentity: account.description, owner: account.description, refused)
                return (TokenDecision(decision: refused, homeAccountID: nil), nil)
            }
            // An injected fault of the token service (serviceFault call: token).
            if let fault = try state.takeServiceFault(call: "token") {
                let refused = Verdict.failed(.internalError, "the token service answered \(fault.described) (an injected fault: serviceFault)")
                audit.record(verb: .acquireToken, source: spec.handle, sourceIdentity: account.description, owner: account.description, refused)
                return (TokenDecision(decision: refused, homeAccountID: nil), nil)
            }
            // With device.service.tokenLifetime, MSAL answers from its cache until the token
            // expires: what changed since (conditional access, compliance) counts only then.
            let cacheKey = "\(spec.identityOwner.folded)\u{0}\(account.upnKey.isEmpty ? account.oidKey : account.upnKey)\u{0}\(resource)"
            if state.fleet.service.tokenLifetime != nil, let cached = cachedTokens[cacheKey], state.now < cached.expires {
                let reused = Verdict.allowed("\(account)'s cached token for \(resource), valid until \(cached.expires) (device.service.tokenLifetime); conditional access is decided again when it expires")
                audit.record(verb: .acquireToken, source: spec.handle, sourceIdentity: account.description, owner: account.description, reused)
                return (TokenDecision(decision: reused, homeAccountID: cached.homeAccountID), cached.token)
            }
            let compliant = try state.isCompliant(app: spec.bundleID, account: account)
            let owner = spec.descriptor.containingApp.flatMap { state.fleet.app($0) } ?? spec.descriptor
            let decision = Enforcer.token(for: account, resource: resource, app: spec.descriptor, capabilities: owner.clientCapabilities,
                                          compliant: compliant, policies: state.conditionalAccess, in: state.fleet)
            audit.record(verb: .acquireToken, source: spec.handle, sourceIdentity: account.description, owner: account.description, decision.decision)
            guard decision.decision.isAllowed else {
                cachedTokens[cacheKey] = nil
                return (decision, nil)
            }
            let token = try state.issueToken(app: spec.bundleID, account: account, resource: resource)
            if let lifetime = state.fleet.service.tokenLifetime {
                cachedTokens[cacheKey] = (token, state.now.advanced(by: ISODuration(seconds: lifetime)), decision.homeAccountID)
            }
            return (decision, token)
        } catch {
            let v = internalFailure(error, doing: "issue a token")
            return (TokenDecision(decision: v, homeAccountID: nil), nil)
        }
    }

    /// The answer to an app's own `acquireToken` request.
    func tokenResult(for spec: AppSpec, account: String, resource: String) -> ServiceResult {
        let (t, token) = acquireToken(for: spec, account: account, resource: resource, fromApp: true)
        return ServiceResult(t.decision, .token(jwt: token ?? "", homeAccountID: t.homeAccountID ?? ""))
    }

    /// An app's own `remediateCompliance`: answered at once, as the SDK's call returns; the
    /// outcome follows as the `complianceStatus` notification. A call for an account already
    /// asked for and not yet told has no effect; another account's waits its turn.
    func startRemediation(for spec: AppSpec, account: String, silent: Bool) -> ServiceResult {
        do {
            let start = try remediate(spec, account: account, silent: silent, userCancels: false, fromApp: true) { _ in }
            return ServiceResult(.allowed(start.explanation(account: account)))
        } catch {
            return ServiceResult(.failed(error.reason, error.message))
        }
    }

    /// An app's own `remediationInProgressForAccountId`.
    func remediationInProgressResult(for spec: AppSpec, account: String) -> ServiceResult {
        do {
            let inProgress = try remediationInProgress(spec, account: account)
            return ServiceResult(.allowed(inProgress ? "a remediation of \(account) is in progress" : "no remediation of \(account) is in progress"),
                                 .flag(inProgress))
        } catch {
            return ServiceResult(.failed(error.reason, error.message))
        }
    }

    /// Whether the user signed `account` in to `spec` (its SDK, or its MSAL cache).
    private func isUserAccount(_ account: Account, of spec: AppSpec) throws -> Bool {
        if spec.userAccounts.contains(where: { account.matches($0) }) { return true }
        return try state.signedInAccounts(app: spec.identityOwner).contains { $0.isSame(as: account) }
    }

    /// `remediateCompliance(accountId:silent:)`, as `IntuneMAMComplianceManager.h` describes
    /// it: an app's remediations run one at a time in the order asked; a call for an account
    /// already asked for and not yet told to the delegate is dropped (`completion` is never
    /// called); another account's is queued. `heldForUser`: the SDK's UI stays in front of the
    /// user until `finishRemediations` (a scenario's `remediate` that does not wait).
    ///
    /// Each remediation is decided when its turn comes, on the device as it is then: the
    /// outcome the compliance delegate gets, delivered to the running app
    /// (`complianceStatus`, and `restartApplication` when the account was enrolled). A
    /// remediation repeated with nothing changing is reported as a `remediation-loop`
    /// diagnostic. `fromApp`: started by the app's own process. Its interactive remediation
    /// enrolls only an account the user signed in to it (`AppSpec.userAccounts`); for any
    /// other the simulated user does not consent, and the app is told `userCancelled`.
    @discardableResult
    public func remediate(_ spec: AppSpec, account key: String, silent: Bool, userCancels: Bool, fromApp: Bool, heldForUser: Bool = false,
                          _ completion: @escaping (Result<RemediationOutcome, DeviceStateError>) -> Void) throws(DeviceStateError) -> RemediationStart {
        guard let account = state.fleet.account(named: key) else { throw DeviceStateError(.unknownAccount, "\(key) is not an account of this device") }
        var queue = queues[spec.handle] ?? []
        if queue.contains(where: { $0.account.isSame(as: account) }) { return .dropped }
        let start: RemediationStart = queue.isEmpty ? .started : .queued(behindUser: queue.contains { $0.heldForUser })
        queue.append(PendingRemediation(spec: spec, account: account, silent: silent, userCancels: userCancels, fromApp: fromApp,
                                        heldForUser: heldForUser, completion: completion))
        queues[spec.handle] = queue
        advance(spec.handle)
        return start
    }

    /// `remediationInProgressForAccountId`: a remediation of `key` asked of this app and not
    /// yet told to its delegate, under way or queued. (The header says "in progress"; a queued
    /// call is read as in progress too: the app asked, the SDK took the call and will answer
    /// it, and a new call would be dropped.)
    public func remediationInProgress(_ spec: AppSpec, account key: String) throws(DeviceStateError) -> Bool {
        guard let account = state.fleet.account(named: key) else { throw DeviceStateError(.unknownAccount, "\(key) is not an account of this device") }
        return queues[spec.handle]?.contains { $0.account.isSame(as: account) } ?? false
    }

    /// The user finishes the SDK's remediation UI in `spec`: every remediation held for the
    /// user, and those queued behind, runs to its end in order. `done` gets each account and
    /// what its delegate was told, in the order told.
    public func finishRemediations(_ spec: AppSpec, _ done: @escaping ([(Account, RemediationOutcome)]) -> Void) {
        guard var queue = queues[spec.handle], !queue.isEmpty else { return done([]) }
        for i in queue.indices { queue[i].heldForUser = false }
        queues[spec.handle] = queue
        draining[spec.handle, default: []].append(Drain(done: done))
        advance(spec.handle)
    }

    /// Starts the first remediation of an app's queue unless it is under way or held for the user.
    private func advance(_ handle: String) {
        guard var queue = queues[handle], let first = queue.first, !first.running, !first.heldForUser else { return }
        queue[0].running = true
        queues[handle] = queue
        run(first) { [weak self] result in
            guard let self else { return first.completion(result) }
            self.queues[handle]?.removeFirst()
            if case .success(let outcome) = result {
                for i in self.draining[handle, default: []].indices { self.draining[handle]![i].told.append((first.account, outcome)) }
            }
            first.completion(result)
            if self.queues[handle]?.isEmpty ?? true {
                self.queues[handle] = nil
                let drains = self.draining.removeValue(forKey: handle) ?? []
                for d in drains { d.done(d.told) }
            } else {
                self.advance(handle)
            }
        }
    }

    private func run(_ r: PendingRemediation, _ completion: @escaping (Result<RemediationOutcome, DeviceStateError>) -> Void) {
        let (spec, account, silent, userCancels, fromApp) = (r.spec, r.account, r.silent, r.userCancels, r.fromApp)
        var outcome: RemediationOutcome
        let signedIn: Bool
        let facts: RemediationFacts
        do {
            signedIn = try state.signedInAccounts(app: spec.identityOwner).contains { $0.isSame(as: account) }
            let declines = fromApp && !silent && !signedIn && !spec.userAccounts.contains { account.matches($0) }
            facts = RemediationFacts(online: try state.isOnline(), brokerInstalled: state.fleet.device.brokerInstalled, silent: silent,
                                         userCancels: userCancels || declines, signedIn: signedIn)
            outcome = Enforcer.remediate(account, app: spec.descriptor, facts: facts, in: state.fleet)
            if declines, outcome.status == .userCancelled {
                outcome = RemediationOutcome(status: .userCancelled, title: "Sign-in declined",
                    message: "\(spec.bundleID) asked to sign in \(account), which the user never signed in to it; the simulated user declines (list the account under the app's msalAccounts, or sign it in with a step)",
                    enrolls: false)
            }
        } catch {
            let v = internalFailure(error, doing: "remediate")
            return completion(.failure(DeviceStateError(v.reason ?? .internalError, v.explanation)))
        }
        // The SDK enrolled the account for the app: a running multi-identity app's delegate is
        // asked to add it (addAccountId) before it counts as signed in.
        let decided = outcome
        guard decided.enrolls, !signedIn, spec.descriptor.multiIdentity, supervisor.readyChild(spec.key) != nil else {
            return finish(r, decided, signedIn: signedIn, facts: facts, added: true, completion)
        }
        supervisor.command(spec, .addIdentity(account: account.description)) { [weak self] result in
            guard let self else { return }
            var added = false
            if case .addIdentity(added: true) = result { added = true }
            finish(r, decided, signedIn: signedIn, facts: facts, added: added, completion)
        }
    }

    /// The rest of a remediation once the app's delegate said whether it added the account.
    /// A remediation whose outcome enrolls the account: enrolled like any enrollment (its
    /// status recorded, `expectState.enrollment`), or failed when the app did not add the
    /// account or the enrollment itself was refused (allowed accounts, a second managed
    /// account, the SDK's keychain group): the service cannot make it compliant then.
    private func enrollIfAsked(_ decided: RemediationOutcome, _ spec: AppSpec, _ account: Account, signedIn: Bool,
                               added: Bool) throws -> (RemediationOutcome, enrolled: Bool) {
        let owner = spec.identityOwner
        var outcome = decided
        var enrolled = false
        if outcome.enrolls, !signedIn, !added {
            outcome = RemediationOutcome(status: .serviceFailure, title: "Enrollment failed",
                                         message: "\(spec.bundleID) did not add \(account) (its delegate answered addAccountId with Failed)", enrolls: false)
        } else if outcome.enrolls, !signedIn {
            let r = try state.signIn(app: owner, account: account.description)
            enrolled = r.isAllowed
            if enrolled {
                // Enrolled like any enrollment: its status is recorded (`expectState.enrollment`).
                let policy = try state.servicePolicy(for: account, in: owner)
                try state.recordEnrollment(app: owner, account: account, kind: .enrollment, status: .newPoliciesReceived, via: "remediate",
                                           detail: "the remediation enrolled \(account) in \(spec.bundleID)", state: .enrolled,
                                           holding: .some(policy.map(DeviceState.policyKey)))
                emit(.signedIn(handle: spec.handle, account: account.description))
                // A managed sign-in, as at a sign-in step (seed 000's enrollment event).
                if spec.sendsTelemetry, r.isManaged { emit(.telemetry(handle: spec.handle, event: "enrollment")) }
            } else {
                // The enrollment itself was refused (allowed accounts, a second managed
                // account, the SDK's keychain group): the service cannot make it compliant.
                outcome = RemediationOutcome(status: .serviceFailure, title: "Enrollment failed", message: r.decision.explanation, enrolls: false)
            }
        }
        return (outcome, enrolled)
    }

    /// A remediation loop: the same failing answer again and again while nothing on the device
    /// (`signature`) changes; said once, as a diagnostic, when it reaches the threshold.
    private func noteLoop(_ spec: AppSpec, _ account: Account, _ status: ComplianceStatus, signature: String) {
        let loopKey = spec.handle + "\u{0}" + account.description
        guard status != .compliant, let last = remediations[loopKey], last.status == status, last.state == signature else {
            remediations[loopKey] = (status, signature, 1)
            return
        }
        remediations[loopKey] = (status, signature, last.count + 1)
        if last.count + 1 == Self.remediationLoopThreshold {
            let detail = "\(spec.handle) called remediateCompliance for \(account) \(last.count + 1) times in a row and got \(status) each time with nothing changed"
            emit(.diagnostic(handle: spec.handle, name: "remediation-loop", detail: detail))
            audit.record(verb: .diagnostic, source: spec.handle, sourceIdentity: account.description, decision: .remediationLoop,
                         reason: nil, explanation: detail)
        }
    }

    private func finish(_ r: PendingRemediation, _ decided: RemediationOutcome, signedIn: Bool, facts: RemediationFacts, added: Bool,
                        _ completion: @escaping (Result<RemediationOutcome, DeviceStateError>) -> Void) {
        let (spec, account) = (r.spec, r.account)
        do {
            let (outcome, enrolled) = try enrollIfAsked(decided, spec, account, signedIn: signedIn, added: added)
            if outcome.status == .compliant { try state.recordCompliance(app: spec.bundleID, account: account) }
            if spec.sendsTelemetry { emit(.telemetry(handle: spec.handle, event: "remediation")) }
            audit.record(verb: .remediate, source: spec.handle, sourceIdentity: account.description, owner: account.description,
                         decision: AuditDecision(outcome.status), reason: outcome.status == .compliant ? nil : .protectionPolicyRequired,
                         explanation: outcome.status == .compliant ? "\(account) is compliant in \(spec.bundleID)\(enrolled ? " (enrolled)" : "")"
                             : "\(outcome.title): \(outcome.message)")
            noteLoop(spec, account, outcome.status, signature: "\(signedIn)|\(state.fleet.isManaged(account))|\(facts.online)|\(facts.brokerInstalled)")
            // The delegate gets the status, and with any other than compliant the error title
            // and message an app shows.
            let compliant = outcome.status == .compliant
            let status = SDKNotification(kind: .complianceStatus, account: account.description, detail: outcome.status.rawValue,
                                         title: compliant ? "" : outcome.title, message: compliant ? "" : outcome.message)
            let told = outcome
            let restart = SDKNotification(kind: .restartApplication, account: account.description)
            // A remediation that enrolled: the app restarts first, and the delegate is told once
            // it is back (IntuneMAMComplianceManager.h: the SDK takes UI control at the next
            // launch and calls the delegate when finished; RULES.md §10).
            guard enrolled else {
                supervisor.notify(spec, status) { completion(.success(told)) }
                return
            }
            supervisor.restartApplication(spec, restart) { [supervisor] _ in
                supervisor.notify(spec, status) { completion(.success(told)) }
            }
        } catch {
            let v = internalFailure(error, doing: "remediate")
            completion(.failure(DeviceStateError(v.reason ?? .internalError, v.explanation)))
        }
    }
}

/// How the SDK took a `remediateCompliance` call (`IntuneMAMComplianceManager.h`).
public enum RemediationStart: Sendable, Hashable {
    /// Under way at once: no other remediation was.
    case started
    /// Behind another account's remediation; `behindUser`: one of those ahead waits for the
    /// user to finish the SDK's UI.
    case queued(behindUser: Bool)
    /// The account was already asked for and its delegate not yet told: no effect.
    case dropped

    public var word: String {
        switch self {
        case .started: "started"
        case .queued: "queued"
        case .dropped: "dropped"
        }
    }

    func explanation(account: String) -> String {
        switch self {
        case .started: "remediation of \(account) started"
        case .queued: "remediation of \(account) queued behind another account's"
        case .dropped: "a remediation of \(account) was already asked for and not yet answered: no effect"
        }
    }
}

private struct PendingRemediation {
    let spec: AppSpec
    let account: Account
    let silent: Bool
    let userCancels: Bool
    let fromApp: Bool
    var heldForUser: Bool
    let completion: (Result<RemediationOutcome, DeviceStateError>) -> Void
    var running = false
}

private struct Drain {
    let done: ([(Account, RemediationOutcome)]) -> Void
    var told: [(Account, RemediationOutcome)] = []
}
