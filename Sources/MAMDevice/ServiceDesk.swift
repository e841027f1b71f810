public import MAMDeviceState
import MAMDeclarations
public import MAMModel
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

extension ServiceDesk {
    // MARK: - Identities

    /// Identity changes an app asks for. A switch to a managed identity runs conditional
    /// launch; the PIN prompt is answered with what the user was scripted to type.
    func setIdentity(_ request: SetIdentity, for app: AppSpec) -> IdentityResult {
        let owner = app.identityOwner
        let account: String? = request.account.isEmpty ? "" : request.account
        let pin = context.takePinAnswer(app.key)
        let newPin = context.takeNewPin(app.key)
        let mainThread = request.mainThread
        if let refused = PolicyReads.decision(in: fleet, { Enforcer.mainThreadConflict(switchingTo: account, mainThread: mainThread, in: $0) }) {
            audit.record(verb: .switchIdentity, source: app.handle, sourceIdentity: request.account, owner: request.account,
                         decision: .notAllowed, reason: refused.blockedBy, explanation: refused.explanation)
            return IdentityResult(status: .notAllowed, reason: refused.blockedBy, explanation: refused.explanation, account: request.account)
        }
        do {
            let report = switch request.scope {
            case .process: try state.setProcessAccountId(app: owner, account: account, pin: pin, newPin: newPin, now: nil)
            case .ui: try state.setUIPolicyAccountId(app: owner, window: request.window, account: account, pin: pin, newPin: newPin, now: nil)
            }
            let status: IdentityResult.Status = switch report.result {
            case .success: .success
            case .canceled: .canceled
            case .notAllowed: .notAllowed
            case .failed: .failed
            }
            audit.record(verb: .switchIdentity, source: app.handle, sourceIdentity: request.account, owner: request.account,
                         decision: AuditDecision(report.result), reason: report.decision.blockedBy, explanation: report.decision.explanation)
            if report.result == .notAllowed, !request.account.isEmpty, try identities.signedIn(request.account, to: app) == nil {
                onEvent(.hostile(handle: app.handle, what: "asked for identity \(request.account), which is not signed in to it", disconnected: false))
            }
            return IdentityResult(status: status, reason: report.decision.blockedBy, explanation: report.decision.explanation, account: request.account)
        } catch {
            let v = internalFailure(error, doing: "switch identity")
            return IdentityResult(status: .failed, reason: v.reason, explanation: v.explanation, account: request.account)
        }
    }

    func identityInfo(window: String, for app: AppSpec) throws -> IdentityInfo {
        let owner = app.identityOwner
        let process = try state.processIdentity(app: owner)
        let ui = try state.effectiveIdentity(app: owner, window: window, for: .ui)
        return IdentityInfo(processIdentity: process ?? "", uiIdentity: ui ?? "", signedIn: try identities.accounts(of: app).map(\.upn))
    }

    // MARK: - Files' protection, asked by the scenario

    /// What the device holds of a file in an app's containers, for `expectState`.
    public func fileStatus(_ app: AppSpec, path: String) throws -> FileStatus {
        try state.fileStatus(app: app.bundleID, path: ContainerPath(parsing: path))
    }

    /// `IntuneMAMFilePolicyManager.protect(path, account)` / `unprotect`: the file's owner
    /// changes (`""` = unowned) and its bytes are re-protected for the new owner, who must be
    /// signed in to the app. `owner == nil`: the app's file identity (thread ?? process).
    public func setFileOwner(_ app: AppSpec, path: String, owner: String?) throws -> ProtectionInfo {
        let who = try owner ?? state.effectiveIdentity(app: app.identityOwner, for: .file) ?? ""
        let info = try state.setFileOwner(app: app.bundleID, path: ContainerPath(parsing: path), owner: who)
        audit.record(verb: who.isEmpty ? .unprotect : .protect, source: app.handle, owner: who,
                     .allowed("\(path) is now owned by \(who.isEmpty ? "nobody (unprotected)" : who)"))
        return info
    }
}

