import ArgumentParser
import Foundation
import MAMActivation
import MAMBundle
import MAMDevice
import MAMScenario
import Synchronization

/// Options shared by `run` and `test`.
struct ScenarioOptions: ParsableArguments {
    @Option(name: .customLong("set"), help: ArgumentHelp("Build setting for Info.plists and entitlements, NAME=VALUE.", valueName: "NAME=VALUE"))
    var settings: [String] = []

    @Flag(help: "Strict Mode: the integration mistakes the façade sees your own Intune code make fail the run (docs/STRICT.md); without it they are notes.")
    var strict = false

    @Option(help: "The app runtime to spawn for apps without an executable (default: mamsim-app beside mamsim).")
    var appRuntime: String?

    @Option(name: .customLong("allow-read"), help: ArgumentHelp(
        "Let apps read this path although their sandbox declaration may not ask for it alone (/etc, the home folder's dot-folders, outside the scenario's project; repeatable).",
        valueName: "PATH"), completion: .file())
    var allowRead: [String] = []

    @Option(name: .customLong("allow-env"), help: ArgumentHelp(
        "Let apps that declare it receive this environment variable although its name marks a secret (TOKEN, KEY, AWS_…; repeatable).",
        valueName: "NAME"))
    var allowEnv: [String] = []

    /// What the user lets declarations have beyond what they may ask for alone.
    func allowances() throws -> SandboxAllowances {
        for path in allowRead where !FileManager.default.fileExists(atPath: path) {
            throw ValidationError("--allow-read \(path): no such file or folder")
        }
        return SandboxAllowances(read: allowRead.map { URL(fileURLWithPath: $0).path }, environment: Set(allowEnv))
    }

    func buildSettings() throws -> [String: String] {
        var out: [String: String] = [:]
        for s in settings {
            guard let eq = s.firstIndex(of: "="), eq != s.startIndex else {
                throw ValidationError("--set \(s): expected NAME=VALUE, e.g. --set PRODUCT_BUNDLE_IDENTIFIER=com.contoso.mail")
            }
            out[String(s[..<eq])] = String(s[s.index(after: eq)...])
        }
        return out
    }

    func runtime() throws -> String {
        let path = appRuntime ?? siblingExecutable("mamsim-app")
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ValidationError("the app runtime is missing at \(path); build it with `swift build --product mamsim-app` or pass --app-runtime")
        }
        return path
    }
}

