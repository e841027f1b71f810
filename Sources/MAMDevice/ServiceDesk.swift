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
/// `HostController` — the same decision, made here, either way.
public final class ServiceDesk {
    private let state: DeviceState
    private let identities: Identities
    private let audit: AuditSink
    private let registry: AppRegistry
    private let context: RunContext
    private let onEvent: (HostEvent) -> Void
    /// The device's Entra and compliance service: it answers the token calls (and audits
    /// them itself). Set by the host once both exist.
    var tokens: TokenService?
    /// The general pasteboard: the copied text, who owned it and where it was copied.
    private var pasteboard: (text: String, owner: Account?, source: BundleID)?

    init(state: DeviceState, audit: AuditSink, registry: AppRegistry, context: RunContext, onEvent: @escaping (HostEvent) -> Void) {
        self.state = state
        identities = Identities(state: state)
        self.audit = audit
        self.registry = registry
        self.context = context
        self.onEvent = onEvent
    }

    private var fleet: Fleet { state.fleet }
    /// How much of an app decoder's error the administrator's log keeps.
    static let decoderErrorLimit = 500
    /// How many different decoder errors an app may put in the administrator's log.
    public static let decoderReportsPerApp = 20
    /// Per app, how many decoder errors it reported and the last one (the next is said only
    /// if it differs).
    private var decoderErrors: [String: (count: Int, last: String)] = [:]

    // MARK: - Services

    /// Answers one service call for `app`. Every policy decision goes to the audit log.
    public func perform(_ request: ServiceRequest, for app: AppSpec, in context: ServiceContext = .main) -> ServiceResult {
        let result: ServiceResult
        do {
            result = try answer(request, for: app, in: context)
        } catch {
            result = ServiceResult(internalFailure(error, doing: request.name.replacingOccurrences(of: "_", with: " ")))
        }
        // File and protection calls decide nothing when they succeed; a refusal (another
        // account's data, another app's container) is worth a line.
        let (verb, target, receiver, owner, decides) = auditedAs(request)
        guard decides || !result.isAllowed, !Self.auditsItself(request) else { return result }
        let source = (try? current(app, context))??.upn ?? ""
        audit.record(verb: verb, source: app.handle, sourceIdentity: source, destination: target,
                     destinationIdentity: receiver, owner: owner, result.verdict)
        return result
    }

    /// Calls whose service writes their audit records itself (the token service's).
    static func auditsItself(_ request: ServiceRequest) -> Bool {
        switch request {
        case .acquireToken, .remediateCompliance, .remediationInProgress: true
        default: false
        }
    }

    /// How a call appears in the audit log: verb, target, receiver, owner, and whether it
    /// decides something (plain file and protection calls do not: they are logged refused only).
    private func auditedAs(_ request: ServiceRequest) -> (AuditVerb, String, String, String, Bool) {
        switch request {
        case .copy: (.copy, "", "", "", true)
        case .paste(let receiver): (.paste, "", receiver ?? "", "", true)
        case .canSave(let l, let account): (.save, account.isEmpty ? "\(l)" : "\(l) (\(account))", "", account, true)
        case .canOpen(let l, let account, let receiver): (.open, account.isEmpty ? "\(l)" : "\(l) (\(account))", receiver ?? "", account, true)
        case .print: (.print, "", "", "", true)
        case .notify(let account, _): (.notify, "", "", account, true)
        case .keychainSet(let group, _, _): (.keychainSet, "keychain \(group)", "", "", true)
        case .keychainGet(let group, _): (.keychainGet, "keychain \(group)", "", "", true)
        case .screenCapture: (.screenCapture, "", "", "", true)
        case .policyQuery(let setting, let account, let accounts): (.policyQuery, setting.rawValue, "", account ?? accounts.joined(separator: ", "), true)
        case .managedSecret(let kind, let id): (.managedSecret, "\(kind) \(id)", "", "", true)
        case .signWithIdentity(let id, _): (.signWithIdentity, "identity \(id)", "", "", true)
        case .writeFile: (.writeFile, "", "", "", false)
        case .readFile: (.readFile, "", "", "", false)
        case .fileOwner: (.fileOwner, "", "", "", false)
        case .protect: (.protect, "", "", "", false)
        case .unprotect: (.unprotect, "", "", "", false)
        case .protectionInfo: (.protectionInfo, "", "", "", false)
        case .shareTargets: (.shareTargets, "", "", "", false)
        case .appConfig: (.appConfig, "", "", "", false)
        case .managedConfig: (.managedConfigCall, "", "", "", false)
        case .managedSecretIds: (.managedSecretIds, "", "", "", false)
        case .acquireToken: (.acquireTokenCall, "", "", "", false)
        case .remediateCompliance: (.remediateCompliance, "", "", "", false)
        case .remediationInProgress: (.remediationInProgress, "", "", "", false)
        case .managedConfigUndecodable: (.managedConfig, "", "", "", false)
        }
    }

