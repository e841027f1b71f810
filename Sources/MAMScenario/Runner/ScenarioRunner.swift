public import Foundation
public import MAMDevice
import MAMDeviceState
import MAMExtensions
import MAMActivation
import MAMBundle
import MAMModel
import MAMPolicy
import MAMWire
import Synchronization

/// Runs a scenario on a real host: the fleet's apps are child processes, shares and identity
/// switches go through the apps' own processes and the broker, and the device services
/// (pasteboard, locations, keychain, share sheet) are answered by the host.
public enum ScenarioRunner {
    public struct Options: Sendable {
        public var appRuntime: String
        /// The device directory; `nil` = a fresh temporary one.
        public var deviceDirectory: URL?
        /// Children's output to /dev/null (parallel test runs).
        public var quietChildren = true
        /// Called on every host event and after every step, for progress displays.
        public var onEvent: (@Sendable (HostEvent) -> Void)?
        public var onStep: (@Sendable (StepResult) -> Void)?

        public init(appRuntime: String, deviceDirectory: URL? = nil) {
            self.appRuntime = appRuntime
            self.deviceDirectory = deviceDirectory
        }
    }

    /// The host configuration for a scenario's fleet.
    public static func configuration(for scenario: Scenario, options: Options, deviceDirectory: URL) -> HostConfiguration {
        var specs = scenario.apps.map { app in
            var spec = AppSpec(handle: app.id, descriptor: app.descriptor, executable: app.executable?.path, arguments: app.arguments)
            spec.sandbox = AppSandbox(read: app.sandbox.read, environment: app.sandbox.environment)
            spec.userAccounts = app.msalAccounts
            return spec
        }
        for ext in scenario.extensions {
            let manifest = ext.manifest
            let accepts: @Sendable ([String], Bool) -> (activated: Bool, reason: String) = { types, managed in
                let result = manifest.activation(for: ShareInput(types), dataIsManaged: managed)
                return (result.isActivated, result.reason)
            }
            var spec = AppSpec(handle: ext.id, descriptor: ext.descriptor, executable: ext.executable?.path, arguments: ext.arguments, startsWithFleet: false)
            spec.activation = accepts
            spec.sandbox = AppSandbox(read: ext.sandbox.read, environment: ext.sandbox.environment)
            specs.append(spec)
        }
        var config = HostConfiguration(apps: specs, fleet: scenario.fleet, deviceDirectory: deviceDirectory, appRuntime: options.appRuntime)
        config.extraPolicies = Array(scenario.policies.values)
        config.clockStart = scenario.device.clock
        config.networkOnline = scenario.device.online
        config.appConfigs = scenario.appConfigs
        config.declarations = scenario.declarations
        config.conditionalAccess = scenario.conditionalAccess
        config.brokerInstalled = scenario.device.authenticator
        config.quietChildren = options.quietChildren
        // The scenario's folder and every file it read: what it describes reaches the apps
        // through the device, never by reading its inputs.
        config.protectedPaths = [scenario.file.deletingLastPathComponent()] + scenario.inputs
        return config
    }

    public static func run(_ scenario: Scenario, options: Options) async -> ScenarioReport {
        let started = ContinuousClock.now
        let directory = options.deviceDirectory
            ?? DeviceLocations.temporaryDevice()
        var report = ScenarioReport(name: scenario.name, file: scenario.file, deviceDirectory: directory)
        let host: HostController
        var config = configuration(for: scenario, options: options, deviceDirectory: directory)
        let context = RunContext()
        config.context = context
        // What each app or extension accepted, in order, for `expectState.received`: the
        // scenario's business, collected from the host's events.
        let received = ReceivedLog()
        let onEvent = options.onEvent
        do {
            host = try HostController(configuration: config) { event in
                if case .received(let handle, let item) = event { received.append(item, to: handle) }
                if case .notified(let handle, let name, _) = event { received.notified(name, to: handle) }
                if case .diagnostic(let handle, let name, _) = event { received.diagnosed(name, for: handle) }
                if case .telemetry(let handle, let name) = event { received.sent(name, by: handle) }
                onEvent?(event)
            }
        } catch {
            report.fleetError = "\(error)"
            return report
        }
        // Conditional launch runs as the fleet starts: its audit lines belong to this run.
        context.setStep(scenario: scenario.name, step: "fleet start")
        let failures = await host.startFleet()
        // An app that fails to start (or misbehaves at its handshake) is that app's failure:
        // the others run, and a step involving it answers app-not-running. Only a fleet where
        // nothing started has nothing to run.
        report.appsNotStarted = failures.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        if !failures.isEmpty, failures.count == scenario.apps.count {
            report.fleetError = report.appsNotStarted.joined(separator: "; ")
        } else {
            for step in scenario.steps {
                let t0 = ContinuousClock.now
                let stepName = step.name ?? ""
                context.setStep(scenario: scenario.name, step: stepName.isEmpty ? "step \(step.index + 1)" : stepName)
                let (observed, explanation, parties) = await execute(step, scenario: scenario, host: host, received: received)
                let result = StepResult(
                    index: step.index, line: step.line, name: stepName, verb: step.verb.rawValue, parties: parties,
                    observed: observed, explanation: explanation,
                    // expectState is a check by nature: without `expect` it still expects ok.
                    expected: step.expect ?? (step.verb == .expectState ? .ok : nil),
                    seconds: (ContinuousClock.now - t0).inSeconds)
                report.steps.append(result)
                options.onStep?(result)
            }
        }
        let auditFile = directory.appendingPathComponent("audit.jsonl")
        switch await host.exportAudit(to: auditFile) {
        case .success: report.auditLog = auditFile
        case .failure(let error): report.auditError = "the audit log could not be written to \(auditFile.path): \(error)"
        }
        _ = await host.shutdown()
        if options.deviceDirectory == nil { removeDeviceState(in: directory, keeping: report.auditLog) }
        report.seconds = (ContinuousClock.now - started).inSeconds
        return report
    }

