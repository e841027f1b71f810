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
        /// `--strict`: Strict Mode's unsuppressed findings fail the run (docs/STRICT.md).
        public var strict = false
        /// Stop at the first step whose expectation fails (`mamsim mutate`: a killed mutant is
        /// decided there; the steps after it would only cost).
        public var stopAtFirstFailure = false
        /// How long a step waits, after its own work, for the check-ins, enrollments and
        /// restarts it started to end; past it the step fails (`timeout`), naming the apps that
        /// kept starting (an app wiped at each launch that enrolls again and restarts).
        public var settleLimit: Duration = .seconds(60)
        /// Look, after the fleet's start and after each step, for files a program of its own
        /// wrote under its `Documents/` without the services (`DocumentsWatch`): saves of the
        /// app's data the host did not see, for `mamsim mutate`'s record of the app's own part.
        public var watchesDocuments = false

        public init(appRuntime: String, deviceDirectory: URL? = nil) {
            self.appRuntime = appRuntime
            self.deviceDirectory = deviceDirectory
        }
    }

    /// The extension's activation rule as the share sheet asks it, saying what was shared and,
    /// when the rule takes the types only as personal data, the fix in the project's Info.plist.
    static func activationCheck(for ext: ScenarioExtension) -> @Sendable ([String], Bool) -> (activated: Bool, reason: String) {
        let manifest = ext.manifest
        let keyboard = ext.descriptor.kind == .keyboard
        // The project's own Info.plist where init copied it from one: the copy is refreshed
        // by init, the project's file is the one to fix.
        let builtFrom = ext.builtFrom
        let infoPlist = (builtFrom ?? ext.plugin.appendingPathComponent("Info.plist")).path
        let refresh = builtFrom == nil ? "" : ", then run `mamsim init` again to refresh the scenario's copy"
        let accepts: @Sendable ([String], Bool) -> (activated: Bool, reason: String) = { types, managed in
            // A keyboard is no share target: the share sheet never lists it.
            if keyboard { return (false, "a keyboard extension receives no shared items") }
            let result = manifest.activation(for: ShareInput(types), dataIsManaged: managed)
            guard !result.isActivated else { return (true, result.reason) }
            // Say what was shared, and the fix when the rule takes the types only as
            // personal data (it lacks their Intune twins).
            var reason = result.reason + "; the item is \(types.joined(separator: ", "))"
            if managed, manifest.activation(for: ShareInput(types), dataIsManaged: false).isActivated {
                reason += "; the rule accepts it only as personal data: `mamsim configure \(infoPlist)` adds the com.microsoft.intune.mam. twin of every type it accepts\(refresh)"
            }
            return (false, reason)
        }
        return accepts
    }

    /// The host configuration for a scenario's fleet.
    public static func configuration(for scenario: Scenario, options: Options, deviceDirectory: URL) -> HostConfiguration {
        var specs = scenario.apps.map { app in
            var spec = AppSpec(handle: app.id, descriptor: app.descriptor, executable: app.executable?.path, arguments: app.arguments)
            spec.sandbox = AppSandbox(read: app.sandbox.read, environment: app.sandbox.environment, programAlone: app.sandbox.programAlone)
            spec.userAccounts = app.msalAccounts
            spec.userAccountsListed = app.msalAccountsListed
            spec.delegate = app.delegate
            return spec
        }
        for ext in scenario.extensions {
            let accepts = activationCheck(for: ext)
            var spec = AppSpec(handle: ext.id, descriptor: ext.descriptor, executable: ext.executable?.path, arguments: ext.arguments, startsWithFleet: false)
            spec.activation = accepts
            spec.sandbox = AppSandbox(read: ext.sandbox.read, environment: ext.sandbox.environment, programAlone: ext.sandbox.programAlone)
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
        config.fleet.device.assetServerAvailable = scenario.device.assetServerAvailable
        config.deviceLimits = scenario.device.limits
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
        let strict = StrictLog()
        let said = Mutex<[String]>([])
        let participation = ParticipationLog()
        let onEvent = options.onEvent
        do {
            host = try HostController(configuration: config) { event in
                if case .received(let handle, let item) = event { received.append(item, to: handle) }
                if case .notified(let handle, let name, _) = event { received.notified(name, to: handle) }
                if case .diagnostic(let handle, let name, _) = event { received.diagnosed(name, for: handle) }
                if case .telemetry(let handle, let name) = event { received.sent(name, by: handle) }
                if case .strict(let handle, let finding) = event { strict.append(finding, by: handle) }
                participation.record(event)
                if case .spawned(let handle, _) = event { received.started(handle) }
                if case .said(let handle, let what) = event { said.withLock { if $0.count < 100 { $0.append("\(handle): \(what)") } } }
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
        var documents = options.watchesDocuments ? DocumentsWatch(scenario, deviceDirectory: directory) : nil
        await documents?.record(into: participation, host: host)
        if !failures.isEmpty, failures.count == scenario.apps.count {
            report.fleetError = report.appsNotStarted.joined(separator: "; ")
        } else {
            for step in scenario.steps {
                let t0 = ContinuousClock.now
                let stepName = step.name ?? ""
                context.setStep(scenario: scenario.name, step: stepName.isEmpty ? "step \(step.index + 1)" : stepName)
                participation.step = step.index
                let (observed, explanation, parties) = await execute(step, scenario: scenario, host: host, received: received, settleLimit: options.settleLimit)
                let result = StepResult(
                    index: step.index, line: step.line, name: stepName, verb: step.verb.rawValue, parties: parties,
                    observed: observed, explanation: explanation,
                    // A check by nature (expectState) still expects ok without `expect`.
                    expected: step.expect ?? step.verb.implicitExpectation,
                    seconds: (ContinuousClock.now - t0).inSeconds)
                report.steps.append(result)
                await documents?.record(into: participation, host: host)
                options.onStep?(result)
                if options.stopAtFirstFailure && !result.passed { break }
            }
        }
        let auditFile = directory.appendingPathComponent("audit.jsonl")
        switch await host.result({ [auditFile] in try $0.audit.export(to: auditFile) }) {
        case .success: report.auditLog = auditFile
        case .failure(let error): report.auditError = "the audit log could not be written to \(auditFile.path): \(error)"
        }
        _ = await host.shutdown()
        report.strict = options.strict || scenario.strict.enabled
        let programs = Dictionary(scenario.apps.map { ($0.id, $0.executable) } + scenario.extensions.map { ($0.id, $0.executable) },
                                  uniquingKeysWith: { a, _ in a })
        report.notes = said.withLock { $0 }
        report.participation = participation.all
        report.strictFindings = strict.findings.map { handle, finding in
            StrictReportFinding(app: handle, finding: finding, suppressedBecause: scenario.strict.suppression(of: finding)?.reason,
                                source: StrictSources.path(of: finding.file, program: programs[handle] ?? nil))
        }
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

    private static func execute(_ step: Step, scenario: Scenario, host: HostController, received: ReceivedLog, settleLimit: Duration) async -> StepOutcome {
        // A verb that acts in an extension starts it first, as iOS does when the extension
        // is used (SCENARIOS.md v1.1).
        if let handle = step.arguments.value.actingApp, scenario.extensions.contains(where: { $0.id == handle }),
           await host.run(orElse: nil, { [handle] in $0.pid(of: handle) }) == nil, case .failure(let e) = await host.launch(handle) {
            return (.failed(.appNotRunning), "\(handle) could not be started: \(e)", handle)
        }
        let before = received.starts
        let outcome = await step.arguments.value.run(StepRun(host: host, scenario: scenario, received: received, step: step))
        // The check-ins a launch or resume started (their statuses told to the apps' delegates,
        // the wipes they brought) are part of the step: the next step starts after them.
        let limit = UInt64(max(1, settleLimit.components.seconds * 1000 + settleLimit.components.attoseconds / 1_000_000_000_000_000))
        let settled: Bool? = await host.complete { host, done in host.enrollment.whenSettled(within: limit) { done($0) } }
        guard settled == false else { return outcome }
        let starts = received.starts.compactMap { handle, n in n > before[handle, default: 0] ? "\(handle) started \(n - before[handle, default: 0]) times" : nil }.sorted()
        return (.failed(.timeout), "the step did not settle within \(limit / 1000) s: the check-ins, enrollments and restarts it started were still under way"
            + (starts.isEmpty ? "" : " (\(starts.joined(separator: ", ")); an app wiped or asked to restart at each launch keeps starting)"), outcome.parties)
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
/// Strict Mode's findings as the apps reported them (`HostEvent.strict`), each (app, check,
/// file, line) once — and, for a finding the host made (no line), each call once.
final class StrictLog: Sendable {
    private let state = Mutex<[(String, StrictFindingEvent)]>([])

    func append(_ finding: StrictFindingEvent, by handle: String) {
        state.withLock { list in
            // A finding the host made has no line: its call (the file, the share's target)
            // tells one from another.
            guard !list.contains(where: { $0.0 == handle && $0.1.check == finding.check && $0.1.file == finding.file && $0.1.line == finding.line
                                          && (!finding.file.isEmpty || $0.1.call == finding.call) }) else { return }
            list.append((handle, finding))
        }
    }

    var findings: [(String, StrictFindingEvent)] { state.withLock { $0 } }
}

/// What the apps' code did with their policies (`Participation`), each with the step running
/// when the host heard it; at most `limit` (each getter is told once per account and process).
final class ParticipationLog: Sendable {
    static let limit = 10_000
    private let state = Mutex<(step: Int?, list: [Participation])>((nil, []))

    var step: Int? {
        get { state.withLock { $0.step } }
        set { state.withLock { $0.step = newValue } }
    }

    /// `byItself`: a save the app made with its own file calls, which the host did not see
    /// (`DocumentsWatch`).
    func record(_ event: HostEvent, byItself: Bool = false) {
        state.withLock { s in
            guard s.list.count < Self.limit else { return }
            switch event {
            case .policyGettersRead(let handle, let getters, let account):
                s.list += getters.map { Participation(app: handle, account: account, kind: .read($0), step: s.step) }
            case .savedData(let handle, let path, let owner):
                s.list.append(Participation(app: handle, account: owner, kind: .saved(path: path, byItself: byItself), step: s.step))
            case .appConfigKeysRead(let handle, let keys, let account):
                s.list += keys.map { Participation(app: handle, account: account, kind: .readConfig(key: $0), step: s.step) }
            default: break
            }
        }
    }

    var all: [Participation] { state.withLock { $0.list } }
}

final class ReceivedLog: Sendable {
    private let items = Mutex<[AppHandle: [ReceivedSummary]]>([:])
    private let started = Mutex<[String: Int]>([:])

    /// An app or extension's process started (its first launch, or again after a restart).
    func started(_ handle: String) { started.withLock { $0[handle, default: 0] += 1 } }
    /// How many times each app's process has started so far.
    var starts: [String: Int] { started.withLock { $0 } }
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