/// `mamsim run FILE`: brings the fleet up, runs the steps, prints one line per step and a
/// summary. Exit 0 = every expectation held, 1 = one failed, 2 = bad file or fleet.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run one scenario file and show every decision.")

    @Argument(help: "The scenario file (YAML or JSON).", completion: .file(extensions: ["yaml", "yml", "json"]))
    var file: String

    @OptionGroup var options: ScenarioOptions

    @Option(help: "Keep the device state in this directory (reused across runs: a restart loses nothing).")
    var deviceDir: String?

    @Option(help: "Copy the audit log (JSON lines) to this file.")
    var audit: String?

    @Flag(help: "Show every host event (spawns, exits, shares) as it happens.")
    var verbose = false

    @Option(help: "Also write a self-contained HTML report (transfer matrix, grids, step timeline) to this file.")
    var html: String?

    @Flag(help: "Keep the temporary device directory (state, containers, audit log) when no --device-dir is given.")
    var keepDevice = false

    func run() async throws {
        var isFolder: ObjCBool = false
        if !FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) {
            Terminal.error("\(file) does not exist; name a scenario file (`mamsim test FOLDER` runs every scenario of a folder)")
            throw ExitCode(2)
        }
        if isFolder.boolValue {
            Terminal.error("\(file) is a folder; `mamsim run` runs one scenario file — `mamsim test \(file)` runs every scenario in it")
            throw ExitCode(2)
        }
        let scenario: Scenario
        do {
            scenario = try ScenarioLoader.load(file: URL(fileURLWithPath: file), buildSettings: try options.buildSettings(),
                                               allowances: try options.allowances())
        } catch let error as ValidationError {
            throw error
        } catch {
            Terminal.error(error)
            throw ExitCode(2)
        }
        for w in scenario.warnings { Terminal.warning("\(w)") }
        // A run of no steps checks nothing and would pass: the mistake said, as `mamsim test` says it.
        guard !scenario.steps.isEmpty else {
            Terminal.error("\(file): the scenario has no steps, so a run would check nothing and pass; add steps: with at least one step (docs/SCENARIOS.md)")
            throw ExitCode(2)
        }
        let out = Terminal()

        var runOptions = ScenarioRunner.Options(appRuntime: try options.runtime(), deviceDirectory: deviceDir.map { URL(fileURLWithPath: $0) })
        runOptions.quietChildren = !verbose
        runOptions.strict = options.strict
        let total = scenario.apps.count
        let progress = FleetProgress(total: total, terminal: out, verbose: verbose)
        runOptions.onEvent = { progress.event($0) }
        runOptions.onStep = { out.step($0) }
        out.line(out.bold("▶ \(scenario.name)") + out.dim("  (\(file): \(total) apps, \(scenario.extensions.count) extensions, \(scenario.steps.count) steps)"))
        // Every path a child reads beyond the system and its own program, and every variable
        // it receives, as the user must be able to see them.
        for line in SharedChildGrants.lines(appRuntime: runOptions.appRuntime) + scenario.sandboxGrants {
            out.line(out.dim("  grant: \(ProjectRoot.printable(line))"))
        }
        let report = await ScenarioRunner.run(scenario, options: runOptions)
        progress.finish()
        if let e = report.fleetError {
            Terminal.error("the fleet could not start: \(e)")
            // A failed start leaves nothing behind either, unless kept (its logs/ hold every
            // program's stderr).
            if deviceDir == nil, !keepDevice {
                try? FileManager.default.removeItem(at: report.deviceDirectory)
            } else {
                Terminal.emit("the device is kept at \(report.deviceDirectory.path) (children's stderr in logs/)\n", to: 2)
            }
            throw ExitCode(2)
        }
        var auditShown: String?
        var htmlWritten: String?
        if let audit, let log = report.auditLog {
            do {
                // Copied a chunk at a time into a new file renamed into place: a folder or a link
                // named `--audit` is refused, never removed or written through.
                let copy = try OutputFile(URL(fileURLWithPath: audit))
                let source = try FileHandle(forReadingFrom: log)
                defer { try? source.close() }
                while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty { try copy.write(chunk) }
                try copy.commit()
                auditShown = audit
            } catch {
                Terminal.error("cannot copy the audit log to \(audit): \((error as? OutputFile.Refused)?.why ?? error.localizedDescription); check that its folder exists and is writable (the log stays at \(log.path))")
                throw ExitCode(2)
            }
        }
        if let html {
            let entry = SuiteEntry(file: report.file, report: report, loadError: nil)
            let result = SuiteDocument.scenario(entry)
            let page = ReportHTML.ScenarioPage(name: report.name, file: file, status: result.status,
                                               digest: ReportHTML.digest(ofAuditLog: report.auditLog), result: result)
            try ReportFile.write(ReportHTML.page(title: report.name, summary: "\(result.status): \(report.outcome)", scenarios: [page]), to: html)
            htmlWritten = html
        }
        // A temporary device goes with the run unless kept; a --device-dir is the user's.
        if deviceDir == nil, !keepDevice {
            try? FileManager.default.removeItem(at: report.deviceDirectory)
        } else if let log = report.auditLog {
            auditShown = log.path
        }
        out.summary(report, auditLog: auditShown)
        if let htmlWritten { out.line(out.dim("  HTML report: \(htmlWritten)")) }
        if !report.passed { throw ExitCode(1) }
    }
}

/// Fleet start-up progress: a self-updating line on a terminal, plain lines otherwise.
final class FleetProgress: Sendable {
    /// Apps ready so far, and whether the line is done: events arrive on the host's loop
    /// thread, `finish()` comes from the run's.
    private let progress = Mutex<(ready: Int, done: Bool)>((0, false))
    let total: Int
    let terminal: Terminal
    let verbose: Bool

    init(total: Int, terminal: Terminal, verbose: Bool) {
        self.total = total
        self.terminal = terminal
        self.verbose = verbose
    }

    /// The confinement in one short line; `--verbose` prints every protection and limit.
    static func shortConfinement(_ what: String) -> String {
        guard what.hasPrefix("children are confined with Landlock") else { return what }
        let head = what.prefix { $0 != ":" }
        guard what.contains("; not in force: ") else { return "\(head), seccomp, namespaces and limits (--verbose lists them)" }
        return "\(head), seccomp, namespaces and limits; not all are in force on this machine (--verbose says which)"
    }

    func event(_ e: HostEvent) {
        // Events carry what children said (ids, reasons, messages): never raw to a terminal.
        if verbose { terminal.line(terminal.dim("  · \(ProjectRoot.printable("\(e)"))")) }
        if case .confinement(let what) = e, !verbose { terminal.line(terminal.dim("  \(Self.shortConfinement(what))")) }
        if case .said(let handle, let what) = e, !verbose {
            terminal.line(terminal.yellow("  note: \(Terminal.escapingControls("\(handle): \(what)", keepingLineBreaks: false))"))
        }
        guard case .ready = e else { return }
        progress.withLock { p in
            guard !p.done else { return }
            p.ready += 1
            if terminal.isTTY && !verbose {
                terminal.overwrite("  starting fleet: \(p.ready)/\(total) apps ready")
            }
            if p.ready == total {
                p.done = true
                if terminal.isTTY && !verbose { terminal.overwrite("") }
                terminal.line(terminal.dim("  fleet ready: \(total) apps"))
            }
        }
    }

    func finish() { progress.withLock { $0.done = true } }
}