    /// A temporary device holds keys, containers and keychain values: once the run is over,
    /// all of it goes but the audit log the report points to.
    static func removeDeviceState(in directory: URL, keeping audit: URL?) {
        let fm = FileManager.default
        guard let entries = try? fm.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil) else { return }
        for entry in entries where entry.lastPathComponent != audit?.lastPathComponent {
            try? fm.removeItem(at: entry)
        }
        if audit == nil { try? fm.removeItem(at: directory) }
    }

    // MARK: - Steps

    private static func execute(_ step: Step, scenario: Scenario, host: HostController, received: ReceivedLog) async -> (Observed, String, String) {
        // A verb that acts in an extension starts it first, as iOS does when the extension
        // is used (SCENARIOS.md v1.1).
        if let handle = actingApp(step.args), scenario.extensions.contains(where: { $0.id == handle }),
           await host.pid(of: handle) == nil, case .failure(let e) = await host.launch(handle) {
            return (.failed(.appNotRunning), "\(handle) could not be started: \(e)", handle)
        }
        switch step.args {
        case .launch(let app):
            switch await host.launch(app) {
            case .success(let pid):
                // Conditional launch ran when the process started (RULES.md §8).
                guard let report = await host.launchReport(app) else { return (.ok, "\(app) running (pid \(pid))", app) }
                return (launched(report), "\(app) running (pid \(pid)): \(explained(report))", app)
            case .failure(let e): return (.failed(.appNotRunning), "\(e)", app)
            }
        case .pause(let app):
            switch await host.pause(app) {
            case .success: return (.ok, "\(app) went to the background", app)
            case .failure(let e): return (.failed(.appNotRunning), "\(e)", app)
            }
        case .resume(let app):
            switch await host.resume(app) {
            case .success(let report): return (launched(report), "\(app) is back in the foreground: \(explained(report))", app)
            case .failure(let e): return (.failed(.appNotRunning), "\(e)", app)
            }
        case .setNetwork(let online):
            switch await host.setNetwork(online: online) {
            case .success: return (.ok, online ? "the device is online: apps check in when they launch, resume or switch identity" : "the device is offline: no check-ins", "device")
            case .failure(let e): return (.failed(e.reason), e.message, "device")
            }
        case .setAllowedAccounts(let accounts):
            switch await host.setAllowedAccounts(accounts) {
            case .success(let changes):
                let out = changes.flatMap { c in c.signedOut.map { "\($0) signed out of \(c.app)" } }
                let list = accounts.map { $0.isEmpty ? "nobody" : $0.joined(separator: ", ") } ?? "not targeted"
                return (.ok, "allowed accounts: \(list)" + (out.isEmpty ? "" : "; " + out.joined(separator: "; ")), "device")
            case .failure(let e): return (.failed(e.reason), e.message, "device")
            }
        case .kill(let app):
            guard await host.kill(app) else { return (.failed(.appNotRunning), "\(app) is not running", app) }
            // Wait until the host has reaped it, so the next step sees it gone.
            for _ in 0..<200 where await host.pid(of: app) != nil { try? await Task.sleep(for: .milliseconds(10)) }
            return (.ok, "\(app) killed", app)
        case .signIn(let app, let account):
            let d = await host.signIn(app, account: key(account))
            return (Observed(d, allowed: .ok), d.explanation, "\(account) → \(app)")
        case .signOut(let app, let account):
            let d = await host.signOut(app, account: key(account))
            return (Observed(d, allowed: .ok), d.explanation, "\(account) ← \(app)")
        case .switchIdentity(let app, let account, let window, let pin):
            let r = await host.setIdentity(app, account: account.isEmpty ? "" : account.upn, window: window ?? "", pin: pin)
            let who = account.isEmpty ? "unmanaged" : account.upn
            let observed: Observed = switch r.status {
            case .success: .success
            case .canceled: .canceled
            case .notAllowed: .notAllowed
            case .failed: .failed(r.reason)
            }
            return (observed, r.explanation, "\(app) → \(who)")
        case .share(let from, let to, let item, let receiveAs, let pin, let window):
            let identity: String
            switch await host.effectiveAccount(from, window: window ?? "") {
            case .success(let a): identity = a?.upn ?? ""
            case .failure(let e): return (.failed(e.reason), e.message, "\(from) → \(to)")
            }
            var wireItem: Item
            do {
                wireItem = try makeItem(item, id: "step\(step.index + 1)")
            } catch {
                return (.failed(.badRequest), "cannot read the item: \(error)", "\(from) → \(to)")
            }
            // A file item is a real file: the app first saves it in its Documents, owned by the
            // identity it shows, then shares the file; it reaches the destination's Inbox as
            // `Inbox/step<N>-<name>`.
            if case .inline(let bytes) = wireItem.payload, !wireItem.fileName.isEmpty {
                let path = "Documents/\(wireItem.fileName)"
                let wrote = await host.service(from, .writeFile(path: path, data: bytes, owner: identity))
                guard wrote.isAllowed else {
                    return (.failed(wrote.verdict.reason), "cannot save \(path) in \(from): \(wrote.verdict.explanation)", "\(from) → \(to)")
                }
                wireItem.payload = .file(path: path)
            }
            let outcome = await host.share(from: from, to: to, item: wireItem, identity: identity, receiveAs: receiveAs.map(key) ?? "", pin: pin)
            let who = identity.isEmpty ? "unmanaged" : identity
            return (Observed(outcome), outcome == .delivered ? "delivered and acknowledged" : outcome.explanation, "\(from) (\(who)) → \(to)")
        case .shareTargets(let from, let item):
            let r = await host.service(from, .shareTargets(types: [item.type]))
            guard case .shareTargets(let targets) = r.value else { return (decided(r.verdict, allowed: .ok), r.verdict.explanation, from) }
            return (.targets(targets), "the share sheet lists \(targets.isEmpty ? "nothing" : targets.joined(separator: ", "))", from)
        case .copy(let app, let text, let thread, let window):
            let context = ServiceContext(window: window ?? "", thread: thread.map { $0.isEmpty ? "" : $0.description })
            let r = await host.service(app, .copy(text: text), context: context)
            return (decided(r.verdict, allowed: .ok), r.verdict.explanation, app)
        case .paste(let app, let receiver, let window):
            let r = await host.service(app, .paste(as: receiver.map { $0.isEmpty ? "" : $0.upn }), context: ServiceContext(window: window ?? ""))
            if r.isAllowed, case .paste(let text) = r.value { return (.pasted(text), r.verdict.explanation, app) }
            return (decided(r.verdict, allowed: .ok), r.verdict.explanation, app)
        case .save(let app, let location, let account):
            let r = await host.service(app, .canSave(location, account: account.map { $0.isEmpty ? "" : $0.upn } ?? ""))
            return (decided(r.verdict, allowed: .allowed), r.verdict.explanation, "\(app) → \(location)\(account.map { " (\($0))" } ?? "")")
        case .open(let app, let location, let account, let receiver):
            let r = await host.service(app, .canOpen(location, account: account.map { $0.isEmpty ? "" : $0.upn } ?? "",
                                                     as: receiver.map { $0.isEmpty ? "" : $0.upn }))
            return (decided(r.verdict, allowed: .allowed), r.verdict.explanation, "\(location)\(account.map { " (\($0))" } ?? "") → \(app)")
        case .keychainSet(let app, let group, let k, let value):
            let r = await host.service(app, .keychainSet(group: group, key: k, value: Array(value.utf8)))
            return (keychainObserved(r, success: .ok), r.verdict.explanation, "\(app) → \(group)/\(k)")
        case .keychainGet(let app, let group, let k, _):
            let r = await host.service(app, .keychainGet(group: group, key: k))
            return (keychainObserved(r, success: .value(String(decoding: r.data, as: UTF8.self))), r.verdict.explanation, "\(app) ← \(group)/\(k)")
        case .print(let app, let window):
            let r = await host.service(app, .print, context: ServiceContext(window: window ?? ""))
            return (decided(r.verdict, allowed: .allowed), r.verdict.explanation, app)
        case .notify(let app, let account, let text):
            let r = await host.service(app, .notify(account: account.isEmpty ? "" : account.upn, text: text))
            if r.isAllowed, case .notification(let shown) = r.value { return (.shown(shown), r.verdict.explanation, "\(app) (\(account))") }
            return (decided(r.verdict, allowed: .ok), r.verdict.explanation, "\(app) (\(account))")
        case .wipe(let app, let account):
            switch await host.wipe(app, account: key(account)) {
            case .success(let report): return (.ok, report.description, "\(account) in \(app)")
            case .failure(let e): return (.failed(e.reason), e.message, "\(account) in \(app)")
            }
        case .setPolicy(let account, let name):
            let policy = name.flatMap { scenario.policies[$0] }
            switch await host.setPolicy(policy, for: account) {
            case .success(true): return (.ok, name.map { "\(account) is now targeted by \"\($0)\"" } ?? "\(account) is no longer targeted", "\(account)")
            case .success(false):
                return (.ok, "\(account) is targeted by \"\(name ?? "")\", but another account is the device's managed account: \(account) stays unmanaged in every app (one managed account per device)", "\(account)")
            case .failure(let e): return (.failed(e.reason), e.message, "\(account)")
            }
        case .advanceClock(let by):
            switch await host.advanceClock(by: by) {
            case .success(let now): return (.ok, "the device clock reads \(now)", "\(by)")
            case .failure(let e): return (.failed(e.reason), e.message, "\(by)")
            }
        case .writeFile(let app, let path, let data, let thread):
            let owner = thread.map { $0.isEmpty ? "" : $0.upn }
            let r = await host.service(app, .writeFile(path: path, data: data, owner: owner))
            return (fileObserved(r.verdict, allowed: .ok), r.verdict.explanation, "\(app) → \(path)\(owner.map { " as \($0.isEmpty ? "unmanaged" : $0)" } ?? "")")
        case .readFile(let app, let path):
            let r = await host.service(app, .readFile(path: path))
            if r.isAllowed, case .data(let bytes) = r.value { return (.text(String(decoding: bytes, as: UTF8.self)), r.verdict.explanation, "\(app) ← \(path)") }
            return (fileObserved(r.verdict, allowed: .ok), r.verdict.explanation, "\(app) ← \(path)")
        case .protect(let app, let path, let account):
            switch await host.setFileOwner(app, path: path, owner: account.map { $0.isEmpty ? "" : $0.upn }) {
            case .success(let info):
                return (.ok, "\(path) is owned by \(info.owner.isEmpty ? "nobody" : info.owner)\(info.isEncrypted ? ", encrypted on disk" : "")", "\(app): \(path)")
            case .failure(let e): return (fileObserved(.failed(e.reason, e.message), allowed: .ok), e.message, "\(app): \(path)")
            }
        case .unprotect(let app, let path):
            switch await host.setFileOwner(app, path: path, owner: "") {
            case .success: return (.ok, "\(path) is no longer protected", "\(app): \(path)")
            case .failure(let e): return (fileObserved(.failed(e.reason, e.message), allowed: .ok), e.message, "\(app): \(path)")
            }
        case .protectionInfo(let app, let path):
            switch await host.fileStatus(app, path: path) {
            case .success(let status) where !status.exists:
                // IntuneMAMFileProtectionManager's protectionInfo: "Returns nil if the path does not exist".
                return (.none, "\(path) does not exist in \(app)'s containers: no protection info", "\(app): \(path)")
            case .success(let status):
                guard let owner = status.owner, !owner.isEmpty else { return (.none, "\(path) is not protected", "\(app): \(path)") }
                return (.owner(owner), "\(path) is owned by \(owner)\(status.encryptedOnDisk ? ", encrypted on disk" : "")", "\(app): \(path)")
            case .failure(let e): return (fileObserved(.failed(e.reason, e.message), allowed: .ok), e.message, "\(app): \(path)")
            }
        case .openURL(let from, let url):
            let (d, handler) = await host.openURL(from, url: url)
            let parties = "\(from) → \(handler ?? url)"
            if d.isAllowed { return (.delivered, d.explanation + (handler.map { "; \($0) takes the link" } ?? ""), parties) }
            let reason = d.blockedBy ?? .badRequest
            // No app for the scheme, or no URL at all, is a failure to deliver, not a rule.
            return (reason == .unknownApp || reason == .badRequest ? .failed(reason) : .blocked(reason), d.explanation, parties)
        case .appConfig(let app, let account, let key, let type, let query):
            let r = await host.service(app, .appConfig(account: account.map { $0.isEmpty ? "" : $0.description }))
            guard r.isAllowed, case .appConfig(let data) = r.value else { return (decided(r.verdict, allowed: .none), r.verdict.explanation, app) }
            let config = AppConfig(fullData: data)
            let conflict = config.hasConflict(forKey: key)
            let values: [String] = switch type {
            case .bool: config.allBools(forKey: key).map { $0 ? "true" : "false" }
            case .number: config.allNumbers(forKey: key).map(AppConfig.format)
            case .string: config.allStrings(forKey: key)
            }
            let why = "\(r.verdict.explanation); \(key): \(values.isEmpty ? "no \(type) value" : values.joined(separator: ", "))\(conflict ? " (targeted values conflict)" : "")"
            if query == .all { return (.configValues(values, conflict: conflict), why, "\(app): \(key)") }
            let one: String? = switch (type, query) {
            case (.bool, .or), (.bool, .and), (.bool, .any), (.bool, .value):
                config.bool(forKey: key, query: query == .or ? .or : query == .and ? .and : .any).map { $0 ? "true" : "false" }
            case (.number, _):
                config.number(forKey: key, query: query == .min ? .min : query == .max ? .max : .any).map(AppConfig.format)
            case (.string, _):
                config.string(forKey: key, query: query == .min ? .min : query == .max ? .max : .any)
            default: nil
            }
            guard let one else { return (.none, why, "\(app): \(key)") }
            return (.configValue(one, conflict: conflict), why, "\(app): \(key)")
        case .setAppConfig(let name, let settings):
            switch await host.setAppConfig(named: name, settings: settings) {
            case .success(let told):
                let what = settings.map { "\"\(name)\" now sets \($0.map { "\($0.name) = \($0.value)" }.joined(separator: ", "))" } ?? "\"\(name)\" removed"
                return (.ok, "\(what); \(told) running app/account pair(s) notified", name)
            case .failure(let e): return (.failed(e.reason), e.message, name)
            }
        case .managedConfig(let app, let key):
            let r = await host.service(app, .managedConfig)
            guard r.isAllowed else { return (decided(r.verdict, allowed: .none), r.verdict.explanation, app) }
            guard case .data(let plist) = r.value,
                  let object = try? PropertyListSerialization.propertyList(from: Data(plist), format: nil) else {
                return (.none, r.verdict.explanation, app)
            }
            guard let key else { return (.config(CanonicalJSON.text(object)), r.verdict.explanation, app) }
            guard let dict = object as? [String: Any], let value = dict[key] else {
                return (.none, "\(r.verdict.explanation); no key \"\(key)\"", "\(app): \(key)")
            }
            return (.configValue(CanonicalJSON.scalarText(value), conflict: false), r.verdict.explanation, "\(app): \(key)")
        case .managedSecret(let app, let kind, let id):
            let r = await host.service(app, .managedSecret(kind: kind, id: id))
            let parties = "\(app): \(kind) \(id)"
            guard r.isAllowed, case .managedSecret(let secret) = r.value else {
                if case .failed(let reason, _) = r.verdict, reason == .invalidIdentifier { return (.errorCode(reason), r.verdict.explanation, parties) }
                return (decided(r.verdict, allowed: .none), r.verdict.explanation, parties)
            }
            switch secret {
            case .password(_, let password): return (.password(password), r.verdict.explanation, parties)
            case .certificate(let der), .identity(let der):
                let (subject, sha) = CertificateSummary.of(der)
                if case .identity = secret { return (.certificate(subject: subject, sha256: sha, identity: true), "\(r.verdict.explanation); subject \(subject)", parties) }
                return (.certificate(subject: subject, sha256: sha, identity: false), "\(r.verdict.explanation); subject \(subject)", parties)
            }
        case .managedSecretIds(let app, let kind):
            let r = await host.service(app, .managedSecretIds(kind: kind))
            guard r.isAllowed, case .strings(let ids) = r.value else { return (decided(r.verdict, allowed: .ids([])), r.verdict.explanation, app) }
            return (.ids(ids), r.verdict.explanation, "\(app): \(kind.plural)")
        case .applyDeclarations(let files, let entries):
            switch await host.changeDeclarations(apply: entries) {
            case .success(let told): return (.ok, "applied \(entries.count) declaration(s) from \(files.joined(separator: ", ")); \(told) running app(s) notified", "device")
            case .failure(let e): return (.failed(e.reason), e.message, "device")
            }
        case .removeDeclaration(let identifier):
            switch await host.changeDeclarations(apply: [], remove: identifier) {
            case .success(let told): return (.ok, "removed \(identifier); \(told) running app(s) notified", "device")
            case .failure(let e): return (.failed(e.reason), e.message, "device")
            }
        case .signWithIdentity(let app, let id, let data):
            let r = await host.service(app, .signWithIdentity(id: id, data: data))
            let parties = "\(app): identity \(id)"
            guard r.isAllowed, case .data(let signature) = r.value else {
                if case .failed(let reason, _) = r.verdict, reason == .invalidIdentifier { return (.errorCode(reason), r.verdict.explanation, parties) }
                return (decided(r.verdict, allowed: .failed(nil)), r.verdict.explanation, parties)
            }
            // Checked as the server at the other end of mutual TLS would: with the certificate
            // the app was given.
            let cert = await host.service(app, .managedSecret(kind: .identity, id: id))
            guard case .managedSecret(.identity(let der)) = cert.value else { return (.signature(verified: false), "no certificate for \(id)", parties) }
            let ok = CertificateSummary.verify(signature, over: data, certificate: der)
            return (.signature(verified: ok), "\(r.verdict.explanation); signature \(Data(signature).base64EncodedString()) \(ok ? "verifies" : "does not verify") with the identity's certificate", parties)
        case .acquireToken(let app, let account, let resource):
            let (t, token) = await host.acquireToken(app, account: key(account), resource: resource)
            let parties = "\(app) (\(account)) → \(resource)"
            guard let token else {
                let why = t.decision.explanation + (t.homeAccountID.map { " [homeAccountId \($0)]" } ?? "")
                return (Observed(t.decision, allowed: .token), why, parties)
            }
            return (.token, "\(t.decision.explanation); token \(token)", parties)
        case .remediate(let app, let account, let silent, let userCancels):
            switch await host.remediate(app, account: key(account), silent: silent, userCancels: userCancels) {
            case .success(let o):
                let why = o.status == .compliant ? "\(account) is compliant in \(app)" : "\(o.title): \(o.message)"
                return (.compliance(o.status), why, "\(app) (\(account))")
            case .failure(let e): return (.failed(e.reason), e.message, "\(app) (\(account))")
            }
        case .setConditionalAccess(let policy, let state):
            switch await host.setConditionalAccess(policy, state: state) {
            case .success: return (.ok, "conditional access policy \"\(policy)\" is \(state.rawValue)", "device")
            case .failure(let e): return (.failed(e.reason), e.message, "device")
            }
        case .screenCapture(let app, let window):
            let r = await host.service(app, .screenCapture, context: ServiceContext(window: window ?? ""))
            return (decided(r.verdict, allowed: .allowed), r.verdict.explanation, app)
        case .expectState(let app, let expectation):
            let differences = await stateDifferences(app, expectation, host: host, received: received)
            return (differences.isEmpty ? .ok : .failed(nil), differences.isEmpty ? "state as expected" : differences.joined(separator: "; "), app)
        }
    }

    /// The app or extension whose code a step runs (`nil` for device-wide steps and checks).
    private static func actingApp(_ args: StepArguments) -> String? {
        switch args {
        case .share(let from, _, _, _, _, _), .shareTargets(let from, _), .openURL(let from, _): from
        case .copy(let app, _, _, _), .paste(let app, _, _), .save(let app, _, _), .open(let app, _, _, _),
             .keychainSet(let app, _, _, _), .keychainGet(let app, _, _, _), .print(let app, _), .notify(let app, _, _),
             .writeFile(let app, _, _, _), .readFile(let app, _), .protect(let app, _, _), .unprotect(let app, _),
             .protectionInfo(let app, _), .appConfig(let app, _, _, _, _), .screenCapture(let app, _),
             .managedConfig(let app, _), .managedSecret(let app, _, _), .managedSecretIds(let app, _), .signWithIdentity(let app, _, _),
             .acquireToken(let app, _, _), .remediate(let app, _, _, _):
            app
        case .launch, .kill, .signIn, .signOut, .switchIdentity, .wipe, .setPolicy, .advanceClock, .expectState,
             .pause, .resume, .setNetwork, .setAllowedAccounts, .setAppConfig, .applyDeclarations, .removeDeclaration,
             .setConditionalAccess:
            nil
        }
    }

    private static func launched(_ report: LaunchCheckReport) -> Observed {
        Observed(report.decision, allowed: .ok)
    }

    private static func explained(_ report: LaunchCheckReport) -> String {
        ([report.decision.explanation] + report.warnings).joined(separator: "; ")
    }

    private static func key(_ account: Account) -> String { account.upn.isEmpty ? account.oid : account.upn }

    private static func makeItem(_ item: ScenarioItem, id: String) throws -> Item {
        var fileName = ""
        if case .file(let url) = item.content { fileName = url.lastPathComponent }
        return Item(id: id, typeIdentifiers: [item.type], payload: .inline(try item.bytes()), fileName: fileName)
    }

    /// A verdict as an outcome: `allowed` when granted, `blocked(reason)` when a rule
    /// refused it, `failed(reason)` when it could not be done.
    private static func decided(_ v: Verdict, allowed: Observed) -> Observed {
        switch v {
        case .allowed: allowed
        case .blocked(let r, _): .blocked(r)
        case .failed(let r, _): .failed(r)
        }
    }

    /// A file call's verdict as an outcome: a refusal the device's rules make (another
    /// account's data, an app group the app is not entitled to) is `blocked`.
    private static func fileObserved(_ v: Verdict, allowed: Observed) -> Observed {
        switch v {
        case .failed(let r, _) where r == .notSignedIn || r == .appGroupEntitlement: .blocked(r)
        default: decided(v, allowed: allowed)
        }
    }

    /// What the app's keychain call returned: the iOS status, or the failure to make the call.
    private static func keychainObserved(_ r: ServiceResult, success: Observed) -> Observed {
        guard case .keychain(let status, _, _) = r.value else { return decided(r.verdict, allowed: success) }
        switch status {
        case .success: return success
        case .missingEntitlement: return .blocked(.keychainEntitlement)
        case .itemNotFound: return .error(Int(status.rawValue))
        }
    }

    /// `expectState`: every difference between what the device holds and what was expected.
    private static func stateDifferences(_ app: String, _ e: StateExpectation, host: HostController, received: ReceivedLog) async -> [String] {
        let ids: (String?, String?, [Account])
        switch await host.identities(app, window: e.window ?? "") {
        case .success(let i): ids = (i.process, i.ui, i.signedIn)
        case .failure(let error): return ["the device cannot say: \(error.message)"]
        }
        var out: [String] = []
        if let expected = e.signedIn {
            let want = Set(expected.map { $0.upnKey.isEmpty ? $0.oidKey : $0.upnKey })
            let have = Set(ids.2.map { $0.upnKey.isEmpty ? $0.oidKey : $0.upnKey })
            if want != have { out.append("signedIn is [\(ids.2.map(\.upn).sorted().joined(separator: ", "))], expected [\(expected.map(\.upn).sorted().joined(separator: ", "))]") }
        }
        func same(_ actual: String?, _ expected: Account) -> Bool {
            guard let actual, !actual.isEmpty else { return expected.isEmpty }
            return expected.matches(actual)
        }
        if let ui = e.uiIdentity, !same(ids.1 ?? ids.0, ui) {
            out.append("uiIdentity is \(describe(ids.1 ?? ids.0)), expected \(ui.isEmpty ? "unmanaged (\"\")" : ui.upn)")
        }
        if let process = e.processIdentity, !same(ids.0, process) {
            out.append("processIdentity is \(describe(ids.0)), expected \(process.isEmpty ? "unmanaged (\"\")" : process.upn)")
        }
        for (path, owner) in (e.files ?? [:]).sorted(by: { $0.key < $1.key }) {
            switch await host.fileStatus(app, path: path) {
            case .success(let s) where !s.exists: out.append("\(path) does not exist, expected it owned by \(owner.isEmpty ? "unmanaged" : owner.upn)")
            case .success(let s) where same(s.owner, owner): break
            case .success(let s): out.append("\(path) is owned by \(describe(s.owner)), expected \(owner.isEmpty ? "unmanaged" : owner.upn)")
            case .failure(let error): out.append("\(path): \(error.message)")
            }
        }
        for path in e.encrypted ?? [] {
            switch await host.fileStatus(app, path: path) {
            case .success(let s) where !s.exists: out.append("\(path) does not exist, expected it encrypted")
            case .success(let s) where !s.encryptedOnDisk: out.append("\(path) is stored in plain text, expected it encrypted")
            case .success: break
            case .failure(let error): out.append("\(path): \(error.message)")
            }
        }
        for path in e.absent ?? [] {
            switch await host.fileStatus(app, path: path) {
            case .success(let s) where s.exists: out.append("\(path) exists (owned by \(describe(s.owner))), expected it absent")
            case .success: break
            case .failure(let error): out.append("\(path): \(error.message)")
            }
        }
        if let expected = e.diagnostics {
            let got = received.diagnostics(of: app)
            for name in expected where !got.contains(name) {
                out.append("diagnostics were [\(got.joined(separator: ", "))]; expected \(name)")
            }
        }
        if let expected = e.telemetry {
            let got = received.telemetry(of: app)
            if expected.isEmpty, !got.isEmpty {
                out.append("telemetry was [\(got.joined(separator: ", "))]; expected none")
            } else if let missing = Self.missingInOrder(expected, got) {
                out.append("telemetry was [\(got.joined(separator: ", "))]; expected [\(expected.joined(separator: ", "))] in that order (\(missing) missing)")
            }
        }
        if let expected = e.notifications {
            // In order, others allowed between: a subsequence of what arrived.
            let got = received.notifications(of: app)
            if let missing = Self.missingInOrder(expected, got) {
                out.append("notifications were [\(got.joined(separator: ", "))]; expected [\(expected.joined(separator: ", "))] in that order (\(missing) missing)")
            }
        }
        if let expected = e.received {
            let got = received.items(of: app)
            if got.count != expected.count {
                out.append("received \(got.count) items (\(got.map(summary).joined(separator: "; "))), expected \(expected.count)")
            }
            for (i, (want, have)) in zip(expected, got).enumerated() {
                let owner = have.owner
                var wrong: [String] = []
                if let t = want.text, !have.hasText(t), t != have.fileName { wrong.append("text \"\(have.textPrefix)\", expected \"\(t)\"") }
                if let t = want.type, !have.typeIdentifiers.contains(where: { $0.lowercased() == t.lowercased() }) {
                    wrong.append("types \(have.typeIdentifiers), expected \(t)")
                }
                if let o = want.owner, !same(owner, o) { wrong.append("owner \(describe(owner)), expected \(o.isEmpty ? "unmanaged" : o.upn)") }
                if let f = want.from, f.lowercased() != have.from.lowercased() { wrong.append("from \(have.from), expected \(f)") }
                if !wrong.isEmpty { out.append("received item \(i + 1): " + wrong.joined(separator: ", ")) }
            }
        }
        return out
    }

    /// The first of `expected` that is not in `got` in that order (others may come between).
    static func missingInOrder(_ expected: [String], _ got: [String]) -> String? {
        var rest = got[...]
        for name in expected {
            guard let i = rest.firstIndex(of: name) else { return name }
            rest = rest[(i + 1)...]
        }
        return nil
    }

    private static func summary(_ r: ReceivedSummary) -> String {
        "\(r.isText ? "\"\(r.textPrefix.prefix(40))\"" : r.fileName) from \(r.from)"
    }

    private static func describe(_ identity: String?) -> String {
        guard let identity, !identity.isEmpty else { return "unmanaged" }
        return identity
    }
}