extension ServiceDesk {
    // MARK: - Links

    /// The app opens `url` from the data it shows (`UIApplication.open`): a custom scheme goes
    /// to the installed app that declares it, judged by the owner's outbound setting and its
    /// exempted schemes; a web link by the web-content rules (RULES.md §2). Returns the
    /// decision and the app that takes the link, if any.
    public func openURL(_ url: String, for app: AppSpec) throws -> (Verdict, handler: String?) {
        guard let colon = url.firstIndex(of: ":"), colon != url.startIndex,
              url[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }) else {
            let d = Verdict.failed(.badRequest, "\"\(url)\" is not a URL: it needs a scheme such as https: or mailto:")
            audit.record(verb: .openURL, source: app.handle, destination: url, d)
            return (d, nil)
        }
        let owner = try identities.current(of: app)
        if let refused = try refusedAfterConditionalLaunch(.current, for: app, in: .main) {
            audit.record(verb: .openURL, source: app.handle, sourceIdentity: owner?.upn ?? "", destination: url, refused)
            return (.blocked(refused.reason ?? .conditionalLaunch, because: refused.explanation), nil)
        }
        let (decision, handler) = linkDecision(url, universalLink: false, owner: owner, for: app, in: fleet)
        audit.record(verb: .openURL, source: app.handle, sourceIdentity: owner?.upn ?? "", destination: handler ?? url,
                     owner: owner?.upn ?? "", decision)
        return (decision, handler)
    }

    /// What opening `url` by `owner`'s data in `app` comes to, and the app that takes it: a web
    /// link by the web-content rules, a custom scheme by the owner's outbound setting and its
    /// exempted schemes (`universalLink`: a web link opened only as a universal link). The
    /// policy's answer alone: nothing is opened or logged.
    func linkDecision(_ url: String, universalLink: Bool, owner: Account?, for app: AppSpec, in fleet: Fleet) -> (verdict: Verdict, handler: String?) {
        guard let colon = url.firstIndex(of: ":"), colon != url.startIndex,
              url[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }) else {
            return (.failed(.badRequest, "\"\(url)\" is not a URL: it needs a scheme such as https: or mailto:"), nil)
        }
        let scheme = url[..<colon].lowercased()
        if scheme == "http" || scheme == "https" {
            let policy = fleet.policy(for: owner, in: app.bundleID)
            let browsers = policy.map(Enforcer.managedBrowserSchemes) ?? []
            let browser = registry.specs.first { spec in spec.descriptor.schemeKeys.contains(where: browsers.contains) }
            let link = Enforcer.webLink(url, owner: owner, from: app.bundleID, browserInstalled: browser != nil, in: fleet)
            // The required browser, or the fleet app that claims a universal link by its
            // associated domains; the default browser is iOS's choice.
            switch link.opensIn {
            case .managedBrowser:
                // Only as a universal link, a link the policy sends to the managed browser opens nowhere.
                if universalLink { return (.blocked(.outboundPolicy, because: "\(owner.map(\.description) ?? "the data")'s policy opens web links in a managed browser only, not as universal links"), nil) }
                return (link.verdict, browser?.handle)
            case .claimingApp: return (link.verdict, registry.specs.first { $0.bundleID != app.bundleID && $0.descriptor.claimsUniversalLink(url) }?.handle)
            case .whereIOSSendsIt: return (link.verdict, nil)
            }
        }
        // A phone link goes to the custom dialer app when the owner's policy names one.
        let opensWith = Enforcer.dialerScheme(for: scheme, policy: fleet.policy(for: owner, in: app.bundleID))
        guard let target = registry.specs.first(where: { $0.bundleID != app.bundleID && $0.descriptor.schemeKeys.contains(opensWith) }) else {
            return (.failed(.unknownApp, "no installed app declares the URL scheme \(scheme): (CFBundleURLSchemes)"), nil)
        }
        return (Enforcer.openURL(scheme: scheme, owner: owner, from: app.bundleID, in: fleet), target.handle)
    }
}
