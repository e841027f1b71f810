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

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json, sarif, html }

    @Argument(help: "Scenario files or folders of them.", completion: .file(extensions: ["yaml", "yml"]))
    var paths: [String]

    @Option(help: ArgumentHelp("Mutate only these Graph settings or app configuration keys (comma-separated), e.g. allowedOutboundDataTransferDestinations,printBlocked.", valueName: "SETTINGS"))
    var only: String?

    @Flag(help: "One mutant per value a setting can take (the templates' values, both booleans, Graph's values), not only the one that changes most.")
    var allValues = false

    @Option(help: "table (terminal), json, sarif (survivors at their policy's lines) or html (the score per app and per setting).")
    var format: Format = .table

    @Option(name: .shortAndLong, help: "Write here instead of standard output.")
    var output: String?

    @Option(help: ArgumentHelp("Exit 1 when the mutation score (killed ÷ every mutant) is under this percentage.", valueName: "SCORE"))
    var failUnder: Double?

    @Option(help: ArgumentHelp("Run part K of N of the sweep (its mutants K of N, in order) and write a part for `mamsim merge`.", valueName: "K/N"))
    var shard: String?

    @Option(help: ArgumentHelp("Run the part of an Indexed Job: N parts, this one JOB_COMPLETION_INDEX.", valueName: "N"))
    var shards: Int?

    @Option(help: ArgumentHelp("Where mutants' verdicts are kept by the content of what decides them (default: $XDG_CACHE_HOME/mamsim/mutate, else ~/.cache/mamsim/mutate).", valueName: "DIR"))
    var cache: String?

    @Flag(help: "Run every mutant, reading and writing no cache.")
    var noCache = false

    @Flag(help: "Run every mutant, also one the base run's decisions show would run as the base run did.")
    var noReplay = false

    @OptionGroup var options: ScenarioOptions

    struct Outcome: Sendable, Codable, Equatable {
        enum Verdict: String, Codable { case killed, survived, notExercised = "not exercised" }
        var scenario: String
        var kind: Mutation.Kind
        /// The policy's or app configuration's name.
        var policy: String
        var setting: String
        var value: String
        var verdict: Verdict
        /// Which step, and what changed there.
        var because: String
        /// The step that decided it (1-based), when one did.
        var step: Int?
        /// The apps (their handles in the scenario) the policy or configuration reaches.
        var apps: [String] = []
        /// Where the setting is written, where its policy or configuration is declared, and
        /// the step's line (repository-relative paths; SARIF).
        var at: SourceLine?
        var declaredAt: SourceLine?
        var stepAt: SourceLine?
        /// Judged from the base run's decisions, without a run of its own (`PolicyReads`).
        var replayed: Bool?
    }

    struct SourceLine: Sendable, Codable, Equatable {
        var file: String
        var line: Int
    }

    /// One mutant of the sweep: its scenario, policy and place in the sweep's order.
    struct Planned {
        var scenario: Int
        var mutation: Mutation
        var index: Int
    }

    func validate() throws {
        if let failUnder, !(0...100).contains(failUnder) { throw ValidationError("--fail-under takes a percentage from 0 to 100") }
        _ = try TestCommand.shardChoice(shard: shard, shards: shards)
        if cache != nil && noCache { throw ValidationError("give --cache DIR or --no-cache, not both") }
    }

    func run() async throws {
        let runtime = try options.runtime()
        let part = try TestCommand.shardChoice(shard: shard, shards: shards)
        let (scenarios, planned, unchanged) = try plan()
        let mine = part.map { p in Array(planned[WhatIfPart.range(count: planned.count, index: p.index, of: p.count)]) } ?? planned
        let store = noCache ? nil : MutateCache(folder: cache, runtime: runtime)
        var outcomes: [Int: Outcome] = [:], baselineFailed: [String] = [], fromCache = 0
        for (i, entry) in scenarios.enumerated() {
            let todo = mine.filter { $0.scenario == i }
            guard !todo.isEmpty else { continue }
            let fingerprint = store?.fingerprint(of: entry.scenario)
            var uncached: [Planned] = []
            for p in todo {
                if let fingerprint, var hit = store?.outcome(fingerprint, p) {
                    hit.scenario = entry.key
                    outcomes[p.index] = hit
                    fromCache += 1
                } else { uncached.append(p) }
            }
            guard !uncached.isEmpty else { continue }
            let baseline = await Self.recordedRun(entry.scenario, runtime: runtime)
            guard baseline.report.fleetError == nil, baseline.report.steps.allSatisfy(\.passed) else {
                let failing = baseline.report.fleetError ?? "\(baseline.report.steps.filter { !$0.passed }.count) steps fail"
                baselineFailed.append("\(entry.key): the scenario does not pass as it is (\(failing)); mutate judges passing scenarios")
                continue
            }
            let judged = await Self.sweep(uncached.map(\.mutation), of: entry.scenario, key: entry.key, baseline: baseline, runtime: runtime, replay: !noReplay)
            for (p, outcome) in zip(uncached, judged) {
                outcomes[p.index] = outcome
                if let fingerprint { store?.keep(outcome, fingerprint, p) }
            }
        }
        let replayed = outcomes.values.filter { $0.replayed == true }.count
        if replayed > 0 {
            Terminal.note("\(replayed) of \(mine.count) mutants judged without a run of their own: they change no setting the base run read, or every decision that read it answers the same under them (--no-replay runs them)")
        }
        if fromCache > 0 { Terminal.note("\(fromCache) of \(mine.count) mutants' verdicts from the cache (\(store?.folder.path ?? "")); --no-cache runs them all") }
        let sweep = MutateSweep(outcomes: mine.compactMap { outcomes[$0.index] }, unchanged: unchanged, baselineFailed: baselineFailed)
        if let part {
            try MutatePart.write(sweep, index: part.index, count: part.count, of: planned.count, identity: MutatePart.identity(scenarios.map(\.key), only: only, allValues: allValues),
                                 format: format.rawValue, failUnder: failUnder, to: output)
            // A part never fails for what it finds: the merge decides the gate on the whole.
            for line in baselineFailed { Terminal.note(line) }
            return
        }
        try sweep.finish(format: format.rawValue, output: output, failUnder: failUnder)
    }

    /// Every scenario loaded, and its mutants in the sweep's order (scenario, policy, setting,
    /// then app configuration, key): decided before anything runs, so each part of a sharded
    /// sweep knows the same list.
    func plan() throws -> (scenarios: [(key: String, scenario: Scenario)], planned: [Planned], unchanged: Int) {
        let settings = try options.buildSettings()
        let allowances = try options.allowances()
        let chosen = only.map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }
        var scenarios: [(key: String, scenario: Scenario)] = [], planned: [Planned] = [], unchanged = 0
        for candidate in try TestCommand.collect(paths, filter: nil) {
            let scenario: Scenario
            do { scenario = try ScenarioLoader.load(file: candidate.url, buildSettings: settings, allowances: allowances) } catch {
                Terminal.error(error)
                throw ExitCode(2)
            }
            let (mutants, same) = Mutation.all(of: scenario, only: chosen, allValues: allValues)
            unchanged += same
            for m in mutants { planned.append(Planned(scenario: scenarios.count, mutation: m, index: planned.count)) }
            scenarios.append((candidate.key, scenario))
        }
        if let chosen {
            let keys = Set(scenarios.flatMap { $0.scenario.appConfigs.flatMap { $0.settings.map(\.name) } })
                .union(scenarios.flatMap { DeclarationMutation.mutants(of: $0.scenario.declarations, allValues: false).map(\.key) })
            let unknown = chosen.filter { !PolicyMutation.settings.contains($0) && !keys.contains($0) }.sorted()
            if !unknown.isEmpty {
                Terminal.error("--only: \(unknown.joined(separator: ", ")) is no setting of an iosManagedAppProtection mamsim reads, nor a key of these scenarios' app configurations or managed app configurations")
                throw ExitCode(2)
            }
        }
        return (scenarios, planned, unchanged)
    }

    /// Each mutant's scenario run and judged, as many at once as the machine has cores (each
    /// run is its own device and processes), the outcomes in the mutants' order.
    static func sweep(_ mutants: [Mutation], of scenario: Scenario, key: String, baseline: MutantRun,
                      runtime: String, replay: Bool = true) async -> [Outcome] {
        let width = max(1, ProcessInfo.processInfo.activeProcessorCount)
        // A mutant may leave the fleet restarting for ever (wiped at each launch, the app
        // enrolls again and is asked to restart): its step stops waiting long after the base
        // run would have ended, and the mutant is killed by the timeout.
        let settleLimit = Duration.seconds(max(10, 5 * baseline.report.seconds))
        var results = [Outcome?](repeating: nil, count: mutants.count)
        // The base fleet's decisions, against which each mutant no step reached is read: once.
        let baseMatrix = PolicyMatrix.compute(for: scenario.fleet)
        await withTaskGroup(of: (Int, Outcome).self) { group in
            var next = 0
            func start() {
                guard next < mutants.count else { return }
                let i = next, m = mutants[i]
                next += 1
                group.addTask {
                    let mutated = m.applied(to: scenario)
                    // A mutant that changes nothing the base run's decisions read runs as the
                    // base run did: judged against it without a run.
                    if replay, let reads = baseline.reads, m.runsAsTheBase(of: scenario, reads) {
                        let app = MutantParticipation(baseline: baseline.report, scenario: scenario, baseMatrix: baseMatrix, mutant: mutated, mutation: m)
                        var outcome = judge(baseline, baseline, scenario: key, mutant: m, participation: app).placed(in: scenario, mutant: m)
                        outcome.replayed = true
                        return (i, outcome)
                    }
                    let ran = await run(mutated, runtime: runtime, stopAtFirstFailure: true, settleLimit: settleLimit)
                    let app = MutantParticipation(baseline: baseline.report, scenario: scenario, baseMatrix: baseMatrix, mutant: mutated, mutation: m)
                    let outcome = judge(baseline, ran, scenario: key, mutant: m, participation: app).placed(in: scenario, mutant: m)
                    return (i, outcome)
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

    /// A run and the host's decisions in it, read from its audit log before its device goes.
    struct MutantRun: Sendable {
        var report: ScenarioReport
        var decisions: RunDecisions?
        /// What the run's decisions read of the policies (a base run's).
        var reads: PolicyReads?
    }

    /// A base run, with what its decisions read of the policies recorded: one at a time.
    static func recordedRun(_ scenario: Scenario, runtime: String) async -> MutantRun {
        let reads = PolicyReads()
        // The app's own part is read from the base run alone, its direct saves too.
        var run = await reads.recording { await Self.run(scenario, runtime: runtime, watchesDocuments: true) }
        run.reads = reads
        return run
    }

    static func run(_ scenario: Scenario, runtime: String, stopAtFirstFailure: Bool = false, settleLimit: Duration? = nil,
                    watchesDocuments: Bool = false) async -> MutantRun {
        var options = ScenarioRunner.Options(appRuntime: runtime)
        options.stopAtFirstFailure = stopAtFirstFailure
        options.watchesDocuments = watchesDocuments
        if let settleLimit { options.settleLimit = settleLimit }
        let report = await ScenarioRunner.run(scenario, options: options)
        let decisions = RunDecisions.read(report.auditLog)
        try? FileManager.default.removeItem(at: report.deviceDirectory)
        return MutantRun(report: report, decisions: decisions)
    }

    /// A mutant's verdict against the baseline run: the first expectation it broke, else the
    /// first step whose observation changed, else the app's code that met it (a getter read
    /// whose answer it changes, or a save that never asked), else none.
    static func judge(_ base: MutantRun, _ ran: MutantRun, scenario: String, mutant: Mutation,
                      participation: MutantParticipation?) -> Outcome {
        let baseline = base.report, report = ran.report
        var o = Outcome(scenario: scenario, kind: mutant.kind, policy: mutant.owner, setting: mutant.setting, value: mutant.value, verdict: .notExercised, because: "")
        if let error = report.fleetError {
            o.verdict = .killed
            o.because = "the fleet did not start: \(error)"
            return o
        }
        if let failed = report.steps.first(where: { !$0.passed }) {
            o.verdict = .killed
            o.step = failed.index + 1
            o.because = "step \(failed.index + 1) (\(failed.title)): " + Self.difference(expected: failed.expected, got: failed.observed)
            // A run that never settled (a restart loop) says why where a value would not.
            if case .failed(.timeout) = failed.observed { o.because += " — \(failed.explanation)" }
            return o
        }
        for (b, m) in zip(baseline.steps, report.steps) where b.observed != m.observed || Self.unnumbered(b.explanation) != Self.unnumbered(m.explanation) {
            o.verdict = .survived
            o.step = m.index + 1
            o.because = "step \(m.index + 1) (\(m.title)) observed \(m.observed) (before: \(b.observed))" + (b.observed == m.observed ? ", explained otherwise: \(m.explanation)" : "") + "; no expectation checks it"
            return o
        }
        if let before = base.decisions, let after = ran.decisions, let (label, what) = before.firstDifference(in: after) {
            o.verdict = .survived
            let index = label == "fleet start" ? nil : baseline.steps.first { $0.title == label || "step \($0.index + 1)" == label }?.index
            o.step = index.map { $0 + 1 }
            let place = index.map { i in "step \(i + 1) (\(baseline.steps[i].title))" } ?? (label == "fleet start" ? "at launch (the fleet's start)" : UntrustedText.escaped(label))
            o.because = "\(place): \(what); no expectation checks it"
            return o
        }
        if let why = participation?.survivor() {
            o.verdict = .survived
            (o.because, o.step) = (why.because, why.step.map { $0 + 1 })
            return o
        }
        o.because = participation?.unreached() ?? "no step observes a difference"
        return o
    }

    /// An explanation without the process ids it names (`mail running (pid 4242)`): each run
    /// starts its own processes, so a pid differs from run to run whatever the policy says.
    static func unnumbered(_ explanation: String) -> String {
        explanation.replacing(/\(pid \d+\)/, with: "(pid)")
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
}