/// What `expectState.received` checks of an accepted item. The payload is not kept: a run
/// that moves thousands of large items holds a summary of each, not its bytes.
struct ReceivedSummary: Sendable {
    var typeIdentifiers: [String]
    var fileName: String
    var owner: String
    var from: String
    var isText: Bool
    /// The first bytes of the text (for messages), its length and a digest (to compare).
    var textPrefix: String
    var textLength: Int
    var textDigest: Int

    init(_ r: ReceivedItem) {
        typeIdentifiers = r.item.typeIdentifiers
        fileName = r.item.fileName
        owner = r.item.ownership?.upn ?? ""
        from = r.from
        let text = r.item.text
        isText = text != nil
        textPrefix = String((text ?? "").prefix(200))
        textLength = text?.utf8.count ?? 0
        textDigest = Self.digest(text ?? "")
    }

    func hasText(_ expected: String) -> Bool {
        isText && expected.utf8.count == textLength && Self.digest(expected) == textDigest
    }

    /// FNV-1a over the UTF-8 bytes: stable, and enough to tell an expected text from another.
    static func digest(_ text: String) -> Int {
        var h: UInt64 = 0xcbf29ce484222325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return Int(truncatingIfNeeded: h)
    }
}

/// The items each app or extension accepted and the SDK notifications it took, in order, as
/// the host reported them.
final class ReceivedLog: Sendable {
    private let items = Mutex<[AppHandle: [ReceivedSummary]]>([:])
    private let notices = Mutex<[AppHandle: [String]]>([:])

