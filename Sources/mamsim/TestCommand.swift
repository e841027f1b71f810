import ArgumentParser
import Foundation
import MAMActivation
import MAMScenario
import MAMModel
import MAMExtensions
import MAMBundle
import MAMDocument

/// `mamsim test PATH...`: every scenario under the paths, each on a fresh device, in parallel.
struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run scenario files as a test suite.",
        discussion: "JUnit output has one <testsuite> per scenario file and one <testcase> per step (with its file and line); a scenario whose file is bad or whose fleet cannot start is one <testcase> with an <error>, named after the file. JSON and JUnit follow schemas/. In folders only scenario files run (a top-level steps: or apps:); skipped files are named on standard error.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case human, json, junit, sarif }

    @Argument(help: "Scenario files or folders (every *.yaml, *.yml, *.json under them).", completion: .file(extensions: ["yaml", "yml", "json"]))
    var paths: [String]

    @Option(help: "Output format: human, json, junit, or sarif (Strict Mode's findings, rule = check; docs/STRICT.md).")
    var format: Format = .human

    @Option(help: "Write the report to this file instead of standard output.")
    var output: String?

    @Option(help: "Run only scenarios whose name or path contains this text.")
    var filter: String?

    @Option(help: "Scenarios run in parallel (default: the number of CPUs).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Keep each scenario's temporary device directory (state, containers, audit log).")
    var keepDevices = false

    @Option(help: "Also write a self-contained HTML report (transfer matrices, grids, step timelines) to this file.")
    var html: String?

    @Option(help: ArgumentHelp("Run only shard K of N (1-based): a stable partition by scenario path; every scenario is in exactly one shard.", valueName: "K/N"))
    var shard: String?

    @Option(help: ArgumentHelp("Run shard JOB_COMPLETION_INDEX + 1 of N (a Kubernetes Indexed Job sets JOB_COMPLETION_INDEX).", valueName: "N"))
    var shards: Int?

    /// Checked before running, so a bad --shard prints this command's usage, not mamsim's.
    func validate() throws {
        _ = try shardChoice()
    }

    /// The 0-based shard and the count, from --shard or --shards with JOB_COMPLETION_INDEX.
    func shardChoice(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> (index: Int, count: Int)? {
        try Self.shardChoice(shard: shard, shards: shards, environment: environment)
    }

    /// `--shard K/N` or `--shards N` (with JOB_COMPLETION_INDEX) as a 0-based shard and a count.
    static func shardChoice(shard: String?, shards: Int?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> (index: Int, count: Int)? {
        if shard != nil, shards != nil { throw ValidationError("give --shard K/N or --shards N, not both") }
        if let shard {
            let parts = shard.split(separator: "/")
            guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(k) else {
                throw ValidationError("--shard \(shard): expected K/N with 1 ≤ K ≤ N, e.g. --shard 2/4")
            }
            return (k - 1, n)
        }
        guard let shards else { return nil }
        guard shards >= 1 else { throw ValidationError("--shards \(shards): expected a count of 1 or more") }
        guard let text = environment["JOB_COMPLETION_INDEX"], let index = Int(text), (0..<shards).contains(index) else {
            throw ValidationError("--shards \(shards) reads the shard from JOB_COMPLETION_INDEX (0 to \(shards - 1)), which is \(environment["JOB_COMPLETION_INDEX"].map { "\"\($0)\"" } ?? "not set"); use --shard K/N outside an Indexed Job")
        }
        return (index, shards)
    }

    /// Which shard a scenario belongs to: FNV-1a of its path as the suite names it, so every
    /// machine running the same checkout agrees without talking to the others.
    static func shardIndex(of key: String, count: Int) -> Int {
        Int(fnv1a(key.utf8) % UInt64(count))
    }

    /// The suite's identity for its shards' reports: FNV-1a of its sorted scenario paths.
    static func suiteIdentity(_ keys: [String]) -> String {
        String(fnv1a(keys.sorted().joined(separator: "\n").utf8), radix: 16)
    }

    static func fnv1a(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    @OptionGroup var options: ScenarioOptions

    func run() async throws {
        let shardChoice = try shardChoice()
        var candidates = try collect()
        var shardInfo: SuiteDocument.Shard?
        if let (index, count) = shardChoice {
            let all = candidates.count
            shardInfo = SuiteDocument.Shard(index: index + 1, count: count, suite: Self.suiteIdentity(candidates.map(\.key)), scenarios: all)
            candidates = candidates.filter { Self.shardIndex(of: $0.key, count: count) == index }
            Terminal.emit("shard \(index + 1)/\(count): \(candidates.count) of \(all) scenarios\n", to: 2)
            // With more shards than scenarios some shards hold none: that shard passes.
            if candidates.isEmpty, all > 0 {
                var empty = SuiteDocument(scenarios: [])
                empty.shard = shardInfo
                switch format {
                case .human: break
                case .json: try ReportFile.write(empty.json(), to: output)
                case .junit: try ReportFile.write(empty.junit(), to: output)
                case .sarif: try ReportFile.write(empty.sarif(), to: output)
                }
                return
            }
        }
        let files = candidates.map(\.url)
        guard !files.isEmpty else {
            if let filter {
                Terminal.error("no scenario under \(paths.joined(separator: ", ")) has \"\(filter)\" in its name or path")
            } else {
                Terminal.error("no scenario files (*.yaml, *.yml, *.json) under \(paths.joined(separator: ", ")): a suite that tests nothing does not pass")
            }
            throw ExitCode(1)
        }
        let runtime = try options.runtime()
        let settings = try options.buildSettings()
        let allowances = try options.allowances()
        let terminal = Terminal()
        let live = format == .human && output == nil
        var outcomes: [SuiteEntry] = []
        await withTaskGroup(of: SuiteEntry.self) { group in
            var next = 0
            func add() {
                guard next < files.count else { return }
                let file = files[next]
                next += 1
                group.addTask { await runOne(file, runtime: runtime, settings: settings, allowances: allowances) }
            }
            for _ in 0..<max(1, jobs) { add() }
            // On a terminal a bar under the lines tells how far the suite is; piped or in
            // CI logs only the plain lines appear.
            let bar = terminal.isTTY && (format == .human || output != nil)
            let clock = ContinuousClock.now
            for await entry in group {
                if bar { terminal.overwrite("") }
                if live { terminal.suiteLine(entry) }
                outcomes.append(entry)
                if bar {
                    let elapsed = ContinuousClock.now - clock
                    terminal.overwrite(Terminal.progressBar(done: outcomes.count, total: files.count, failed: outcomes.filter { !$0.passed }.count,
                                                            seconds: elapsed.inSeconds))
                }
                add()
            }
            if bar { terminal.overwrite("") }
        }
        outcomes.sort { $0.file.path < $1.file.path }
        var document = SuiteDocument(entries: outcomes)
        document.shard = shardInfo
        let text: String = switch format {
        case .human: live ? terminal.suiteSummary(outcomes) : outcomes.map { Terminal.plain($0) }.joined(separator: "\n") + "\n" + terminal.suiteSummary(outcomes)
        case .json: document.json()
        case .junit: document.junit()
        case .sarif: document.sarif()
        }
        try ReportFile.write(text, to: output)
        if output != nil, format != .human { terminal.line(terminal.suiteSummary(outcomes)) }
        if let html {
            // A file named twice runs twice; its page shows the last run's audit log.
            let audits = Dictionary(outcomes.map { ($0.file.path, $0.audit) }) { _, last in last }
            let pages = document.scenarios.map { s in
                ReportHTML.ScenarioPage(name: s.name, file: s.file, status: s.status,
                                        digest: audits[s.file] ?? ReportHTML.AuditDigest(), result: s)
            }
            try ReportFile.write(ReportHTML.page(title: "mamsim test report", summary: terminal.suiteSummary(outcomes), scenarios: pages), to: html)
            Terminal.emit("HTML report: \(html)\n", to: 2)
        }
        if outcomes.contains(where: { !$0.passed }) { throw ExitCode(1) }
    }

    private func runOne(_ file: URL, runtime: String, settings: [String: String], allowances: SandboxAllowances) async -> SuiteEntry {
        do {
            let scenario = try ScenarioLoader.load(file: file, buildSettings: settings, allowances: allowances)
            guard !scenario.steps.isEmpty else {
                return SuiteEntry(file: file, report: nil, loadError: "\(file.path): the scenario has no steps, so it tests nothing; add steps: (or move the file out of the suite)")
            }
            var runOptions = ScenarioRunner.Options(appRuntime: runtime)
            runOptions.strict = options.strict
            let report = await ScenarioRunner.run(scenario, options: runOptions)
            let audit = html == nil ? ReportHTML.AuditDigest() : ReportHTML.digest(ofAuditLog: report.auditLog)
            // Each scenario ran on a fresh temporary device: keep it only when asked.
            if !keepDevices { try? FileManager.default.removeItem(at: report.deviceDirectory) }
            return SuiteEntry(file: file, report: report, loadError: nil, audit: audit)
        } catch {
            // One line per problem, each escaped whole: the lines are the loader's, never an input's.
            return SuiteEntry(file: file, report: nil, loadError: Terminal.lines(of: error).map(UntrustedText.line).joined(separator: "\n"))
        }
    }

    /// A scenario file and its shard key: the path as the suite names it (the argument as
    /// written, then the path below it), the same on every machine with the same checkout.
    struct Candidate {
        var url: URL
        var key: String
    }

    private func collect() throws -> [Candidate] {
        try Self.collect(paths, filter: filter)
    }

    /// The scenario files `paths` name (files, and the scenarios found in folders), `filter`
    /// keeping those whose path or name contains it.
    static func collect(_ paths: [String], filter: String?) throws -> [Candidate] {
        var out: [Candidate] = []
        let fm = FileManager.default
        for p in paths {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: p, isDirectory: &isDir) else {
                // Bad input (exit 2, docs/CLI.md), not a wrong command line.
                Terminal.error("\(p) does not exist; name a scenario file or a folder of them")
                throw ExitCode(2)
            }
            if isDir.boolValue {
                // Graph policy documents and fixtures live beside scenarios: folders named
                // `policies` or `fixtures`, and hidden ones, below the given folder are skipped
                // (the folder itself may be anywhere).
                let root = URL(fileURLWithPath: p).standardizedFileURL
                let e = fm.enumerator(at: root, includingPropertiesForKeys: nil)
                while let u = e?.nextObject() as? URL {
                    let below = u.standardizedFileURL.pathComponents.dropFirst(root.pathComponents.count)
                    if ["yaml", "yml", "json"].contains(u.pathExtension.lowercased()),
                       !below.contains(where: { $0.hasPrefix(".") || $0 == "policies" || $0 == "fixtures" }) {
                        // Found by the walk: only scenario files run; the others are named.
                        if let why = Self.notAScenario(u) {
                            Terminal.emit(UntrustedText.line("skipped \(u.path): \(why)") + "\n", to: 2)
                        } else {
                            out.append(Candidate(url: u, key: ProjectLinter.join(p.hasSuffix("/") ? String(p.dropLast()) : p, below.joined(separator: "/"))))
                        }
                    }
                }
            } else {
                out.append(Candidate(url: URL(fileURLWithPath: p), key: p))
            }
        }
        if let filter {
            out = out.filter { $0.url.path.localizedCaseInsensitiveContains(filter) || ((try? ScenarioLoader.load(file: $0.url))?.name.localizedCaseInsensitiveContains(filter) ?? false) }
        }
        return out.sorted { $0.url.path < $1.url.path }
    }
}

