public import MAMDeviceState
public import MAMModel
public import MAMPolicy
import MAMWire

// One file of about five hundred and fifty lines, on purpose: enrolment, check-ins,
// unenrolment and their delegate notices are one lifecycle over the same service state and
// clock (docs/LIFECYCLE.md), each call's outcome the next call's input.

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
    private let supervisor: Supervisor
    private let state: DeviceState
    private let audit: AuditSink
    private let accounts: AccountDesk
    private let onEvent: (HostEvent) -> Void
    /// Whether an app runs in the foreground (the launch desk knows which are paused).
    var isPaused: (AppSpec) -> Bool = { _ in false }
    /// Check-ins, enrollments and unenrollments under way, and who waits for them to end.
    private var inFlight = 0
    /// Apps the SDK is restarting because they just received a first policy: their relaunch
    /// does not check in again (the policy came a moment before).
    private var restartingWithPolicy: Set<AppHandle> = []
    private var settledWaiters: [() -> Void] = []

    init(supervisor: Supervisor, state: DeviceState, audit: AuditSink, accounts: AccountDesk, onEvent: @escaping (HostEvent) -> Void) {
        self.supervisor = supervisor
        self.state = state
        self.audit = audit
        self.accounts = accounts
        self.onEvent = onEvent
    }

    private var service: IntuneServiceSettings { state.fleet.service }

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
    static func msalHolds(_ account: Account, in app: AppSpec, fromApp: Bool) -> Bool {
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
        return EnrollmentRules.restartsForFirstPolicy(status: .newPoliciesReceived, policyNow: true, heldBefore: before?.heldPolicy, isApp: true)
    }

    /// The first policy an app receives for an account asks it to restart
    /// (`restartApplication`, RULES.md §10): its delegate says whether it restarts itself, else
    /// the SDK ends it and launches it again. `done` runs once it is back.
    private func restartForFirstPolicy(_ app: AppSpec, account: Account, _ done: @escaping () -> Void) {
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

    /// The app's policy request: for its enrolled account, what the service holds for it now
    /// (a new policy, none, a wipe); a registered account whose enrollment failed is tried
    /// again. A successful check-in restarts the cadence and the offline grace period.
    @discardableResult
    public func checkIn(_ app: AppSpec, account name: String? = nil, via: String = "checkIn",
                        _ finished: @escaping (EnrollmentStatus) -> Void = { _ in }) -> EnrollmentStatus {
        lifecycleCall(.checkIn, app, account: nil, doing: "check in", finished) { done, settle in
            let records = try state.enrollments(app: app.identityOwner)
            let enrolled = records.first { $0.state == .enrolled }
            let asked = try name.flatMap { $0.isEmpty ? nil : $0 }.map(self.account(named:))
            // The policy request, the retries, and this call itself (so that `done` runs after
            // `status` is known, even when everything completes at once).
            var pending = 2
            let finishOne = {
                pending -= 1
                if pending == 0 { done() }
            }
            // Registered accounts are tried again once their retry interval has passed, at the
            // first check-in after it (a launch or resume never shortens it: the policy delivery
            // page's "waits 48 hours to launch the app, the SDK retries at 48 hours"); an
            // explicit check-in (`checkIn`) asks at once.
            // Not while the app is enrolled with another account: the SDK enrolls one at a time.
            var enrolledByRetry: EnrollmentStatus?
            for r in records where r.state == .registered && enrolled == nil && (asked == nil || asked!.isSame(as: r.account)) {
                guard via == "checkIn" || (r.retryAt.map { $0 <= state.now } ?? true) else { continue }
                pending += 1
                let retried = enroll(app, account: r.account.description, interactive: false, via: via == "cadence" ? "retry" : via) { _ in finishOne() }
                if retried.didSucceed { enrolledByRetry = retried }
            }
            let status: EnrollmentStatus
            if enrolled == nil, via == "checkIn", let enrolledByRetry {
                // Nothing was enrolled, and the registered account asked again now is: the
                // check-in's answer is what it got (not appNotEnrolled for a policy request of
                // an app that is enrolled by the time it answers). Refused again, the app is
                // still not enrolled: appNotEnrolled, as before.
                status = enrolledByRetry
                finishOne()
            } else {
                status = try policyRequest(app, enrolled: enrolled, asked: asked, via: via, finishOne)
            }
            settle(status)
            finishOne()
            return status
        }
    }

    private func policyRequest(_ app: AppSpec, enrolled: EnrollmentRecord?, asked: Account?, via: String,
                               _ done: @escaping () -> Void) throws -> EnrollmentStatus {
        var facts = EnrollmentRules.CheckInFacts(enrolled: enrolled?.account)
        facts.asked = asked
        var servicePolicy: IosManagedAppProtection?
        if let account = enrolled?.account, asked == nil || asked!.isSame(as: account) {
            // A check-in asks the policy service with the account's token: a token fault fails it.
            facts.fault = try state.takeServiceFault(call: "checkIn") ?? state.takeServiceFault(call: "token")
            facts.wipePending = try state.hasPendingWipe(app: app.identityOwner, account: account)
            facts.licensed = try state.isLicensed(account)
            servicePolicy = try state.servicePolicy(for: account, in: app.identityOwner)
            facts.targeted = servicePolicy != nil
            facts.policyChanged = servicePolicy.map(DeviceState.policyKey) != enrolled?.heldPolicy || enrolled?.holdsPolicy != true
        }
        let status = EnrollmentRules.checkIn(facts)
        guard let account = enrolled?.account else {
            // Nothing enrolled: only an explicit request is answered (launches of apps without
            // an enrollment check in for conditional launch alone).
            if via == "checkIn" {
                try state.recordEnrollmentEvent(app: app.identityOwner, account: asked?.description ?? "", kind: .policy, status: status, via: via,
                                                detail: explanation(of: status, account: asked?.description ?? "", app: app))
                tell(app, kind: .policyStatus, account: asked?.sdkId ?? "", status: status, done)
            } else {
                done()
            }
            return status
        }
        let why = explanation(of: status, account: account.description, app: app)
        if status.didSucceed { try state.checkIn(app: app.identityOwner) }
        let firstPolicy = EnrollmentRules.restartsForFirstPolicy(status: status, policyNow: servicePolicy != nil, heldBefore: enrolled?.heldPolicy,
                                                                 isApp: app.descriptor.kind == .app)
        switch status {
        case .newPoliciesReceived, .noPolicyReceived:
            try state.recordEnrollment(app: app.identityOwner, account: account, kind: .policy, status: status, via: via, detail: why,
                                       state: .enrolled, holding: .some(servicePolicy.map(DeviceState.policyKey)))
        case .wipeReceived:
            try state.recordEnrollmentEvent(app: app.identityOwner, account: account.description, kind: .policy, status: status, via: via, detail: why)
        default:
            try state.recordEnrollmentEvent(app: app.identityOwner, account: account.description, kind: .policy, status: status, via: via, detail: why)
        }
        // The cadence's quiet check-ins stay out of the audit log (one a half hour per app); the
        // delegate hears them all the same, and `expectState.enrollment` reads them.
        if status != .policiesHaveNotChanged || via != "cadence" {
            audit.record(verb: .checkIn, source: app.handle, sourceIdentity: account.description, owner: account.description,
                         decision: status.didSucceed ? .allowed : .failed, reason: nil, explanation: "\(status.described) (\(via)): \(why)")
        }
        tell(app, kind: .policyStatus, account: account.sdkId, status: status) { [weak self] in
            guard let self else { return done() }
            switch status {
            case .newPoliciesReceived where firstPolicy:
                restartForFirstPolicy(app, account: account, done)
            case .newPoliciesReceived where service.delivery == .checkIn:
                supervisor.notify(app, SDKNotification(kind: .policyChanged, account: account.description, detail: ""), done)
            case .wipeReceived:
                // The wipe the check-in brought: the app wipes, the account is unenrolled.
                try? state.removePendingWipe(app: app.identityOwner, account: account)
                accounts.wipe(app, account: account.description) { [weak self] result in
                    guard let self else { return done() }
                    if case .failure(let e) = result { onEvent(.note("could not wipe \(account) in \(app.handle): \(e)")) }
                    let unenrolled = EnrollmentStatus.unenrollmentSuccess
                    let why = "the administrator's selective wipe of \(account) in \(app.bundleID) is done; the account is unenrolled"
                    do {
                        try state.recordEnrollment(app: app.identityOwner, account: account, kind: .unenrollment, status: unenrolled,
                                                   via: "wipe", detail: why, state: nil)
                        audit.record(verb: .unenroll, source: app.handle, sourceIdentity: account.description, owner: account.description,
                                     decision: .allowed, reason: nil, explanation: "\(unenrolled.described) (wipe): \(why)")
                    } catch {
                        onEvent(.note("could not record \(account)'s unenrollment in \(app.handle): \(error)"))
                    }
                    tell(app, kind: .unenrollmentStatus, account: account.sdkId, status: unenrolled, done)
                }
            default:
                done()
            }
        }
        return status
    }

    /// The check-in of a launch or resume (conditional launch's, when online).
    func launched(_ app: AppSpec, via: String) {
        guard !restartingWithPolicy.contains(app.key), app.descriptor.sdkIntegrated, app.descriptor.kind == .app,
              let records = try? state.enrollments(app: app.identityOwner), !records.isEmpty else { return }
        // Counted as under way until its statuses are told (`whenSettled`), as every check-in is.
        checkIn(app, via: via)
    }

    /// The skeleton of every lifecycle call (enrol, unenrol, check in), written once: its status
    /// starts as `internalError`; `body` settles it before anything that may end the call and
    /// returns it; `done` (the call counted under way until it runs) hands `finished` the
    /// status settled. A failure of the device itself (storage, I/O) is audited under `verb`,
    /// naming `account` when there is one, and ends the call with `internalError`.
    private func lifecycleCall(_ verb: AuditVerb, _ app: AppSpec, account: String?, doing: String,
                               _ finished: @escaping (EnrollmentStatus) -> Void,
                               _ body: (_ done: @escaping () -> Void, _ settle: (EnrollmentStatus) -> Void) throws -> EnrollmentStatus) -> EnrollmentStatus {
        final class Settled { var status = EnrollmentStatus.internalError }
        let settled = Settled()
        let done = underWay { finished(settled.status) }
        do {
            return try body(done) { settled.status = $0 }
        } catch {
            let v = internalFailure(error, doing: doing)
            if let account {
                audit.record(verb: verb, source: app.handle, sourceIdentity: account, owner: account, v)
            } else {
                audit.record(verb: verb, source: app.handle, v)
            }
            done()
            return .internalError
        }
    }

    /// `finished`, to run once, and the call it ends counted as under way until it has run: an
    /// enrollment, unenrollment or check-in tells the app's delegate its status after the call
    /// returned (an app that enrolls itself while launching, its own
    /// registerAndEnrollAccountId), and the step that follows must see what it was told and
    /// the restart or wipe it brought (`whenSettled`).
    private func underWay(_ finished: @escaping () -> Void) -> () -> Void {
        inFlight += 1
        var ended = false
        return { [weak self] in
            guard !ended else { return }
            ended = true
            finished()
            self?.endInFlight()
        }
    }

    /// One check-in, enrollment or unenrollment is over; those waiting run once none is left.
    private func endInFlight() {
        inFlight -= 1
        guard inFlight == 0 else { return }
        let waiting = settledWaiters
        settledWaiters = []
        for w in waiting { w() }
    }

    /// Runs `done` once the check-ins launches and resumes started, and the enrollments under
    /// way, are over (their statuses told, the wipes and restarts they brought done): a step
    /// that launched or resumed an app, or during which an app enrolled itself, ends then.
    public func whenSettled(_ done: @escaping () -> Void) {
        if inFlight == 0 { return done() }
        settledWaiters.append(done)
    }

    /// The clock moved from `start` to now: every app running in the foreground checks in on
    /// its cadence (and tries a registered account again at its retry time), in time order.
    /// Only the check-ins that can find something are run: each app's first, the first after
    /// each moment the service's answer may change (a licence or assignment reaching it, a
    /// retry), and every one after a failed one; the others would each answer
    /// `policiesHaveNotChanged`, and only the last of them is recorded (the cadence and the
    /// offline grace period count from it). So days pass in a few check-ins.
    public func advanced(from start: Instant, _ done: @escaping () -> Void) {
        let end = state.now
        let every = service.checkInEvery
        guard end > start, every > 0, (try? state.isOnline()) ?? false else { return done() }
        let apps = supervisor.registry.specs.filter {
            $0.descriptor.kind == .app && $0.descriptor.sdkIntegrated && supervisor.readyChild($0.key) != nil && !isPaused($0)
                && !((try? state.enrollments(app: $0.identityOwner))?.isEmpty ?? true)
        }
        guard !apps.isEmpty else { return done() }
        let changes = (try? state.serviceChangeTimes(after: start, upTo: end)) ?? []
        // Each app's check-ins fall every `every` seconds after its last one.
        struct Due { var first: Instant; var last: Instant; var app: AppSpec }
        var due: [Due] = []
        for app in apps {
            let last = ((try? state.lastCheckIn(app: app.identityOwner)) ?? nil) ?? start
            let sinceLast = start.secondsSince1970 - last.secondsSince1970
            let first = start.advanced(by: ISODuration(seconds: every - sinceLast.truncatingRemainder(dividingBy: every)))
            guard first <= end else { continue }
            let count = ((end.secondsSince1970 - first.secondsSince1970) / every).rounded(.down)
            due.append(Due(first: first, last: first.advanced(by: ISODuration(seconds: count * every)), app: app))
        }
        // The ticks that can find something, in time order.
        var ticks: [(Instant, Int)] = []
        for (i, d) in due.enumerated() {
            var times = [d.first]
            for change in changes {
                let k = ((change.secondsSince1970 - d.first.secondsSince1970) / every).rounded(.up)
                let t = d.first.advanced(by: ISODuration(seconds: max(0, k) * every))
                if t <= d.last { times.append(t) }
            }
            for t in Set(times) { ticks.append((t, i)) }
        }
        ticks.sort { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
        var lastRun = [Instant?](repeating: nil, count: due.count)
        var index = 0
        var running = false, again = false
        func finish() {
            // The quiet check-ins after each app's last one run here: the last is its check-in.
            for (i, d) in due.enumerated() where lastRun[i].map({ $0 < d.last }) ?? true {
                try? state.setClock(d.last)
                try? state.checkIn(app: d.app.identityOwner)
            }
            try? state.setClock(end)
            done()
        }
        func step() {
            guard index < ticks.count else { return finish() }
            let (time, i) = ticks[index]
            index += 1
            try? state.setClock(time)
            lastRun[i] = time
            checkIn(due[i].app, via: "cadence") { [weak self] status in
                guard let self else { return pump() }
                // After a failed check-in the next one is run too (it may bring what waited).
                if !status.didSucceed || ((try? state.hasServiceFault(call: "checkIn")) ?? false) {
                    let next = time.advanced(by: ISODuration(seconds: every))
                    if next <= due[i].last, !ticks[index...].contains(where: { $0.1 == i && $0.0 == next }) {
                        let at = ticks[index...].firstIndex { $0.0 > next } ?? ticks.endIndex
                        ticks.insert((next, i), at: at)
                    }
                }
                pump()
            }
        }
        // Check-ins often complete at once: run them in a loop, not one inside another.
        func pump() {
            if running { again = true; return }
            running = true
            repeat {
                again = false
                step()
            } while again
            running = false
        }
        pump()
    }

    // MARK: - What the administrator does, as the service holds it

    /// An administrator's selective wipe under `delivery: checkIn`: it waits for the app's
    /// next check-in.
    public func queueWipe(_ app: AppSpec, account name: String) throws {
        let account = try self.account(named: name)
        try state.addPendingWipe(app: app.identityOwner, account: account)
        audit.record(verb: .wipe, source: app.handle, sourceIdentity: account.description, owner: account.description, decision: .ok, reason: nil,
                     explanation: "the service holds a selective wipe of \(account) in \(app.bundleID) until the app's next check-in")
    }

    /// The fleet's account `name` names, or `unknown-account`.
    private func account(named name: String) throws -> Account {
        guard let account = state.fleet.account(named: name) else { throw DeviceState.unknownAccount(name) }
        return account
    }

    // MARK: - The delegate

    private func tell(_ app: AppSpec, kind: SDKNotification.Kind, account: String, status: EnrollmentStatus, _ done: @escaping () -> Void) {
        supervisor.notify(app, SDKNotification(kind: kind, account: account, detail: "\(status.rawValue)"), done)
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
