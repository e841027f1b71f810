import ArgumentParser
import Foundation
import MAMScenario
import MAMModel
import MAMExtensions

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
                        // Found by the walk: only scenario files run; the others are named.
                        if let why = Self.notAScenario(u) {
                            Terminal.emit("skipped \(u.path): \(why)\n", to: 2)
                        } else {
                            out.append(u)
                        }
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

extension TestCommand {
    /// Why a file found in a folder is not a scenario (`nil` when it is one): a scenario's top
    /// level is a mapping with `steps:` or `apps:`; Graph exports, DDM declarations and other
    /// data kept beside scenarios have neither. A file named on the command line always runs.
    static func notAScenario(_ url: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }  // the loader says why
        let text = String(decoding: data.prefix(1 << 20), as: UTF8.self)
        if url.pathExtension.lowercased() == "json" {
            guard let object = try? JSONSerialization.jsonObject(with: data) else { return nil }
            guard let dict = object as? [String: Any] else { return "not a scenario (its top level is not an object)" }
            return dict["steps"] != nil || dict["apps"] != nil ? nil : "not a scenario (no top-level \"steps\" or \"apps\"; a data file such as a Graph export?)"
        }
        let hasKey = text.split(separator: "\n").contains { line in
            line.hasPrefix("steps:") || line.hasPrefix("apps:") || line.hasPrefix("\"steps\":") || line.hasPrefix("{")
        }
        return hasKey ? nil : "not a scenario (no top-level steps: or apps:)"
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

/// JSON and JUnit renderings of a suite. Both are checked in tests against the schemas in
/// `schemas/` (`test-report.schema.json`, `junit.xsd`).
enum SuiteReport {
    static let schemaVersion = 1

    /// `delivered` → `{kind: delivered}`; `{blocked: outbound-policy}` → `{kind: blocked,
    /// value: outbound-policy}`: the scenario format's outcome syntax as data.
    static func structured(_ text: String) -> [String: Any] {
        guard text.hasPrefix("{"), text.hasSuffix("}"), let colon = text.firstIndex(of: ":") else { return ["kind": text] }
        let kind = text[text.index(after: text.startIndex)..<colon].trimmingCharacters(in: .whitespaces)
        let value = text[text.index(after: colon)..<text.index(before: text.endIndex)].trimmingCharacters(in: .whitespaces)
        return ["kind": kind, "value": value]
    }

    static func status(_ e: SuiteEntry) -> String {
        if e.loadError != nil || e.report?.fleetError != nil { return "error" }
        return e.passed ? "passed" : "failed"
    }

    static func json(_ all: [SuiteEntry]) -> String {
        let scenarios: [[String: Any]] = all.map { e in
            var d: [String: Any] = ["file": e.file.path, "name": e.name, "passed": e.passed, "status": status(e)]
            if let err = e.loadError { d["error"] = err }
            d["seconds"] = e.report?.seconds ?? 0
            if let r = e.report {
                if let f = r.fleetError { d["fleetError"] = f }
                if !r.appsNotStarted.isEmpty { d["appsNotStarted"] = r.appsNotStarted }
                d["steps"] = r.steps.map { s -> [String: Any] in
                    var step: [String: Any] = [
                        "index": s.index + 1, "line": s.line, "verb": s.verb, "parties": s.parties,
                        "outcome": s.observed.description, "observed": structured(s.observed.description),
                        "explanation": s.explanation, "passed": s.passed, "seconds": s.seconds,
                    ]
                    if !s.name.isEmpty { step["name"] = s.name }
                    if let reason = s.observed.reason { step["reason"] = reason.rawValue }
                    if let e = s.expected {
                        step["expected"] = e.description
                        step["expectation"] = structured(e.description)
                    }
                    return step
                }
            } else {
                d["steps"] = [[String: Any]]()
            }
            return d
        }
        let root: [String: Any] = [
            "schemaVersion": schemaVersion, "tool": ["name": "mamsim", "version": mamsimVersion],
            "passed": all.filter(\.passed).count, "failed": all.filter { !$0.passed }.count,
            "errors": all.filter { status($0) == "error" }.count,
            "steps": all.compactMap(\.report).map(\.steps.count).reduce(0, +),
            "seconds": all.compactMap(\.report).map(\.seconds).reduce(0, +),
            "scenarios": scenarios,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Seconds as JUnit readers expect them: fixed-point, never `1e-05`.
    static func time(_ seconds: Double) -> String { String(format: "%.3f", max(0, seconds)) }

    static func junit(_ all: [SuiteEntry]) -> String {
        let esc = LintFormat.escapeXML
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let tests = all.map { e in e.loadError != nil || e.report?.fleetError != nil ? 1 : max(1, e.report?.steps.count ?? 1) }.reduce(0, +)
        let errors = all.filter { status($0) == "error" }.count
        let failures = all.filter { status($0) == "failed" }.map { $0.report?.failures.count ?? 0 }.reduce(0, +)
        let total = all.compactMap(\.report).map(\.seconds).reduce(0, +)
        out += "<testsuites name=\"mamsim\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\" time=\"\(time(total))\">\n"
        // Suite names are unique: a name two scenarios share is told apart by the file.
        let counts = Dictionary(all.map { ($0.name, 1) }, uniquingKeysWith: +)
        for e in all {
            let r = e.report
            let name = counts[e.name, default: 0] > 1 ? "\(e.name) (\(e.file.path))" : e.name
            let file = esc(e.file.path)
            if let err = e.loadError ?? r?.fleetError {
                // The file could not be run at all: an error, not a failed expectation.
                out += "  <testsuite name=\"\(esc(name))\" file=\"\(file)\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"\(time(r?.seconds ?? 0))\">\n"
                let line = Self.line(in: err) ?? 1
                out += "    <testcase classname=\"\(esc(name))\" name=\"\(esc(e.file.lastPathComponent))\" file=\"\(file)\" line=\"\(line)\" time=\"\(time(0))\">\n"
                out += "      <error type=\"\(e.loadError != nil ? "bad-scenario" : "fleet")\" message=\"\(esc(err))\">\(esc(err))</error>\n    </testcase>\n  </testsuite>\n"
                continue
            }
            let steps = r?.steps ?? []
            let fails = steps.filter { !$0.passed }.count
            out += "  <testsuite name=\"\(esc(name))\" file=\"\(file)\" tests=\"\(max(1, steps.count))\" failures=\"\(fails)\" errors=\"0\" skipped=\"0\" time=\"\(time(r?.seconds ?? 0))\">\n"
            if let r, !r.appsNotStarted.isEmpty {
                out += "    <system-err>\(esc("apps that could not start: " + r.appsNotStarted.joined(separator: "; ")))</system-err>\n"
            }
            for s in steps {
                out += "    <testcase classname=\"\(esc(name))\" name=\"\(esc("\(s.index + 1). \(s.title)"))\" file=\"\(file)\" line=\"\(s.line)\" time=\"\(time(s.seconds))\""
                if s.passed {
                    out += "/>\n"
                } else {
                    let msg = "expected \(s.expected.map { "\($0)" } ?? "-"), got \(s.observed) (line \(s.line))"
                    out += ">\n      <failure type=\"expectation\" message=\"\(esc(msg))\">\(esc(s.explanation))</failure>\n    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    /// The line of `path:LINE:COLUMN:` in a load error, when it names one.
    static func line(in error: String) -> Int? {
        let parts = error.split(separator: ":", maxSplits: 3)
        guard parts.count >= 3 else { return nil }
        return Int(parts[1])
    }
}
