import MAMDeviceState
import MAMDeclarations
import MAMModel
import MAMPolicy
public import MAMWire
import Foundation

/// The services of the simulated OS and the Intune SDK: files, data protection, keychain,
/// pasteboard, save/open checks, printing, notifications, the share sheet, identity switches.
/// The host answers each from its device state and the enforcer, with the identities it holds
/// for the app: the app never names an owner it does not have.
///
/// A child asks over its channel (`ServiceRequest`); a scenario step asks through
/// `HostController` — the same decision, made here, either way. Each call's answer is its
/// handler's (`Services/<Call>Handler.swift`, reached through the generated `dispatch`); the
/// desk keeps what every call shares: the identity layers, the lock-down fleet of a merged
/// window, the conditional-launch gate and the audit.
public final class ServiceDesk {
    let state: DeviceState
    let identities: Identities
    let audit: AuditSink
    let registry: AppRegistry
    let context: RunContext
    let onEvent: (HostEvent) -> Void
    /// The device's Entra and compliance service: it answers the token calls (and audits
    /// them itself). Set by the host once both exist.
    var tokens: TokenService?
    /// The enrollment lifecycle: it answers enroll, unenroll and check-in (and audits them).
    var enrollment: EnrollmentDesk?
    /// The general pasteboard (`copy`, `paste`).
    var pasteboard: Pasteboard?
    /// Per app, how many decoder errors it reported and the last one
    /// (`ManagedConfigUndecodableHandler`).
    var decoderErrors: [String: (count: Int, last: String)] = [:]
    /// Per app, how many Strict Mode findings it reported (`StrictFindingHandler`).
    var strictFindings: [String: (count: Int, bytes: Int)] = [:]
    /// Per app, how many policy getters it said it read (`PolicyGettersReadHandler`).
    var gettersRead: [String: Int] = [:]
    /// Per app, how many app configuration keys it said it read (the same handler).
    var configKeysRead: [String: Int] = [:]

    init(state: DeviceState, audit: AuditSink, registry: AppRegistry, context: RunContext, onEvent: @escaping (HostEvent) -> Void) {
        self.state = state
        identities = Identities(state: state)
        self.audit = audit
        self.registry = registry
        self.context = context
        self.onEvent = onEvent
    }

    var fleet: Fleet { state.fleet }
    /// How many different decoder errors an app may put in the administrator's log.
    public static var decoderReportsPerApp: Int { ManagedConfigUndecodableHandler.reportsPerApp }

    // MARK: - Services

    /// Answers one service call for `app` through its handler. Every policy decision goes to
    /// the audit log.
    public func perform(_ request: ServiceRequest, for app: AppSpec, in context: ServiceContext = .main) -> ServiceResult {
        dispatch(request, CallContext(desk: self, app: app, context: context))
    }

    /// The token service, which answers `call`, or the failure of a device without one.
    func tokenService(for call: some ServiceCall) throws -> TokenService {
        guard let tokens else { throw DeviceStateError(.internalError, "\(call.request.name): the device has no token service") }
        return tokens
    }

    /// The enrollment desk, which answers `call`, or the failure of a device without one.
    func enrollmentDesk(for call: some ServiceCall) throws -> EnrollmentDesk {
        guard let enrollment else { throw DeviceStateError(.internalError, "\(call.request.name): the device has no enrollment service") }
        return enrollment
    }

    /// The fleet a call in `context` is decided with: a window showing several accounts with a
    /// managed one among them (`setUIPolicyAccountIds`, no thread identity overriding it) has
    /// the SDK's standard lock-down policy in place of that account's own (`policyForWindow`).
    func policyFleet(_ app: AppSpec, _ context: ServiceContext) throws -> Fleet {
        // What the app holds (`delivery: checkIn`: the policies of its last check-in).
        let fleet = try state.fleet(heldBy: app.identityOwner)
        guard let managed = try lockedDownAccount(app, context, in: fleet) else { return fleet }
        return fleet.lockingDown(managed)
    }

    /// The managed account whose policy the window of `context` replaces by the lock-down
    /// policy: it shows several accounts, that one among them, and no thread identity overrides
    /// the window. `nil` otherwise.
    func lockedDownAccount(_ app: AppSpec, _ context: ServiceContext, in fleet: Fleet) throws -> Account? {
        guard context.thread == nil else { return nil }
        return try state.lockDownAccount(app: app.identityOwner, window: context.window, managedIn: app.bundleID, in: fleet)
    }

    /// A conditional launch that failed at launch or resume leaves the app running without
    /// access to org data (RULES.md §8): what it would do with a managed account's data is
    /// refused until a launch, resume or managed identity switch passes.
    func refusedAfterConditionalLaunch(_ acting: Acting, for app: AppSpec, in context: ServiceContext) throws -> Verdict? {
        let account: Account?
        switch acting {
        case .nobody: return nil
        case .current: account = try current(app, context)
        case .namedOrCurrent(let name): account = try name.map { try signedIn($0, to: app) } ?? current(app, context)
        case .named(let name): account = try signedIn(name, to: app)
        }
        guard let account, fleet.isManaged(account, in: app.bundleID), let why = try state.accessBlock(app: app.bundleID) else { return nil }
        return .blocked(.conditionalLaunch, "\(app.bundleID) has no access to \(account)'s data: \(why)")
    }

    /// The account a request says the app acts as: `""` is the unmanaged identity; any other
    /// name must be an account signed in to the app, or the request is refused
    /// (`not-signed-in`): a child cannot receive or show data as someone it does not have.
    func signedIn(_ name: String, to app: AppSpec) throws -> Account? {
        guard !name.isEmpty else { return nil }
        guard let account = try identities.signedIn(name, to: app) else {
            onEvent(.hostile(handle: app.handle, what: "acted as \(name), which is not signed in to it", disconnected: false))
            throw DeviceStateError(.notSignedIn, "\(name) is not signed in to \(app.bundleID), so \(app.handle) cannot act as that account")
        }
        return account
    }

    /// The identity a UI call acts as (RULES.md §1): thread ?? window ?? process. The thread
    /// identity is the app's claim: it must be `""` or an account signed in to the app.
    func current(_ app: AppSpec, _ context: ServiceContext) throws -> Account? {
        if let thread = context.thread { return try signedIn(thread, to: app) }
        // An extension has no window of its own: it acts as the identity its SDK runs it as —
        // a single-identity extension (the default, seed 001) as the account enrolled in its
        // containing app, a multi-identity one as that app's process identity (RULES.md §2).
        if context.window.isEmpty, app.descriptor.kind != .app { return try identities.receiver(of: app) }
        if context.window.isEmpty { return try identities.current(of: app) }
        return state.account(forIdentity: try state.effectiveIdentity(app: app.identityOwner, window: context.window, for: .ui))
    }

    /// The identity a file call acts as: thread ?? process (the window never decides a file).
    func fileIdentity(_ app: AppSpec, _ context: ServiceContext) throws -> String? {
        if let thread = context.thread { return try signedIn(thread, to: app)?.description ?? "" }
        return try state.effectiveIdentity(app: app.identityOwner, for: .file)
    }

    /// An account a request names (`""` = none).
    func named(_ account: String) -> Account? {
        guard !account.isEmpty else { return nil }
        return fleet.account(named: account) ?? Account(upn: account)
    }
}
