import MAMDeviceState
import MAMLoop
public import MAMModel
public import MAMPolicy
import MAMWire

/// Check-ins: at launch and resume, on the cadence while the app runs, and on request; the
/// policy the service answers, the calls under way, and the clock the scenario advances.
extension EnrollmentDesk {
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

    func policyRequest(_ app: AppSpec, enrolled: EnrollmentRecord?, asked: Account?, via: String,
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
    func lifecycleCall(_ verb: AuditVerb, _ app: AppSpec, account: String?, doing: String,
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
        work.begin()
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
        let waiting = work.end()
        for w in waiting { w() }
    }

    /// Runs `done` once the check-ins launches and resumes started, and the enrollments under
    /// way, are over (their statuses told, the wipes and restarts they brought done): a step
    /// that launched or resumed an app, or during which an app enrolled itself, ends then.
    public func whenSettled(_ done: @escaping () -> Void) {
        if work.isSettled { return done() }
        work.wait(done)
    }

    /// As `whenSettled`, giving up after `limit` milliseconds: `done(false)` while check-ins,
    /// enrollments or the restarts they brought are still under way then. An app that is wiped
    /// at each launch, enrolls again and is asked to restart never settles (a restart loop).
    public func whenSettled(within limit: UInt64, _ done: @escaping (Bool) -> Void) {
        if work.isSettled { return done(true) }
        guard let timer = try? MAMLoop.Timer(loop: supervisor.loop) else { return whenSettled { done(true) } }
        let answered = Answered()
        work.wait {
            guard !answered.value else { return }
            answered.value = true
            timer.stop()
            timer.close()
            done(true)
        }
        timer.start(after: limit) {
            guard !answered.value else { return }
            answered.value = true
            timer.close()
            done(false)
        }
    }

    /// Whether a bounded wait was answered, by its settling or by its deadline (the loop's thread).
    private final class Answered {
        var value = false
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
}