    private let diagnosed = Mutex<[AppHandle: [String]]>([:])
    private let telemetryLog = Mutex<[AppHandle: [String]]>([:])

    func sent(_ event: String, by handle: String) {
        telemetryLog.withLock { $0[AppHandle(handle), default: []].append(event) }
    }

    func telemetry(of handle: String) -> [String] {
        telemetryLog.withLock { $0[AppHandle(handle)] ?? [] }
    }

    func diagnosed(_ name: String, for handle: String) {
        diagnosed.withLock { $0[AppHandle(handle), default: []].append(name) }
    }

    func diagnostics(of handle: String) -> [String] {
        diagnosed.withLock { $0[AppHandle(handle)] ?? [] }
    }

    func notified(_ name: String, to handle: String) {
        notices.withLock { $0[AppHandle(handle), default: []].append(name) }
    }

    func notifications(of handle: String) -> [String] {
        notices.withLock { $0[AppHandle(handle)] ?? [] }
    }

    func append(_ item: ReceivedItem, to handle: String) {
        let summary = ReceivedSummary(item)
        items.withLock { $0[AppHandle(handle), default: []].append(summary) }
    }

    func items(of handle: String) -> [ReceivedSummary] {
        items.withLock { $0[AppHandle(handle)] ?? [] }
    }
}