extension TestCommand {
    /// Why a file found in a folder is not a scenario (`nil` when it is one): a scenario's top
    /// level is a mapping with `steps:` or `apps:`; Graph exports, DDM declarations and other
    /// data kept beside scenarios have neither. A file named on the command line always runs.
    static func notAScenario(_ url: URL) -> String? {
        guard let data = (try? InputFile.contents(of: url)) else { return nil }  // the loader says why
        // A BOM before the first key, and lines that end at CR LF, are YAML's as much as LF's:
        // split as the YAML reader splits (a file saved on Windows was skipped as no scenario).
        var text = String(decoding: data.prefix(1 << 20), as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        // A report of an earlier `mamsim test --output` written inside the tested folder, in
        // any of its formats and whatever its file's extension: never a scenario of this run.
        let start = text.drop { $0.isWhitespace }
        if start.hasPrefix("<?xml") || start.hasPrefix("<testsuites") {
            return "a test report (JUnit XML), not a scenario"
        }
        let lines = BoundedYAML.lines(text)
        let first = start.prefix { $0 != "\n" && $0 != "\r\n" && $0 != "\r" }
        if ["✔ ", "✘ ", "▶ "].contains(where: { first.hasPrefix($0) }),
           lines.contains(where: { $0.hasPrefix("scenarios: ") }) {
            return "a test report (mamsim test's human output), not a scenario"
        }
        if url.pathExtension.lowercased() == "json" {
            guard let object = try? JSONSerialization.jsonObject(with: data) else { return nil }
            guard let dict = object as? [String: Any] else { return "not a scenario (its top level is not an object)" }
            if (dict["tool"] as? [String: Any])?["name"] as? String == "mamsim", dict["scenarios"] != nil, dict["schemaVersion"] != nil {
                return "a test report (mamsim test --format json), not a scenario"
            }
            // A Graph document (an app configuration export has a top-level "apps") names its
            // OData type or context; a scenario never has such keys.
            if let odata = dict.keys.sorted().first(where: { $0.hasPrefix("@odata.") }) {
                return "not a scenario (a Microsoft Graph document: it has \"\(odata)\")"
            }
            // `personas` is no key of a scenario (ScenarioLoader.topLevelKeys).
            if dict["personas"] != nil { return personasFile }
            return dict["steps"] != nil || dict["apps"] != nil ? nil : "not a scenario (no top-level \"steps\" or \"apps\"; a data file such as a Graph export?)"
        }
        if lines.contains(where: { $0.hasPrefix("personas:") || $0.hasPrefix("\"personas\":") }) { return personasFile }
        let hasKey = lines.contains { line in
            line.hasPrefix("steps:") || line.hasPrefix("apps:") || line.hasPrefix("\"steps\":") || line.hasPrefix("{")
        }
        return hasKey ? nil : "not a scenario (no top-level steps: or apps:)"
    }

    static let personasFile = "a whatif personas file (top-level personas:, docs/WHATIF.md), not a scenario"
}

/// One scenario file's result in a suite.
struct SuiteEntry: Sendable {
    let file: URL
    let report: ScenarioReport?
    let loadError: String?
    /// The run's audit log, folded for `--html` before the device goes.
    var audit = ReportHTML.AuditDigest()

