public import MAMDeviceState
public import MAMModel
import MAMPolicy
import MAMWire

// Enrolment, check-ins, unenrolment and their delegate notices are one lifecycle over the
// same service state and clock (docs/LIFECYCLE.md), each call's outcome the next call's input:
// this file enrols and unenrols; EnrollmentDesk+CheckIns checks in and keeps the clock.

/// The enrollment lifecycle (SCENARIOS.md v1.3, docs/LIFECYCLE.md): enrollment, check-ins and
/// unenrollment of each app's accounts with the Intune service, decided by `EnrollmentRules`
/// from the device's and the tenant's state as the service sees it, and told to the app's
/// enrollment delegate. The service is a party with a clock: an app checks in at launch and
/// resume and on its cadence while it runs in the foreground (`advance`); with
/// `delivery: checkIn` the administrator's changes reach an app only then.
///
/// Each call answers its status at once (what the SDK hands the delegate); `done` runs once
/// what follows it is over: the delegate told, a wipe the status asks for carried out.
public final class EnrollmentDesk {
    let supervisor: Supervisor
    let state: DeviceState
    let audit: AuditSink
    let accounts: AccountDesk
    let onEvent: (HostEvent) -> Void
    /// Whether an app runs in the foreground (the launch desk knows which are paused).
    var isPaused: (AppSpec) -> Bool = { _ in false }
    /// Check-ins, enrollments and unenrollments under way, and who waits for them to end.
    var work = WorkUnderWay()
    /// Apps the SDK is restarting because they just received a first policy: their relaunch
    /// does not check in again (the policy came a moment before).
    var restartingWithPolicy: Set<AppHandle> = []

    init(supervisor: Supervisor, state: DeviceState, audit: AuditSink, accounts: AccountDesk, onEvent: @escaping (HostEvent) -> Void) {
        self.supervisor = supervisor
        self.state = state
        self.audit = audit
        self.accounts = accounts
        self.onEvent = onEvent
    }

    var service: IntuneServiceSettings { state.fleet.service }

    // MARK: - Enrollment

    /// `registerAndEnrollAccountId` (`interactive: false`) or `loginAndEnrollAccount`
    /// (`interactive: true`, which signs the account in to the app first when it succeeds).
    @discardableResult
    /// `fromApp`: the app's own process asked; it is held to the accounts the scenario lists
    /// (`msalAccounts`) or signed in, where a step (the user) has every account of the scenario.
    public func enroll(_ app: AppSpec, account name: String?, interactive: Bool, userCancels: Bool = false, via: String = "enroll",
                       fromApp: Bool = false, _ finished: @escaping (EnrollmentStatus) -> Void = { _ in }) -> EnrollmentStatus {
        lifecycleCall(.enroll, app, account: name ?? "", doing: "enroll \(name ?? "an account")", finished) { done, settle in
            var named = name.flatMap { $0.isEmpty ? nil : $0 }
            // loginAndEnrollAccount with no account: the device's MDM user is the one asked.
            if named == nil, interactive, let mdm = service.mdmEnrolledAs { named = mdm }
            let account = try named.map(self.account(named:))
            var facts = EnrollmentRules.EnrollFacts(account: account, interactive: interactive)
            facts.userCancels = userCancels
            facts.fromExtension = app.descriptor.kind != .app
            facts.multiIdentity = state.fleet.app(app.identityOwner)?.multiIdentity ?? false
            facts.mdmEnrolledAs = service.mdmEnrolledAs.flatMap { state.fleet.account(named: $0) ?? Account(upn: $0) }
            facts.enrolledInApp = try state.enrolledAccount(app: app.identityOwner)
            if let account {
                // An account the user signed in with MSAL (`msalAccounts`) has the token
                // registerAndEnrollAccountId needs, as one signed in to the app has.
                facts.signedIn = try state.isSignedIn(account.description, app: app.identityOwner) || Self.msalHolds(account, in: app, fromApp: fromApp)
                facts.licensed = try state.isLicensed(account)
                facts.targeted = try state.servicePolicy(for: account, in: app.identityOwner) != nil
                // Deregistered from every app, the first managed account no longer holds the
                // device (SDK issue #537): a second account enrolls.
                facts.deviceManagedAccount = try state.enrolledManagedAccount.flatMap { try state.isEnrolledInAnyApp($0) ? $0 : nil }
            }
            // A fault answers only calls that reach the service, and every one of them needs a
            // token for the account first (a token fault: #540's 203 although MSAL signed in;
            // loginAndEnrollAccount's token after its sign-in too).
            if account != nil, !facts.fromExtension, !(interactive && userCancels) {
                facts.fault = try state.takeServiceFault(call: "enroll") ?? state.takeServiceFault(call: "token")
            }
            let status = EnrollmentRules.enroll(facts)
            settle(status)
            try finishEnrollment(app, account: account, asked: named ?? "", status: status, interactive: interactive, via: via, fromApp: fromApp, done)
            return status
        }
    }

