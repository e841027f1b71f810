import ArgumentParser
import Foundation
import MAMScenario
import MAMModel

/// `mamsim test PATH...`: every scenario under the paths, each on a fresh device, in parallel.
struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run scenario files as a test suite.",
        discussion: "JUnit output has one <testsuite> per scenario file and one <testcase> per step; a scenario whose file is bad or whose fleet cannot start is one failed <testcase> named after the file.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case human, json, junit }

    @Argument(help: "Scenario files or folders (every *.yaml, *.yml, *.json under them).")
    var paths: [String]

    @Option(help: "Output format: human, json or junit.")
    var format: Format = .human

    @Option(help: "Write the report to this file instead of standard output.")
    var output: String?

    @Option(help: "Run only scenarios whose name or path contains this text.")
    var filter: String?

    @Option(help: "Scenarios run in parallel (default: the number of CPUs).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Keep each scenario's temporary device directory (state, containers, audit log).")
    var keepDevices = false

    @OptionGroup var options: ScenarioOptions

    func run() async throws {
        let files = try collect()
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
        let terminal = Terminal()
        let live = format == .human && output == nil
        var outcomes: [SuiteEntry] = []
        await withTaskGroup(of: SuiteEntry.self) { group in
            var next = 0
            func add() {
                guard next < files.count else { return }
                let file = files[next]
                next += 1
                group.addTask { await runOne(file, runtime: runtime, settings: settings) }
            }
            for _ in 0..<max(1, jobs) { add() }
            for await entry in group {
                if live { terminal.suiteLine(entry) }
                outcomes.append(entry)
                add()
            }
        }
        outcomes.sort { $0.file.path < $1.file.path }
        let text: String = switch format {
        case .human: live ? terminal.suiteSummary(outcomes) : outcomes.map { Terminal.plain($0) }.joined(separator: "\n") + "\n" + terminal.suiteSummary(outcomes)
        case .json: SuiteReport.json(outcomes)
        case .junit: SuiteReport.junit(outcomes)
        }
        if let output {
            do {
                let folder = URL(fileURLWithPath: output).deletingLastPathComponent()
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try text.write(toFile: output, atomically: true, encoding: .utf8)
            } catch {
                Terminal.error("cannot write the report to \(output): \(error.localizedDescription); check that its folder exists and is writable")
                throw ExitCode(2)
            }
            if format != .human { terminal.line(terminal.suiteSummary(outcomes)) }
        } else {
            terminal.line(text)
        }
        if outcomes.contains(where: { !$0.passed }) { throw ExitCode(1) }
    }

    private func runOne(_ file: URL, runtime: String, settings: [String: String]) async -> SuiteEntry {
        do {
            let scenario = try ScenarioLoader.load(file: file, buildSettings: settings)
            guard !scenario.steps.isEmpty else {
                return SuiteEntry(file: file, report: nil, loadError: "\(file.path): the scenario has no steps, so it tests nothing; add steps: (or move the file out of the suite)")
            }
            let report = await ScenarioRunner.run(scenario, options: ScenarioRunner.Options(appRuntime: runtime))
            // Each scenario ran on a fresh temporary device: keep it only when asked.
            if !keepDevices { try? FileManager.default.removeItem(at: report.deviceDirectory) }
            return SuiteEntry(file: file, report: report, loadError: nil)
        } catch {
            return SuiteEntry(file: file, report: nil, loadError: "\(error)")
        }
    }

    private func collect() throws -> [URL] {
        var out: [URL] = []
        let fm = FileManager.default
        for p in paths {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: p, isDirectory: &isDir) else {
                throw ValidationError("\(p) does not exist")
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
                        out.append(u)
                    }
                }
            } else {
                out.append(URL(fileURLWithPath: p))
            }
        }
        if let filter {
            out = out.filter { $0.path.localizedCaseInsensitiveContains(filter) || ((try? ScenarioLoader.load(file: $0))?.name.localizedCaseInsensitiveContains(filter) ?? false) }
        }
        return out.sorted { $0.path < $1.path }
    }
}

/// One scenario file's result in a suite.
struct SuiteEntry: Sendable {
    let file: URL
    let report: ScenarioReport?
    let loadError: String?

    var passed: Bool { loadError == nil && (report?.passed ?? false) }
    var name: String { report?.name ?? file.deletingPathExtension().lastPathComponent }
}