    private func answer(_ request: ServiceRequest, for app: AppSpec, in context: ServiceContext) throws -> ServiceResult {
        let bundle = app.bundleID
        // What a window of several accounts does is decided under the SDK's lock-down policy.
        let fleet = try policyFleet(app, context)
        if let refused = try refusedAfterConditionalLaunch(request, for: app, in: context) { return ServiceResult(refused) }
        switch request {
        case .writeFile(let path, let data, let owner):
            // A file is owned by the effective file identity unless the app names one of its
            // own accounts.
            let owner = try owner ?? fileIdentity(app, context)
            if let o = owner, !o.isEmpty, try identities.signedIn(o, to: app) == nil {
                onEvent(.hostile(handle: app.handle, what: "wrote a file as \(o), which is not signed in to it", disconnected: false))
                return ServiceResult(.blocked(.notSignedIn, "\(o) is not signed in to \(bundle); a file can be owned only by an account of the app"))
            }
            let info = try state.writeFile(app: bundle, path: ContainerPath(parsing: path), data: data, owner: owner)
            return ServiceResult(.allowed("wrote \(path)"), .file(owner: info.owner, encrypted: info.isEncrypted))
        case .readFile(let path):
            return ServiceResult(.allowed("read \(path)"), .data(try state.readFile(app: bundle, path: ContainerPath(parsing: path))))
        case .fileOwner(let path):
            let owner = try state.fileOwner(app: bundle, path: ContainerPath(parsing: path)) ?? ""
            return ServiceResult(.allowed("\(path) is owned by \(owner.isEmpty ? "nobody (personal data)" : owner)"), .file(owner: owner, encrypted: false))
        case .protect(let data, let owner):
            let owner = try owner ?? current(app, context)?.upn ?? ""
            return ServiceResult(.allowed("protected for \(owner.isEmpty ? "unmanaged use" : owner)"), .data(try state.protect(app: bundle, data: data, owner: owner)))
        case .unprotect(let data):
            return ServiceResult(.allowed("unprotected"), .data(try state.unprotect(app: bundle, data: data)))
        case .protectionInfo(let data):
            let info = state.protectionInfo(data: data)
            return ServiceResult(.allowed(info == nil ? "not protected" : "protected"),
                                 .protection(info.map { ProtectionSummary(owner: $0.owner, encrypted: $0.isEncrypted) }))
        case .keychainSet(let group, let key, let value):
            let r = try state.keychainSet(app: bundle, group: group.isEmpty ? nil : group, key: key, value: value, owner: current(app, context)?.upn)
            return ServiceResult(keychainVerdict(r), .keychain(status: r.status, group: r.group ?? "", value: []))
        case .keychainGet(let group, let key):
            let r = try state.keychainGet(app: bundle, group: group.isEmpty ? nil : group, key: key)
            return ServiceResult(keychainVerdict(r), .keychain(status: r.status, group: r.group ?? "", value: r.value ?? []))
        case .copy(let text):
            pasteboard = (text, try current(app, context), bundle)
            return ServiceResult(.allowed("copied \(text.count) characters in \(bundle)"))
        case .paste(let receiver):
            let who = try receiver.map { try signedIn($0, to: app) } ?? current(app, context)
            guard let board = pasteboard else { return ServiceResult(.allowed("the pasteboard is empty"), .paste(text: "")) }
            let p = Enforcer.paste(board.text, owner: board.owner, copiedIn: board.source, into: bundle, as: who, in: fleet)
            return ServiceResult(p.decision, .paste(text: p.text))
        case .canSave(let location, let account):
            let owner = try current(app, context)
            return ServiceResult(Enforcer.save(owner: owner, to: location, locationAccount: named(account), app: bundle, in: fleet))
        case .canOpen(let location, let account, let receiver):
            let who = try receiver.map { try signedIn($0, to: app) } ?? current(app, context)
            return ServiceResult(Enforcer.open(from: location, locationAccount: named(account), as: who, app: bundle, in: fleet))
        case .print:
            return ServiceResult(Enforcer.print(as: try current(app, context), app: bundle, in: fleet))
        case .notify(let account, let text):
            let n = Enforcer.notification(text, of: try signedIn(account, to: app), app: bundle, in: fleet)
            guard let shown = n.shownText else { return ServiceResult(n.decision) }
            return ServiceResult(.allowed(n.decision.explanation), .notification(shown: shown))
        case .shareTargets(let types):
            return ServiceResult(.allowed("the share sheet"), .shareTargets(try shareTargets(app, types: types, in: context)))
        case .appConfig(let account):
            // IntuneMAMAppConfigManager's appConfigForAccountId: for an account not signed in
            // to the app answers an object with no settings: nothing of the account's.
            if let account, !account.isEmpty, try identities.signedIn(account, to: app) == nil {
                return ServiceResult(.allowed("\(account) is not signed in to \(bundle): its app configuration has no settings"), .appConfig([]))
            }
            let who = try account.map { try signedIn($0, to: app) } ?? current(app, context)
            let config = try state.appConfig(app: bundle, account: who)
            let why = config.fullData.isEmpty
                ? "no app configuration for \(who.map(\.description) ?? "the unmanaged identity") in \(bundle)"
                : "\(config.fullData.count) app configuration polic\(config.fullData.count == 1 ? "y" : "ies") for \(who.map(\.description) ?? "") in \(bundle)"
            return ServiceResult(.allowed(why), .appConfig(config.fullData))
        case .managedConfigUndecodable(let error):
            // The decoder's words go to the administrator as the app wrote them, cut to a line;
            // the same words again (every update while the configuration stays undecodable, or
            // a child repeating itself) are said once.
            let said = String(error.prefix(Self.decoderErrorLimit)).replacingOccurrences(of: "\n", with: " ")
            guard decoderErrors[app.handle]?.last != said else { return ServiceResult(.allowed("already reported to the administrator")) }
            let reported = (decoderErrors[app.handle]?.count ?? 0) + 1
            decoderErrors[app.handle] = (reported, said)
            // A child that makes up new words at every call is heard a bounded number of times.
            guard reported <= Self.decoderReportsPerApp else {
                if reported == Self.decoderReportsPerApp + 1 {
                    onEvent(.hostile(handle: app.handle, what: "reported \(reported) different decoder errors; further ones are not logged", disconnected: false))
                }
                return ServiceResult(.allowed("not reported: \(app.handle) reported \(Self.decoderReportsPerApp) decoder errors already"))
            }
            let why = "\(bundle)'s decoder refused its ManagedApp configuration (the app sees nil): \(said)"
            audit.record(verb: .managedConfig, source: app.handle, decision: .failed, reason: .badRequest, explanation: why)
            onEvent(.diagnostic(handle: app.handle, name: "managed-config-undecodable", detail: why))
            return ServiceResult(.allowed("reported to the administrator"))
        case .managedConfig(legacy: true):
            switch try state.legacyManagedConfiguration(app: bundle) {
            case .failure(let why): return ServiceResult(.allowed("no legacy managed configuration: \(why)"))
            case .success(nil):
                return ServiceResult(.allowed("\(bundle)'s declaration names no legacy configuration (LegacyAppConfigAssetReference)"))
            case .success(let plist?):
                guard (try? PropertyListSerialization.propertyList(from: Data(plist), format: nil)) != nil else {
                    audit.record(verb: .managedConfig, source: app.handle, decision: .failed, reason: .badRequest,
                                 explanation: "the legacy configuration asset of \(bundle) is not a property list; the app reads nothing")
                    return ServiceResult(.allowed("\(bundle)'s legacy configuration is not a property list: the app reads nothing"))
                }
                return ServiceResult(.allowed("\(bundle)'s legacy managed configuration (\(plist.count) bytes)"), .data(plist))
            }
        case .managedConfig:
            switch try state.managedAppContent(app: bundle) {
            case .failure(let why): return ServiceResult(.allowed("no managed configuration: \(why)"))
            case .success(let content):
                guard let plist = content.configuration else {
                    return ServiceResult(.allowed("\(bundle) is managed, but its declaration gives it no configuration (AppConfig.DataAssetReference)"))
                }
                // What cannot be read as a property list reaches the app as nil; the admin log says why.
                guard (try? PropertyListSerialization.propertyList(from: Data(plist), format: nil)) != nil else {
                    audit.record(verb: .managedConfig, source: app.handle, decision: .failed, reason: .badRequest,
                                 explanation: "the configuration asset of \(bundle) is not a property list; the app receives nil")
                    return ServiceResult(.allowed("\(bundle)'s configuration cannot be decoded (not a property list): the app receives nil"))
                }
                return ServiceResult(.allowed("\(bundle)'s managed configuration (\(plist.count) bytes)"), .data(plist))
            }
        case .managedSecret(let kind, let id):
            let secret = try state.managedSecret(app: bundle, kind: kind, id: id)
            let value: ManagedSecretValue = switch secret {
            case .password(let user, let password): .password(userName: user, password: password)
            case .certificate(let der): .certificate(der)
            case .identity(let der): .identity(certificate: der)
            }
            return ServiceResult(.allowed("\(kind) \"\(id)\" for \(bundle)"), .managedSecret(value))
        case .managedSecretIds(let kind):
            guard case .success(let content) = try state.managedAppContent(app: bundle) else {
                return ServiceResult(.allowed("\(bundle) has no managed \(kind.plural)"), .strings([]))
            }
            return ServiceResult(.allowed("\(bundle)'s \(kind) ids"), .strings(content.assets(of: kind).keys.sorted()))
        case .signWithIdentity(let id, let data):
            let (signature, _) = try state.signWithIdentity(app: bundle, id: id, data: data)
            return ServiceResult(.allowed("signed \(data.count) bytes with the identity \"\(id)\" (its key stays in the device)"), .data(signature))
        case .acquireToken(let account, let resource, _):
            guard let tokens else { return Self.noTokenService(request) }
            return tokens.tokenResult(for: app, account: account, resource: resource)
        case .remediateCompliance(let account, let silent):
            guard let tokens else { return Self.noTokenService(request) }
            return tokens.startRemediation(for: app, account: account, silent: silent)
        case .remediationInProgress(let account):
            guard let tokens else { return Self.noTokenService(request) }
            return tokens.remediationInProgressResult(for: app, account: account)
        case .screenCapture:
            return ServiceResult(Enforcer.screenCapture(as: try current(app, context), in: app.descriptor,
                                                                policies: state.appConfigPolicies, fleet: fleet))
        case .policyQuery(let setting, let account, let accounts) where account == nil && !accounts.isEmpty:
            // policyForAccountIds: any accounts' policies may be read, signed in or not.
            return ServiceResult(Enforcer.policyQuery(setting, accounts: accounts.map { named($0) ?? Account(upn: "") }, app: bundle, in: fleet))
        case .policyQuery(let setting, let account, _):
            // policyForAccountId: any account's policy may be read, signed in or not.
            let who = try account.map(named) ?? current(app, context)
            return ServiceResult(Enforcer.policyQuery(setting, as: who, app: bundle, in: fleet))
        }
    }

