import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire
import Foundation

/// The host side of one service call: how it is audited, whose managed data it acts with, and
/// its answer. Each call of `ServiceRequest` has one, named `<Call>Handler`, in a file of its
/// own in this folder; the generated `ServiceDesk.dispatch` hands each request to it, so a
/// call without a handler does not compile. What every call shares — the identity layers,
/// the lock-down fleet of a merged window, the conditional-launch gate, the audit and its
/// budget — is `ServiceDesk`'s and `CallContext`'s, never a handler's.
protocol ServiceHandler {
    associatedtype Call: ServiceCall
    /// How the call appears in the audit log.
    static func audit(_ call: Call) -> AuditPlan
    /// The account whose managed data the call would use: a managed one's is refused while a
    /// failed conditional launch holds (RULES.md §8). `.nobody` by default.
    static func acting(_ call: Call) -> Acting
    /// The answer, decided with the device's state and the enforcer. A thrown error is
    /// answered `failed` (its reason when it is a device error, else internal).
    static func answer(_ call: Call, _ c: CallContext) throws -> Answered<Call.Answer>
}

extension ServiceHandler {
    static func acting(_ call: Call) -> Acting { .nobody }
}

/// A handler's answer: the verdict and, when allowed, the typed value.
struct Answered<Answer> {
    let verdict: Verdict
    let answer: Answer?

    init(_ verdict: Verdict, _ answer: Answer? = nil) {
        self.verdict = verdict
        self.answer = answer
    }
}

/// Which account a call acts as, for the conditional-launch gate.
enum Acting {
    /// The call touches no account's data (files, keychain, configuration, tokens…).
    case nobody
    /// The app's current identity (thread ?? window ?? process).
    case current
    /// The named account, or the current identity when the call names none (`as:`).
    case namedOrCurrent(String?)
    /// The named account (`""`: the unmanaged identity).
    case named(String)
}

/// How a call appears in the audit log.
struct AuditPlan {
    var verb: AuditVerb
    var target = ""
    var receiver = ""
    var owner = ""
    /// Whether the call decides something: a call that does not (plain file and protection
    /// calls) is logged only when it is refused.
    var decides: Bool
    /// The service writes its records itself (the token service's calls).
    var auditsItself = false

    /// A call that decides, logged every time.
    static func decides(_ verb: AuditVerb, target: String = "", receiver: String = "", owner: String = "") -> AuditPlan {
        AuditPlan(verb: verb, target: target, receiver: receiver, owner: owner, decides: true)
    }

    /// A call logged only when refused.
    static func refusalsOnly(_ verb: AuditVerb) -> AuditPlan {
        AuditPlan(verb: verb, decides: false)
    }

    /// A call whose service writes its own records.
    static func selfAudited(_ verb: AuditVerb) -> AuditPlan {
        AuditPlan(verb: verb, decides: false, auditsItself: true)
    }
}

/// What a handler may use while it answers one call: the device's state and services, the
/// app that asks, and its window and thread identity. The identity layers are read here only.
struct CallContext {
    let desk: ServiceDesk
    let app: AppSpec
    let context: ServiceContext

    var state: DeviceState { desk.state }
    var bundle: BundleID { app.bundleID }
    var identities: Identities { desk.identities }
    var audit: AuditSink { desk.audit }

    /// The fleet the call is decided with: the lock-down policy in a window of several
    /// accounts with a managed one among them (`ServiceDesk.policyFleet`).
    func fleet() throws -> Fleet { try desk.policyFleet(app, context) }
    /// `decide` asked in the call's fleet, as a decision `mamsim mutate` can ask again under
    /// another policy (`PolicyReads`): it reads nothing but the fleet and what it captured.
    func decision<T: Hashable & Sendable>(_ decide: @escaping @Sendable (Fleet) -> T) throws -> T {
        PolicyReads.decision(in: try fleet(), decide)
    }
    /// The identity a UI call acts as: thread ?? window ?? process.
    func current() throws -> Account? { try desk.current(app, context) }
    /// The identity a file call acts as: thread ?? process.
    func fileIdentity() throws -> String? { try desk.fileIdentity(app, context) }
    /// `name` as an account signed in to the app (`""`: the unmanaged identity); any other
    /// name is refused (`not-signed-in`).
    func signedIn(_ name: String) throws -> Account? { try desk.signedIn(name, to: app) }
    /// The named account, or the current identity when `name` is nil.
    func namedOrCurrent(_ name: String?) throws -> Account? { try name.map(signedIn) ?? current() }
    /// An account a request names (`""` = none), signed in or not.
    func named(_ account: String) -> Account? { desk.named(account) }
    /// `account` as the SDK of this app manages it: itself when enrolled in the app, else
    /// `nil` (the unmanaged identity): the SDK manages only enrolled accounts, so a policy or
    /// an app configuration asked for one never enrolled, refused or deregistered is an
    /// unmanaged account's (SCENARIOS.md v1.3).
    /// (An account signed in that the SDK was never asked about, which only the host's own
    /// API makes — a scenario's `signIn` enrolls — counts as enrolled.)
    func enrolled(_ account: Account?) throws -> Account? {
        guard let account, !account.upn.isEmpty || !account.oid.isEmpty else { return account }
        if try state.enrollments(app: app.identityOwner).contains(where: { $0.state == .enrolled && $0.account.isSame(as: account) }) { return account }
        guard try state.isSignedIn(account.description, app: app.identityOwner) else { return nil }
        let asked = try state.enrollmentEvents(app: app.identityOwner).contains { event in
            state.fleet.account(named: event.account).map { $0.isSame(as: account) } ?? (event.account == account.description)
        }
        return asked ? nil : account
    }
    func event(_ event: HostEvent) { desk.onEvent(event) }
}

extension ServiceDesk {
    /// Runs one call through its handler: the conditional-launch gate, the answer, its audit
    /// line.
    func handle<H: ServiceHandler>(_ handler: H.Type, _ call: H.Call, _ c: CallContext) -> ServiceResult {
        let result: ServiceResult
        do {
            if let refused = try refusedAfterConditionalLaunch(H.acting(call), for: c.app, in: c.context) {
                result = ServiceResult(refused)
            } else {
                let a = try H.answer(call, c)
                result = ServiceResult(a.verdict, a.answer.map(H.Call.value(of:)) ?? .none)
            }
        } catch {
            result = ServiceResult(internalFailure(error, doing: call.request.name.replacingOccurrences(of: "_", with: " ")))
        }
        let plan = H.audit(call)
        guard plan.decides || !result.isAllowed, !plan.auditsItself else { return result }
        let source = (try? c.current())??.upn ?? ""
        audit.record(verb: plan.verb, source: c.app.handle, sourceIdentity: source, destination: plan.target,
                     destinationIdentity: plan.receiver, owner: plan.owner, result.verdict)
        return result
    }
}