extension Terminal {
    func suiteLine(_ e: SuiteEntry) {
        line(Terminal.plain(e, terminal: self))
        if let r = e.report {
            for s in r.failures {
                line(red("    ✘ step \(s.index + 1) \(s.title) (line \(s.line)): expected \(s.expected.map { "\($0)" } ?? "-"), got \(s.observed) — \(s.explanation)"))
            }
        }
    }

    static func plain(_ e: SuiteEntry, terminal: Terminal = Terminal()) -> String {
        if let err = e.loadError { return terminal.red("✘ \(e.file.path): \(err)") }
        guard let r = e.report else { return "" }
        if let f = r.fleetError { return terminal.red("✘ \(r.name): the fleet could not start: \(f)") }
        let time = String(format: "%.2f s", r.seconds)
        if !r.appsNotStarted.isEmpty, r.failures.isEmpty {
            return terminal.red("✘ \(r.name): could not start \(r.appsNotStarted.joined(separator: "; "))") + terminal.dim(" (\(time))")
        }
        return r.passed
            ? terminal.green("✔ ") + "\(r.name) " + terminal.dim("(\(r.steps.count) steps, \(time))")
            : terminal.red("✘ \(r.name): \(r.failures.count) of \(r.steps.count) steps failed") + terminal.dim(" (\(time))")
    }

    func suiteSummary(_ all: [SuiteEntry]) -> String {
        let passed = all.filter(\.passed).count
        let steps = all.compactMap(\.report).map(\.steps.count).reduce(0, +)
        // The plain "N passed, N failed" line CI systems read.
        return "scenarios: \(passed) passed, \(all.count - passed) failed (\(steps) steps)"
    }
}

/// JSON and JUnit renderings of a suite.
enum SuiteReport {
    static func json(_ all: [SuiteEntry]) -> String {
        let scenarios: [[String: Any]] = all.map { e in
            var d: [String: Any] = ["file": e.file.path, "name": e.name, "passed": e.passed]
            if let err = e.loadError { d["error"] = err }
            if let r = e.report {
                d["seconds"] = r.seconds
                if let f = r.fleetError { d["fleetError"] = f }
                if !r.appsNotStarted.isEmpty { d["appsNotStarted"] = r.appsNotStarted }
                d["steps"] = r.steps.map { s -> [String: Any] in
                    var step: [String: Any] = [
                        "index": s.index + 1, "line": s.line, "verb": s.verb, "parties": s.parties,
                        "outcome": s.observed.description, "explanation": s.explanation, "passed": s.passed,
                    ]
                    if !s.name.isEmpty { step["name"] = s.name }
                    if let reason = s.observed.reason { step["reason"] = reason.rawValue }
                    if let e = s.expected { step["expected"] = e.description }
                    return step
                }
            }
            return d
        }
        let root: [String: Any] = [
            "passed": all.filter(\.passed).count, "failed": all.filter { !$0.passed }.count, "scenarios": scenarios,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func junit(_ all: [SuiteEntry]) -> String {
        func esc(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let tests = all.map { $0.report.map { max(1, $0.steps.count) } ?? 1 }.reduce(0, +)
        let failures = all.map { e -> Int in
            guard let r = e.report, e.loadError == nil, r.fleetError == nil else { return 1 }
            return r.failures.count
        }.reduce(0, +)
        out += "<testsuites name=\"mamsim\" tests=\"\(tests)\" failures=\"\(failures)\">\n"
        for e in all {
            let r = e.report
            let steps = r?.steps ?? []
            let fails = (e.loadError != nil || r?.fleetError != nil) ? 1 : steps.filter { !$0.passed }.count
            out += "  <testsuite name=\"\(esc(e.name))\" file=\"\(esc(e.file.path))\" tests=\"\(max(1, steps.count))\" failures=\"\(fails)\" time=\"\(r?.seconds ?? 0)\">\n"
            if let err = e.loadError ?? r?.fleetError {
                out += "    <testcase classname=\"\(esc(e.name))\" name=\"\(esc(e.file.lastPathComponent))\"><failure message=\"\(esc(err))\"/></testcase>\n"
            }
            for s in steps {
                out += "    <testcase classname=\"\(esc(e.name))\" name=\"\(esc("\(s.index + 1). \(s.title)"))\" time=\"\(s.seconds)\""
                if s.passed {
                    out += "/>\n"
                } else {
                    let msg = "expected \(s.expected.map { "\($0)" } ?? "-"), got \(s.observed) (line \(s.line))"
                    out += "><failure message=\"\(esc(msg))\">\(esc(s.explanation))</failure></testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }
}