    /// Whether the app's MSAL holds `account` (registerAndEnrollAccountId then has its token):
    /// one `msalAccounts` lists; with no list, any account of the scenario when a step enrolls
    /// it, none when the app's own process does.
    private static func msalHolds(_ account: Account, in app: AppSpec, fromApp: Bool) -> Bool {
        app.userAccounts.contains { account.matches($0) } || !fromApp && !app.userAccountsListed
    }

    /// Whether the simulated user completes an interactive sign-in an app's own process asked
    /// for (`loginAndEnrollAccount` from the app): only for an account the scenario signed in
    /// to the app, or one its MSAL holds (`msalAccounts`); no account named asks for the
    /// device's MDM user.
    func userSignsIn(_ app: AppSpec, account name: String) throws -> Bool {
        guard let named = name.isEmpty ? service.mdmEnrolledAs : name, let account = state.fleet.account(named: named) else { return false }
        return try state.isSignedIn(account.description, app: app.identityOwner) || app.userAccounts.contains { account.matches($0) }
    }

    /// Records an enrollment's status, signs in the account a successful interactive login (or
    /// the app's own MSAL sign-in) brought, and tells the delegate.
    private func finishEnrollment(_ app: AppSpec, account: Account?, asked: String, status: EnrollmentStatus, interactive: Bool,
                          via: String, fromApp: Bool, _ done: @escaping () -> Void) throws {
        let why = explanation(of: status, account: account?.description ?? asked, app: app)
        var firstPolicy = false
        if let account {
            let viaMSAL = Self.msalHolds(account, in: app, fromApp: fromApp)
            if interactive || viaMSAL, EnrollmentRules.signedInBeforeAnswer(status), try !state.isSignedIn(account.description, app: app.identityOwner) {
                _ = accounts.signIn(app, account: account.description)
            }
            if status.didSucceed {
                // A successful enrollment reached the service: it restarts the cadence and the
                // offline grace period like any successful check-in (SCENARIOS.md v1.3).
                try state.checkIn(app: app.identityOwner)
                let policy = try state.servicePolicy(for: account, in: app.identityOwner)
                firstPolicy = try receivesFirstPolicy(app, account: account, policy: policy)
                try state.recordEnrollment(app: app.identityOwner, account: account, kind: .enrollment, status: status, via: via, detail: why,
                                           state: .enrolled, holding: .some(policy.map(DeviceState.policyKey)))
            } else if EnrollmentRules.staysRegistered(after: status) {
                // Failures of the network in a row back off (this one is not recorded yet).
                var inARow = 1
                if EnrollmentRules.isNetworkFailure(status) {
                    let events = try state.enrollmentEvents(app: app.identityOwner).filter { e in
                        e.kind == .enrollment && (state.fleet.account(named: e.account).map { $0.isSame(as: account) } ?? false)
                    }
                    inARow += events.reversed().prefix { EnrollmentRules.isNetworkFailure($0.status) }.count
                }
                let retry = state.now.advanced(by: ISODuration(seconds: EnrollmentRules.retryInterval(after: status, networkFailuresInARow: inARow)))
                try state.recordEnrollment(app: app.identityOwner, account: account, kind: .enrollment, status: status, via: via, detail: why,
                                           state: .registered, retryAt: retry)
            } else {
                try state.recordEnrollmentEvent(app: app.identityOwner, account: account.description, kind: .enrollment, status: status, via: via, detail: why)
            }
        } else {
            try state.recordEnrollmentEvent(app: app.identityOwner, account: asked, kind: .enrollment, status: status, via: via, detail: why)
        }
        audit.record(verb: .enroll, source: app.handle, sourceIdentity: account?.description ?? asked, owner: account?.description ?? asked,
                     decision: status.didSucceed ? .allowed : .failed, reason: nil, explanation: "\(status.described): \(why)")
        tell(app, kind: .enrollmentStatus, account: account?.sdkId ?? asked, status: status) { [weak self] in
            guard let self, firstPolicy, let account else { return done() }
            restartForFirstPolicy(app, account: account, done)
        }
    }