    static func noTokenService(_ request: ServiceRequest) -> ServiceResult {
        ServiceResult(.failed(.internalError, "\(request.name): the device has no token service"))
    }

    /// The fleet a call in `context` is decided with: a window showing several accounts with a
    /// managed one among them (`setUIPolicyAccountIds`, no thread identity overriding it) has
    /// the SDK's standard lock-down policy in place of that account's own (`policyForWindow`).
    private func policyFleet(_ app: AppSpec, _ context: ServiceContext) throws -> Fleet {
        guard context.thread == nil, let shown = try state.uiAccounts(app: app.identityOwner, window: context.window), shown.count > 1,
              let managed = shown.compactMap(state.account(forIdentity:)).first(where: { fleet.isManaged($0, in: app.bundleID) })
        else { return fleet }
        return fleet.lockingDown(managed)
    }

    /// A conditional launch that failed at launch or resume leaves the app running without
    /// access to org data (RULES.md §8): what it would do with a managed account's data is
    /// refused until a launch, resume or managed identity switch passes.
    private func refusedAfterConditionalLaunch(_ request: ServiceRequest, for app: AppSpec, in context: ServiceContext) throws -> Verdict? {
        let acting: Account?
        switch request {
        case .copy, .print, .canSave, .shareTargets, .screenCapture: acting = try current(app, context)
        case .paste(let receiver), .canOpen(_, _, let receiver): acting = try receiver.map { try signedIn($0, to: app) } ?? current(app, context)
        case .notify(let account, _): acting = try signedIn(account, to: app)
        case .writeFile, .readFile, .fileOwner, .protect, .unprotect, .protectionInfo, .keychainSet, .keychainGet, .appConfig, .managedConfigUndecodable,
             .managedConfig, .managedSecret, .managedSecretIds, .signWithIdentity, .acquireToken, .remediateCompliance,
             .remediationInProgress, .policyQuery: return nil
        }
        guard let acting, fleet.isManaged(acting, in: app.bundleID), let why = try state.accessBlock(app: app.bundleID) else { return nil }
        return .blocked(.conditionalLaunch, "\(app.bundleID) has no access to \(acting)'s data: \(why)")
    }

