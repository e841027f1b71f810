public import Foundation
import MAMDevice
import MAMDeviceState
import MAMExtensions
import MAMModel
import MAMPolicy
import MAMWire

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
            AppSpec(handle: app.id, descriptor: app.descriptor, executable: app.executable?.path, arguments: app.arguments)
        }
        for ext in scenario.extensions {
            let manifest = ext.manifest
            let accepts: @Sendable ([String], Bool) -> (activated: Bool, reason: String) = { types, managed in
                let result = manifest.activation(for: ShareInput(types), dataIsManaged: managed)
                return (result.isActivated, result.reason)
            }
            var spec = AppSpec(handle: ext.id, descriptor: ext.descriptor, executable: ext.executable?.path, arguments: ext.arguments, startsWithFleet: false)
            spec.activation = accepts
            specs.append(spec)
        }
        var config = HostConfiguration(apps: specs, fleet: scenario.fleet, deviceDirectory: deviceDirectory, appRuntime: options.appRuntime)
        config.extraPolicies = Array(scenario.policies.values)
        config.clockStart = scenario.device.clock
        config.quietChildren = options.quietChildren
        return config
    }

    public static func run(_ scenario: Scenario, options: Options) async -> ScenarioReport {
        let started = ContinuousClock.now
        let directory = options.deviceDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-device-\(UUID().uuidString)")
        var report = ScenarioReport(name: scenario.name, file: scenario.file, deviceDirectory: directory)
        let host: HostController
        do {
            host = try HostController(configuration: configuration(for: scenario, options: options, deviceDirectory: directory), onEvent: options.onEvent)
        } catch {
            report.fleetError = "\(error)"
            return report
        }
        let failures = await host.startFleet()
        if !failures.isEmpty {
            report.fleetError = failures.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
        } else {
            for step in scenario.steps {
                let t0 = ContinuousClock.now
                let stepName = step.name ?? ""
                await host.withHost({ host, done in
                    host.auditContext = (scenario.name, stepName.isEmpty ? "step \(step.index + 1)" : stepName)
                    done(())
                }, orElse: ())
                let (observed, explanation, parties) = await execute(step, scenario: scenario, host: host)
                let result = StepResult(
                    index: step.index, line: step.line, name: stepName, verb: step.verb.rawValue, parties: parties,
                    observed: observed, explanation: explanation,
                    // expectState is a check by nature: without `expect` it still expects ok.
                    expected: step.expect ?? (step.verb == .expectState ? .ok : nil),
                    seconds: seconds(ContinuousClock.now - t0))
                report.steps.append(result)
                options.onStep?(result)
            }
        }
        report.auditLog = await host.withHost({ host, done in
            let file = host.state.directory.appendingPathComponent("audit.jsonl")
            done((try? host.state.exportAuditJSONLines(to: file)).map { _ in file })
        }, orElse: nil)
        _ = await host.shutdown()
        report.seconds = seconds(ContinuousClock.now - started)
        return report
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    // MARK: - Steps

    private static func execute(_ step: Step, scenario: Scenario, host: HostController) async -> (Observed, String, String) {
        switch step.args {
        case .launch(let app):
            switch await host.launch(app) {
            case .success(let pid): return (.ok, "\(app) running (pid \(pid))", app)
            case .failure(let e): return (.failed(.appNotRunning), "\(e)", app)
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
            await host.withHost({ h, done in h.answerNextPinPrompt(app, with: pin); done(()) }, orElse: ())
            var args = ["account": account.isEmpty ? "" : account.upn]
            if let window { args["window"] = window } else { args["window"] = "" }
            let r = await host.command(app, Command(verb: "setIdentity", args: args))
            let who = account.isEmpty ? "unmanaged" : account.upn
            let observed: Observed = switch r.outcome {
            case "success": .success
            case "canceled": .canceled
            case "notAllowed": .notAllowed
            default: .failed(Reason(rawValue: r.reason))
            }
            return (observed, r.explanation, "\(app) → \(who)")
        case .share(let from, let to, let item, let receiveAs):
            let identity = await host.withHost({ h, done in done(h.effectiveAccount(from)?.upn ?? "") }, orElse: "")
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
                let wrote = await service(host, from, "writeFile", ["path": path, "owner": identity], data: bytes)
                guard wrote.ok else {
                    return (.failed(Reason(rawValue: wrote.reason) ?? .badRequest), "cannot save \(path) in \(from): \(wrote.explanation)", "\(from) → \(to)")
                }
                wireItem.payload = .file(path: path)
            }
            let outcome = await host.share(from: from, to: to, item: wireItem, identity: identity, receiveAs: receiveAs.map(key) ?? "")
            let who = identity.isEmpty ? "unmanaged" : identity
            return (Observed(outcome), outcome == .delivered ? "delivered and acknowledged" : outcome.explanation, "\(from) (\(who)) → \(to)")
        case .shareTargets(let from, let item):
            let r = await service(host, from, "shareTargets", ["types": item.type])
            if let failure = commandFailure(r) { return (failure, r.explanation, from) }
            let targets = (r.values["targets"] ?? "").split(separator: ",").map(String.init)
            return (.targets(targets), "the share sheet lists \(targets.isEmpty ? "nothing" : targets.joined(separator: ", "))", from)
        case .copy(let app, let text):
            let r = await service(host, app, "copy", data: Array(text.utf8))
            return (decided(r, allowed: .ok), r.explanation, app)
        case .paste(let app, let receiver):
            let r = await service(host, app, "paste", receiver.map { ["as": $0.isEmpty ? "" : $0.upn] } ?? [:])
            return (r.ok ? .pasted(r.values["text"] ?? "") : decided(r, allowed: .ok), r.explanation, app)
        case .save(let app, let location, let account):
            var args = ["location": location.rawValue]
            if let account, !account.isEmpty { args["account"] = account.upn }
            let r = await service(host, app, "canSave", args)
            return (decided(r, allowed: .allowed), r.explanation, "\(app) → \(location)\(account.map { " (\($0))" } ?? "")")
        case .open(let app, let location, let account, let receiver):
            var args = ["location": location.rawValue]
            if let account, !account.isEmpty { args["account"] = account.upn }
            if let receiver { args["as"] = receiver.isEmpty ? "" : receiver.upn }
            let r = await service(host, app, "canOpen", args)
            return (decided(r, allowed: .allowed), r.explanation, "\(location)\(account.map { " (\($0))" } ?? "") → \(app)")
        case .keychainSet(let app, let group, let k, let value):
            let r = await service(host, app, "keychainSet", ["group": group, "key": k], data: Array(value.utf8))
            return (keychainObserved(r, success: .ok), r.explanation, "\(app) → \(group)/\(k)")
        case .keychainGet(let app, let group, let k, _):
            let r = await service(host, app, "keychainGet", ["group": group, "key": k])
            return (keychainObserved(r, success: .value(String(decoding: r.data, as: UTF8.self))), r.explanation, "\(app) ← \(group)/\(k)")
        case .print(let app):
            let r = await service(host, app, "print")
            return (decided(r, allowed: .allowed), r.explanation, app)
        case .notify(let app, let account, let text):
            let r = await service(host, app, "notify", ["account": account.isEmpty ? "" : account.upn], data: Array(text.utf8))
            return (r.ok ? .shown(r.values["shown"] ?? "") : decided(r, allowed: .ok), r.explanation, "\(app) (\(account))")
        case .wipe(let app, let account):
            let r = await host.withHost({ h, done in h.wipe(app, account: key(account)) { done($0.mapError { Problem("\($0)") }) } }, orElse: .failure(Problem("the device is shut down")))
            switch r {
            case .success(let report): return (.ok, report.description, "\(account) in \(app)")
            case .failure(let e): return (.failed(nil), e.description, "\(account) in \(app)")
            }
        case .setPolicy(let account, let name):
            let policy = name.flatMap { scenario.policies[$0] }
            let r = await host.withHost({ h, done in done(Result { try h.setPolicy(policy, for: account) }.mapError { Problem("\($0)") }) }, orElse: .failure(Problem("the device is shut down")))
            switch r {
            case .success: return (.ok, name.map { "\(account) is now targeted by \"\($0)\"" } ?? "\(account) is no longer targeted", "\(account)")
            case .failure(let e): return (.failed(nil), e.description, "\(account)")
            }
        case .advanceClock(let by):
            let r = await host.withHost({ h, done in done(Result { try h.advanceClock(by: by); return h.state.now.description }.mapError { Problem("\($0)") }) }, orElse: .failure(Problem("the device is shut down")))
            switch r {
            case .success(let now): return (.ok, "the device clock reads \(now)", "\(by)")
            case .failure(let e): return (.failed(nil), e.description, "\(by)")
            }
        case .expectState(let app, let expectation):
            let differences = await stateDifferences(app, expectation, host: host)
            return (differences.isEmpty ? .ok : .failed(nil), differences.isEmpty ? "state as expected" : differences.joined(separator: "; "), app)
        }
    }

    private static func key(_ account: Account) -> String { account.upn.isEmpty ? account.oid : account.upn }

    private static func makeItem(_ item: ScenarioItem, id: String) throws -> Item {
        var fileName = ""
        if case .file(let url) = item.content { fileName = url.lastPathComponent }
        return Item(id: id, typeIdentifiers: [item.type], payload: .inline(try item.bytes()), fileName: fileName)
    }

    /// An OS or SDK call performed by the app's own process (`ServiceRequest` to the host).
    private static func service(_ host: HostController, _ app: String, _ op: String, _ args: [String: String] = [:], data: [UInt8] = []) async -> CommandResult {
        var a = args
        a["op"] = op
        let item = data.isEmpty ? nil : Item(id: "data", typeIdentifiers: ["public.data"], payload: .inline(data))
        return await host.command(app, Command(verb: "service", args: a, item: item))
    }

    /// The command itself failed (app not running, no answer): not a policy decision.
    private static func commandFailure(_ r: CommandResult) -> Observed? {
        guard !r.ok, r.outcome != "refused" else { return nil }
        return .failed(Reason(rawValue: r.reason))
    }

    /// A service's answer as an outcome: `allowed` when granted, `blocked(reason)` when the
    /// host refused it for a policy reason.
    private static func decided(_ r: CommandResult, allowed: Observed) -> Observed {
        if let failure = commandFailure(r) { return failure }
        if r.ok { return allowed }
        return Reason(rawValue: r.reason).map { .blocked($0) } ?? .failed(nil)
    }

    private static func keychainObserved(_ r: CommandResult, success: Observed) -> Observed {
        if let failure = commandFailure(r) { return failure }
        switch Int32(r.values["status"] ?? "") {
        case 0: return success
        case -34018: return .blocked(.keychainEntitlement)
        case let status?: return .error(Int(status))
        case nil: return .failed(Reason(rawValue: r.reason))
        }
    }

    /// `expectState`: every difference between what the device holds and what was expected.
    private static func stateDifferences(_ app: String, _ e: StateExpectation, host: HostController) async -> [String] {
        let ids = await host.withHost({ h, done in
            let i = h.identities(app)
            done((i.process, i.ui, i.signedIn))
        }, orElse: (String?.none, String?.none, [Account]()))
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
            let actual = await host.withHost({ h, done in done(Result { try h.fileOwner(app, path: path) }.mapError { Problem("\($0)") }) }, orElse: .failure(Problem("the device is shut down")))
            switch actual {
            case .success(let o) where same(o, owner): break
            case .success(let o): out.append("\(path) is owned by \(describe(o)), expected \(owner.isEmpty ? "unmanaged" : owner.upn)")
            case .failure(let err): out.append("\(path): \(err)")
            }
        }
        if let expected = e.received {
            let got = await host.withHost({ h, done in done(h.received(app)) }, orElse: [ReceivedItem]())
            if got.count != expected.count {
                out.append("received \(got.count) items (\(got.map(summary).joined(separator: "; "))), expected \(expected.count)")
            }
            for (i, (want, have)) in zip(expected, got).enumerated() {
                let text = have.item.text ?? ""
                let owner = have.item.ownership?.upn ?? ""
                var wrong: [String] = []
                if let t = want.text, t != text, t != have.item.fileName { wrong.append("text \"\(text)\", expected \"\(t)\"") }
                if let t = want.type, !have.item.typeIdentifiers.contains(where: { $0.lowercased() == t.lowercased() }) {
                    wrong.append("types \(have.item.typeIdentifiers), expected \(t)")
                }
                if let o = want.owner, !same(owner, o) { wrong.append("owner \(describe(owner)), expected \(o.isEmpty ? "unmanaged" : o.upn)") }
                if let f = want.from, f.lowercased() != have.from.lowercased() { wrong.append("from \(have.from), expected \(f)") }
                if !wrong.isEmpty { out.append("received item \(i + 1): " + wrong.joined(separator: ", ")) }
            }
        }
        return out
    }

    private static func summary(_ r: ReceivedItem) -> String {
        "\(r.item.text.map { "\"\($0.prefix(40))\"" } ?? r.item.fileName) from \(r.from)"
    }

    private static func describe(_ identity: String?) -> String {
        guard let identity, !identity.isEmpty else { return "unmanaged" }
        return identity
    }
}

/// A failed host call, as a sentence.
struct Problem: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