    /// Whether `app` now receives MAM policy for `account` for the first time: a policy targets
    /// the account there, and the app held none for it before (RULES.md §10).
    private func receivesFirstPolicy(_ app: AppSpec, account: Account, policy: IosManagedAppProtection?) throws -> Bool {
        guard policy != nil, app.descriptor.kind == .app else { return false }
        let before = try state.enrollments(app: app.identityOwner).first { $0.account.isSame(as: account) }
        guard EnrollmentRules.restartsForFirstPolicy(status: .newPoliciesReceived, policyNow: true, heldBefore: before?.heldPolicy, isApp: true) else { return false }
        // A documented exception: the policy applies without the restart, and the audit says why.
        if let why = EnrollmentRules.noRestartOnFirstPolicy(app.descriptor, deviceMDMEnrolled: state.fleet.device.mdmEnrolled) {
            audit.record(verb: .enroll, source: app.handle, sourceIdentity: account.description, owner: account.description, decision: .allowed, reason: nil,
                         explanation: "\(app.bundleID) received \(account)'s app protection policy for the first time and is not restarted: \(why)")
            return false
        }
        return true
    }

    /// The first policy an app receives for an account asks it to restart
    /// (`restartApplication`, RULES.md §10): its delegate says whether it restarts itself, else
    /// the SDK ends it and launches it again. `done` runs once it is back.
    func restartForFirstPolicy(_ app: AppSpec, account: Account, _ done: @escaping () -> Void) {
        audit.record(verb: .enroll, source: app.handle, sourceIdentity: account.description, owner: account.description, decision: .allowed, reason: nil,
                     explanation: "\(app.bundleID) received \(account)'s app protection policy for the first time: the SDK asks it to restart (restartApplication)")
        restartingWithPolicy.insert(app.key)
        supervisor.restartApplication(app, SDKNotification(kind: .restartApplication, account: account.description)) { [weak self] _ in
            self?.restartingWithPolicy.remove(app.key)
            done()
        }
    }

    /// A sign-in is MSAL's, then `registerAndEnrollAccountId`: its status is recorded as an
    /// enrollment's (SCENARIOS.md v1.3). Only an app with the SDK enrolls.
    public func signedIn(_ app: AppSpec, account: String, _ done: @escaping () -> Void = {}) {
        guard app.descriptor.sdkIntegrated, app.descriptor.kind == .app else { return done() }
        enroll(app, account: account, interactive: false, via: "signIn") { _ in done() }
    }

    // MARK: - Unenrollment

    /// `deRegisterAndUnenrollAccountId(_:withWipe:)`: with `wipe`, the app is asked to wipe
    /// the account's data and the device deletes what remains, and the account is signed out.
    @discardableResult
    public func unenroll(_ app: AppSpec, account name: String, wipe: Bool, via: String = "unenroll",
                         _ finished: @escaping (EnrollmentStatus) -> Void = { _ in }) -> EnrollmentStatus {
        lifecycleCall(.unenroll, app, account: name, doing: "unenroll \(name)", finished) { done, settle in
            let account = try self.account(named: name)
            let fromExtension = app.descriptor.kind != .app
            let enrolled = try state.enrolledAccount(app: app.identityOwner)
            // Deregistration reaches the service with the account's token: a token fault fails it.
            let fault = !fromExtension && enrolled?.isSame(as: account) == true
                ? try state.takeServiceFault(call: "unenroll") ?? state.takeServiceFault(call: "token") : nil
            let status = EnrollmentRules.unenroll(account: account, enrolled: enrolled, fromExtension: fromExtension, fault: fault)
            settle(status)
            let why = explanation(of: status, account: account.description, app: app) + (wipe && status.didSucceed ? "; the account's data is wiped" : "")
            audit.record(verb: .unenroll, source: app.handle, sourceIdentity: account.description, owner: account.description,
                         decision: status.didSucceed ? .allowed : .failed, reason: nil, explanation: "\(status.described): \(why)")
            guard status.didSucceed else {
                try state.recordEnrollmentEvent(app: app.identityOwner, account: account.description, kind: .unenrollment, status: status, via: via, detail: why)
                tell(app, kind: .unenrollmentStatus, account: account.sdkId, status: status, done)
                return status
            }
            try state.recordEnrollment(app: app.identityOwner, account: account, kind: .unenrollment, status: status, via: via, detail: why, state: nil)
            try state.releaseManagedAccountIfUnenrolled(account)
            let finish = { [weak self] in
                guard let self else { return done() }
                tell(app, kind: .unenrollmentStatus, account: account.sdkId, status: status, done)
            }
            if wipe {
                accounts.wipe(app, account: account.description) { [weak self] result in
                    if case .failure(let e) = result { self?.onEvent(.note("could not wipe \(account) in \(app.handle): \(e)")) }
                    finish()
                }
            } else {
                finish()
            }
            return status
        }
    }