    var passed: Bool { loadError == nil && (report?.passed ?? false) }
    var name: String { report?.name ?? file.deletingPathExtension().lastPathComponent }
}

extension Terminal {
    func suiteLine(_ e: SuiteEntry) {
        line(Terminal.plain(e, terminal: self))
        if let r = e.report {
            // Titles, outcomes and explanations carry what the scenario and the children wrote.
            let p = { (s: String) in Terminal.escapingControls(s, keepingLineBreaks: false) }
            for s in r.failures {
                line(red(p("    ✘ step \(s.index + 1) \(s.title) (line \(s.line)): expected \(s.expected.map { "\($0)" } ?? "-"), got \(s.observed) — \(s.explanation)")))
            }
            for note in r.notes where !r.passed { line(yellow("    note: " + p(note))) }
            // The findings that failed a strict run, each where it is (docs/STRICT.md).
            for f in r.strictFailures {
                line(red("    ✘ strict: " + p(f.described)))
            }
        }
    }

    static func plain(_ e: SuiteEntry, terminal: Terminal = Terminal()) -> String {
        let p = { (s: String) in Terminal.escapingControls(s, keepingLineBreaks: false) }
        if let err = e.loadError {
            // Several problems, each on a line of its own (`loadError`'s lines are the loader's).
            let problems = err.split(separator: "\n").map(String.init)
            return ([terminal.red(p("✘ \(e.file.path): \(problems.first ?? "")"))] + problems.dropFirst().map { terminal.red(p("    \($0)")) })
                .joined(separator: "\n")
        }
        guard let r = e.report else { return "" }
        if let f = r.fleetError { return terminal.red(p("✘ \(r.name): the fleet could not start: \(f)")) }
        let time = String(format: "%.2f s", r.seconds)
        if !r.appsNotStarted.isEmpty, r.failures.isEmpty {
            return terminal.red(p("✘ \(r.name): could not start \(r.appsNotStarted.joined(separator: "; "))")) + terminal.dim(" (\(time))")
        }
        // The sentence `mamsim run` and the HTML report say too (ScenarioReport.outcome).
        return r.passed
            ? terminal.green("✔ ") + "\(p(r.name)) " + terminal.dim("(\(r.outcome), \(time))")
            : terminal.red(p("✘ \(r.name): \(r.outcome)")) + terminal.dim(" (\(time))")
    }

    /// `[██████░░░░░░░░░░░░░░] 12/44 scenarios · 1 failed · 3.2 s`
    static func progressBar(done: Int, total: Int, failed: Int, seconds: Double, width: Int = 20) -> String {
        let filled = total == 0 ? width : min(width, done * width / total)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        return "[\(bar)] \(done)/\(total) scenarios · \(failed) failed · " + String(format: "%.1f s", seconds)
    }

    func suiteSummary(_ all: [SuiteEntry]) -> String {
        let passed = all.filter(\.passed).count
        let steps = all.compactMap(\.report).map(\.steps.count).reduce(0, +)
        // The plain "N passed, N failed" line CI systems read.
        return "scenarios: \(passed) passed, \(all.count - passed) failed (\(steps) steps)"
    }
}
