import ArgumentParser
import Foundation
import MAMAdmin
import MAMExtensions
import MAMModel
import MAMPolicy
import MAMScenario

/// `mamsim mutate SCENARIO|FOLDER…`: every setting of the scenarios' app protection policies
/// moved, one at a time, and the scenario run again (docs/MUTATE.md). A mutant is **killed**
/// when an expectation that held fails, **survived** when what a step observed changed and no
/// expectation caught it, **not exercised** when no step observed anything different; a setting
/// no value changes has no mutant.
struct MutateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mutate", abstract: "Move each policy setting the scenarios carry, rerun them, and say which settings no expectation checks.",
        discussion: "Exit 0 when the sweep ran (1 when the score is under --fail-under, or a scenario does not pass before any mutation), 2 on bad input. docs/MUTATE.md.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }

    @Argument(help: "Scenario files or folders of them.", completion: .file(extensions: ["yaml", "yml"]))
    var paths: [String]

    @Option(help: ArgumentHelp("Mutate only these Graph settings (comma-separated), e.g. allowedOutboundDataTransferDestinations,printBlocked.", valueName: "SETTINGS"))
    var only: String?

    @Option(help: "table (terminal) or json.")
    var format: Format = .table

    @Option(name: .shortAndLong, help: "Write here instead of standard output.")
    var output: String?

    @Option(help: ArgumentHelp("Exit 1 when the mutation score (killed ÷ every mutant) is under this percentage.", valueName: "SCORE"))
    var failUnder: Double?

    @OptionGroup var options: ScenarioOptions

    struct Outcome: Sendable {
        enum Verdict: String { case killed, survived, notExercised = "not exercised" }
        var scenario: String
        var policy: String
        var setting: String
        var value: String
        var verdict: Verdict
        /// Which step, and what changed there.
        var because: String
    }

    func validate() throws {
        if let only {
            let unknown = only.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !PolicyMutation.settings.contains($0) }
            if !unknown.isEmpty { throw ValidationError("--only: \(unknown.joined(separator: ", ")) is no setting of an iosManagedAppProtection mamsim reads") }
        }
        if let failUnder, !(0...100).contains(failUnder) { throw ValidationError("--fail-under takes a percentage from 0 to 100") }
    }

    func run() async throws {
        let runtime = try options.runtime()
        let settings = try options.buildSettings()
        let allowances = try options.allowances()
        let chosen = only.map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }
        var outcomes: [Outcome] = [], unchanged = 0, baselineFailed: [String] = []
        for candidate in try TestCommand.collect(paths, filter: nil) {
            let scenario: Scenario
            do { scenario = try ScenarioLoader.load(file: candidate.url, buildSettings: settings, allowances: allowances) } catch {
                Terminal.error(error)
                throw ExitCode(2)
            }
            let baseline = await Self.run(scenario, runtime: runtime)
            guard baseline.fleetError == nil, baseline.steps.allSatisfy(\.passed) else {
                baselineFailed.append("\(candidate.key): the scenario does not pass as it is (\(baseline.fleetError ?? "\(baseline.steps.filter { !$0.passed }.count) steps fail")); mutate judges passing scenarios")
                continue
            }
            let matrix = PolicyMatrix.compute(for: scenario.fleet)
            for name in scenario.policies.keys.sorted() {
                guard let policy = scenario.policies[name] else { continue }
                let (mutants, same) = PolicyMutation.mutants(of: policy, only: chosen) { mutant in
                    // `mamsim matrix --diff`'s own comparison of two matrices' cells.
                    PolicyMatrix.changes(from: matrix, to: PolicyMatrix.compute(for: scenario.replacingPolicy(named: name, with: mutant).fleet)).count
                }
                unchanged += same.count
                outcomes += await Self.sweep(mutants, of: scenario, policy: name, key: candidate.key, baseline: baseline, runtime: runtime)
            }
        }
        try write(outcomes, unchanged: unchanged, baselineFailed: baselineFailed)
        for line in baselineFailed { Terminal.error(line) }
        if !baselineFailed.isEmpty { throw ExitCode(1) }
        if let failUnder, Self.score(outcomes) < failUnder {
            Terminal.error(String(format: "mutation score %.1f%% is under --fail-under %.1f%%", Self.score(outcomes), failUnder))
            throw ExitCode(1)
        }
    }

    /// Each mutant's scenario run and judged, as many at once as the machine has cores (each
    /// run is its own device and processes), the outcomes in the mutants' order.
    static func sweep(_ mutants: [PolicyMutation.Mutant], of scenario: Scenario, policy name: String, key: String, baseline: ScenarioReport,
                      runtime: String) async -> [Outcome] {
        let width = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var results = [Outcome?](repeating: nil, count: mutants.count)
        await withTaskGroup(of: (Int, Outcome).self) { group in
            var next = 0
            func start() {
                guard next < mutants.count else { return }
                let i = next, m = mutants[i]
                next += 1
                group.addTask {
                    let mutated = scenario.replacingPolicy(named: name, with: m.policy)
                    let report = await run(mutated, runtime: runtime)
                    let app = MutantParticipation(baseline: baseline, scenario: scenario, mutant: mutated)
                    return (i, judge(baseline, report, scenario: key, policy: name, mutant: m, participation: app))
                }
            }
            for _ in 0..<width { start() }
            for await (i, outcome) in group {
                results[i] = outcome
                start()
            }
        }
        return results.compactMap { $0 }
    }

    static func run(_ scenario: Scenario, runtime: String) async -> ScenarioReport {
        let report = await ScenarioRunner.run(scenario, options: ScenarioRunner.Options(appRuntime: runtime))
        try? FileManager.default.removeItem(at: report.deviceDirectory)
        return report
    }

    /// A mutant's verdict against the baseline run: the first expectation it broke, else the
    /// first step whose observation changed, else the app's code that met it (a getter read
    /// whose answer it changes, or a save that never asked), else none.
    static func judge(_ baseline: ScenarioReport, _ report: ScenarioReport, scenario: String, policy: String, mutant: PolicyMutation.Mutant,
                      participation: MutantParticipation?) -> Outcome {
        var o = Outcome(scenario: scenario, policy: policy, setting: mutant.setting, value: mutant.value, verdict: .notExercised, because: "")
        if let error = report.fleetError {
            o.verdict = .killed
            o.because = "the fleet did not start: \(error)"
            return o
        }
        if let failed = report.steps.first(where: { !$0.passed }) {
            o.verdict = .killed
            o.because = "step \(failed.index + 1) (\(failed.title)): " + Self.difference(expected: failed.expected, got: failed.observed)
            return o
        }
        for (b, m) in zip(baseline.steps, report.steps) where b.observed != m.observed || b.explanation != m.explanation {
            o.verdict = .survived
            o.because = "step \(m.index + 1) (\(m.title)) observed \(m.observed) (before: \(b.observed))" + (b.observed == m.observed ? ", explained otherwise: \(m.explanation)" : "") + "; no expectation checks it"
            return o
        }
        if let why = participation?.survivor() {
            o.verdict = .survived
            o.because = why
            return o
        }
        let needs = PolicyMutation.participation[mutant.setting].map { "; the setting needs the app's own part: \($0)" } ?? ""
        o.because = mutant.cells > 0 ? "no step reaches the \(mutant.cells) decision(s) it changes\(needs)" : "no step observes a difference (it changes no decision of the matrix)\(needs)"
        return o
    }

    /// What a killed mutant changed at its step: for a text (a file the app wrote), the first
    /// line that differs, where the whole texts would bury it.
    static func difference(expected: ExpectedOutcome?, got: Observed) -> String {
        if case .text(let want)? = expected, case .text(let have) = got {
            let a = want.split(separator: "\n", omittingEmptySubsequences: false), b = have.split(separator: "\n", omittingEmptySubsequences: false)
            if let i = (0..<max(a.count, b.count)).first(where: { $0 >= a.count || $0 >= b.count || a[$0] != b[$0] }) {
                let line = { (l: [Substring]) in i < l.count ? "\(String(l[i]).debugDescription)" : "no line" }
                return "the text's line \(i + 1): expected \(line(a)), got \(line(b))"
            }
        }
        return "expected \(expected.map { "\($0)" } ?? "-"), got \(got)"
    }

    /// Killed mutants over every mutant, in percent (100 with none).
    static func score(_ outcomes: [Outcome]) -> Double {
        outcomes.isEmpty ? 100 : Double(outcomes.filter { $0.verdict == .killed }.count) * 100 / Double(outcomes.count)
    }

    func write(_ outcomes: [Outcome], unchanged: Int, baselineFailed: [String]) throws {
        let counts = Dictionary(grouping: outcomes, by: \.verdict.rawValue).mapValues(\.count)
        let summary = String(format: "mutation score %.1f%%: %d mutants, %d killed, %d survived, %d not exercised; %d settings no value changes (no mutant)",
                             Self.score(outcomes), outcomes.count, counts["killed"] ?? 0, counts["survived"] ?? 0, counts["not exercised"] ?? 0, unchanged)
        let text: String
        switch format {
        case .table:
            text = UntrustedText.lines(outcomes.map { o in
                "\(o.verdict.rawValue.uppercased().padding(toLength: 13, withPad: " ", startingAt: 0)) \(o.scenario) · \(o.policy).\(o.setting) → \(o.value): \(o.because)"
            } + [summary])
        case .json:
            var w = WhatIfReport.JSONWriter()
            w.object { w in
                w.key("mutants")
                w.array(outcomes) { w, o in
                    w.object { w in
                        w.field("scenario", o.scenario); w.field("policy", o.policy); w.field("setting", o.setting); w.field("value", o.value)
                        w.field("verdict", o.verdict.rawValue); w.field("because", o.because)
                    }
                }
                w.comma()
                w.key("score"); w.raw(String(format: "%.1f", Self.score(outcomes))); w.comma()
                w.field("unchanged", unchanged)
                w.field("baselineFailed", strings: baselineFailed)
            }
            text = w.out
        }
        try ReportFile.write(text, to: output)
        if output != nil { Terminal().line(summary) }
    }
}