    // MARK: - Check-ins

    /// An administrator's selective wipe under `delivery: checkIn`: it waits for the app's
    /// next check-in.
    public func queueWipe(_ app: AppSpec, account name: String) throws {
        let account = try self.account(named: name)
        try state.addPendingWipe(app: app.identityOwner, account: account)
        audit.record(verb: .wipe, source: app.handle, sourceIdentity: account.description, owner: account.description, decision: .ok, reason: nil,
                     explanation: "the service holds a selective wipe of \(account) in \(app.bundleID) until the app's next check-in")
    }

    /// The fleet's account `name` names, or `unknown-account`.
    func account(named name: String) throws -> Account {
        guard let account = state.fleet.account(named: name) else { throw DeviceState.unknownAccount(name) }
        return account
    }

    // MARK: - The delegate

    /// A status to the app for `account` (its OID where it has one), with its UPN: the SDK's
    /// status names both, and the app may not have this account signed in (a refused one).
    func tell(_ app: AppSpec, kind: SDKNotification.Kind, account: String, status: EnrollmentStatus, _ done: @escaping () -> Void) {
        let upn = state.fleet.account(named: account).map(\.upn).flatMap { $0.isEmpty || $0 == account ? nil : $0 } ?? ""
        supervisor.notify(app, SDKNotification(kind: kind, account: account, detail: "\(status.rawValue)", upn: upn), done)
    }

    /// Why a status, in words a developer acts on.
    func explanation(of status: EnrollmentStatus, account: String, app: AppSpec) -> String {
        let bundle = app.bundleID
        return switch status {
        case .newPoliciesReceived: "the service delivered \(account)'s app protection policy to \(bundle)"
        case .policiesHaveNotChanged: "\(account)'s policy in \(bundle) has not changed since the last check-in"
        case .wipeReceived: "the service holds a selective wipe of \(account) in \(bundle)"
        case .noPolicyReceived: "no app protection policy targets \(bundle) for \(account) any more"
        case .unenrollmentSuccess: "\(account) is unenrolled from \(bundle)"
        case .accountNotLicensed: "\(account) has no Intune licence (accounts[].licensed, setLicense); the SDK tries again later"
        case .licensedNotTargeted:
            "\(account) is licensed but no app protection policy targets \(bundle) for them yet (an assignment takes \(Int(service.propagation / 60)) min to reach the service); the SDK tries again at the next check-in"
        case .authRequired: "\(account) has no token in \(bundle): sign it in first (signIn) or enroll interactively (loginAndEnrollAccount)"
        case .nilAccount: "no account was given to enroll"
        case .alreadyEnrolled: "\(account) is enrolled in \(bundle) already"
        case .mdmEnrolledDifferentUser: "the device is MDM-enrolled by \(service.mdmEnrolledAs ?? "another user"), not \(account): the app should remove the account"
        case .switchExistingAccount: "\(bundle) is enrolled with another account: unenroll it first"
        case .singleManagedAccountMode: "another account is managed on this device (single managed account mode)"
        case .loginCanceled: "the user dismissed the sign-in"
        case .unsupportedAPI: "enrollment is called from an extension; only the app enrolls"
        case .appNotEnrolled: "\(bundle) is not enrolled"
        case .notEnrolledAccount: "\(account) is not the account \(bundle) is enrolled with"
        default: "the service answered \(status.name) (an injected fault: serviceFault)"
        }
    }
}

extension EnrollmentDesk {
    /// Every status `app`'s enrollment delegate got, in order.
    public func events(_ app: AppSpec) throws -> [EnrollmentEvent] {
        try state.enrollmentEvents(app: app.identityOwner)
    }

    /// `serviceFault`: the next `times` calls of `call` answer `status`.
    public func addFault(call: String, status: EnrollmentStatus, times: Int) throws {
        try state.addServiceFault(call: call, status: status, times: times)
        audit.record(verb: .serviceFault, source: "device", decision: .ok, reason: nil,
                     explanation: "the next \(times) \(call) call\(times == 1 ? "" : "s") answer \(status.described)")
    }

    /// `setLicense`: says when the service sees it.
    public func setLicense(_ account: String, licensed: Bool) throws -> String {
        try state.setLicense(account, licensed: licensed)
        let delay = state.fleet.service.propagation
        let why = "\(account) is \(licensed ? "licensed" : "no longer licensed")" + (delay > 0 ? "; the service sees it in \(ISODuration(seconds: delay))" : "")
        audit.record(verb: .setLicense, source: "device", sourceIdentity: account, owner: account, decision: .ok, reason: nil, explanation: why)
        return why
    }
}