    /// The policy's verdict; what iOS returns (`errSecItemNotFound`…) is the answer's status.
    private func keychainVerdict(_ r: KeychainResult) -> Verdict {
        if r.status == .missingEntitlement, r.decision.isAllowed {
            return .blocked(.keychainEntitlement, r.decision.explanation)
        }
        return r.decision
    }

    /// The account a request says the app acts as: `""` is the unmanaged identity; any other
    /// name must be an account signed in to the app, or the request is refused
    /// (`not-signed-in`): a child cannot receive or show data as someone it does not have.
    private func signedIn(_ name: String, to app: AppSpec) throws -> Account? {
        guard !name.isEmpty else { return nil }
        guard let account = try identities.signedIn(name, to: app) else {
            onEvent(.hostile(handle: app.handle, what: "acted as \(name), which is not signed in to it", disconnected: false))
            throw DeviceStateError(.notSignedIn, "\(name) is not signed in to \(app.bundleID), so \(app.handle) cannot act as that account")
        }
        return account
    }

    /// The identity a UI call acts as (RULES.md §1): thread ?? window ?? process. The thread
    /// identity is the app's claim: it must be `""` or an account signed in to the app.
    private func current(_ app: AppSpec, _ context: ServiceContext) throws -> Account? {
        if let thread = context.thread { return try signedIn(thread, to: app) }
        if context.window.isEmpty { return try identities.current(of: app) }
        return state.account(forIdentity: try state.effectiveIdentity(app: app.identityOwner, window: context.window, for: .ui))
    }

    /// The identity a file call acts as: thread ?? process (the window never decides a file).
    private func fileIdentity(_ app: AppSpec, _ context: ServiceContext) throws -> String? {
        if let thread = context.thread { return try signedIn(thread, to: app)?.description ?? "" }
        return try state.effectiveIdentity(app: app.identityOwner, for: .file)
    }

    /// An account a request names (`""` = none).
    private func named(_ account: String) -> Account? {
        guard !account.isEmpty else { return nil }
        return fleet.account(named: account) ?? Account(upn: account)
    }

    /// What the share sheet lists for an item the app shares now: every other app, and every
    /// extension whose activation rule accepts the item (managed data is offered only to
    /// extensions accepting the Intune types), filtered by the owner's policy; an app's
    /// "Open in" action extension replaces its "Copy to" entry for managed data.
    private func shareTargets(_ app: AppSpec, types: [String], in context: ServiceContext) throws -> [String] {
        let owner = try current(app, context)
        let fleet = self.fleet
        let managed = fleet.isManaged(owner, in: app.bundleID)
        var candidates: [ShareCandidate] = []
        for other in registry.specs where other.bundleID != app.bundleID {
            if other.descriptor.kind != .app {
                guard let accepts = other.activation, accepts(types, managed).activated else { continue }
            }
            candidates.append(ShareCandidate(other.bundleID, receivedAs: try identities.receiver(of: other)))
        }
        let listed = Enforcer.shareTargets(owner: owner, from: app.bundleID, candidates: candidates, in: fleet)
        return listed.compactMap { registry.app(withBundle: $0)?.handle }
    }

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
        let scheme = url[..<colon].lowercased()
        let owner = try identities.current(of: app)
        if let refused = try refusedAfterConditionalLaunch(.copy(text: ""), for: app, in: .main) {
            audit.record(verb: .openURL, source: app.handle, sourceIdentity: owner?.upn ?? "", destination: url, refused)
            return (.blocked(refused.reason ?? .conditionalLaunch, because: refused.explanation), nil)
        }
        let decision: Verdict
        var handler: String?
        if scheme == "http" || scheme == "https" {
            let policy = fleet.policy(for: owner, in: app.bundleID)
            let browsers = policy.map(Enforcer.managedBrowserSchemes) ?? []
            let browser = registry.specs.first { spec in spec.descriptor.schemeKeys.contains(where: browsers.contains) }
            let link = Enforcer.webLink(url, owner: owner, from: app.bundleID, browserInstalled: browser != nil, in: fleet)
            decision = link.verdict
            // Only the required browser is known to be of the fleet: a universal link's own app
            // (its associated domains) and the default browser are iOS's choice.
            handler = link.opensIn == .managedBrowser ? browser?.handle : nil
        } else {
            // A phone link goes to the custom dialer app when the owner's policy names one.
            let opensWith = Enforcer.dialerScheme(for: scheme, policy: fleet.policy(for: owner, in: app.bundleID))
            guard let target = registry.specs.first(where: { $0.bundleID != app.bundleID && $0.descriptor.schemeKeys.contains(opensWith) }) else {
                let d = Verdict.failed(.unknownApp, "no installed app declares the URL scheme \(scheme): (CFBundleURLSchemes)")
                audit.record(verb: .openURL, source: app.handle, sourceIdentity: owner?.upn ?? "", destination: url, d)
                return (d, nil)
            }
            decision = Enforcer.openURL(scheme: scheme, owner: owner, from: app.bundleID, in: fleet)
            handler = target.handle
        }
        audit.record(verb: .openURL, source: app.handle, sourceIdentity: owner?.upn ?? "", destination: handler ?? url,
                     owner: owner?.upn ?? "", decision)
        return (decision, handler)
    }

    // MARK: - Identities

    /// Identity changes an app asks for. A switch to a managed identity runs conditional
    /// launch; the PIN prompt is answered with what the user was scripted to type.
    func setIdentity(_ request: SetIdentity, for app: AppSpec) -> IdentityResult {
        let owner = app.identityOwner
        let account: String? = request.account.isEmpty ? "" : request.account
        let pin = context.takePinAnswer(app.key)
        if let refused = Enforcer.mainThreadConflict(switchingTo: account, mainThread: request.mainThread, in: fleet) {
            audit.record(verb: .switchIdentity, source: app.handle, sourceIdentity: request.account, owner: request.account,
                         decision: .notAllowed, reason: refused.blockedBy, explanation: refused.explanation)
            return IdentityResult(status: .notAllowed, reason: refused.blockedBy, explanation: refused.explanation, account: request.account)
        }
        do {
            let report = switch request.scope {
            case .process: try state.setProcessAccountId(app: owner, account: account, pin: pin, now: nil)
            case .ui: try state.setUIPolicyAccountId(app: owner, window: request.window, account: account, pin: pin, now: nil)
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

