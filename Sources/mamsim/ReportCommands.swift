import ArgumentParser
import Foundation
import MAMActivation
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMAdmin
import MAMScenario

/// `mamsim report AUDIT.jsonl...`: the HTML report of runs after the fact, from their audit
/// logs (and, with --results, their JSON results for the step timelines).
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report", abstract: "Write the HTML report of audit logs (and test results) after the fact.")

    @Argument(help: "Audit logs (JSON lines) of runs: `mamsim run --audit FILE`, or audit.jsonl in a kept device.")
    var audits: [String]

    @Option(help: "The JSON results of the same runs (`mamsim test --format json`), for the step timelines.")
    var results: String?

    @Option(name: .shortAndLong, help: "The HTML file to write.")
    var output: String = "mamsim-report.html"

    func run() throws {
        // One section per scenario named in the logs, in the order they appear; each log is
        // read a chunk at a time and folded, so memory does not grow with its length.
        var order: [String] = []
        var byScenario: [String: ReportHTML.AuditDigest] = [:]
        var total = 0
        for path in audits {
            let read: (lines: Int, events: Int, firstSkipped: String?)
            do {
                read = try ReportHTML.readAuditLog(at: path) { e in
                    if byScenario[e.scenario] == nil { order.append(e.scenario) }
                    byScenario[e.scenario, default: ReportHTML.AuditDigest()].add(e)
                }
            } catch {
                Terminal.error("\(path) cannot be read; name an audit log (JSON lines)")
                throw ExitCode(2)
            }
            if read.events == 0, read.lines > 0 {
                Terminal.error("\(path) holds no audit events (JSON objects, one per line); is it an audit log?")
                throw ExitCode(2)
            }
            if read.events < read.lines, let why = read.firstSkipped {
                Terminal.warning("\(path): \(read.lines - read.events) of \(read.lines) lines are not audit events this mamsim reads and are left out of the report (\(why))")
            }
            total += read.events
        }
        var document: SuiteDocument?
        if let results {
            guard let data = (try? InputFile.contents(of: URL(fileURLWithPath: results))) else {
                Terminal.error("\(results) cannot be read")
                throw ExitCode(2)
            }
            do { document = try JSONDecoder().decode(SuiteDocument.self, from: data) } catch {
                Terminal.error("\(results) is not a mamsim test JSON report: \(MergeCommand.describe(error))")
                throw ExitCode(2)
            }
        }
        let pages = order.map { name in
            let result = document?.scenarios.first { $0.name == name }
            return ReportHTML.ScenarioPage(name: name.isEmpty ? "(unnamed run)" : name, file: result?.file, status: result?.status,
                                           digest: byScenario[name] ?? ReportHTML.AuditDigest(), result: result)
        }
        let summary = "\(pages.count) scenario\(pages.count == 1 ? "" : "s"), \(total) audit events" + (document.map { ", \($0.passed) passed, \($0.failed) failed" } ?? "")
        try ReportFile.write(ReportHTML.page(title: "mamsim report", summary: summary, scenarios: pages), to: output)
        Terminal().line("HTML report: \(output) (\(summary))")
    }
}

/// `mamsim matrix POLICY.json [--fleet FLEET.yaml]`: what a Graph policy implies for a fleet,
/// without writing steps — every transfer, paste, save and open, decided by the enforcer.
struct MatrixCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "matrix", abstract: "Show the transfer, clipboard and save/open matrices a Graph policy implies for a fleet.",
        discussion: """
            The policy applies to the fleet's accounts that have a policy (or, if none has, to its first account); \
            a document without apps keeps the apps the scenario's policy lists. Without --fleet: the policy's \
            targeted apps (or two apps its appGroupType reaches) and one app without the SDK, with a work account \
            under the policy and a personal one.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json, html }

    @Argument(help: "A Graph iosManagedAppProtection document (or a collection of them: the first is used), or baseline:level-1, -2 or -3 (Microsoft's data protection framework for iOS, built in).", completion: .file(extensions: ["json"]))
    var policy: String

    @Option(help: "A scenario file whose apps, accounts and device are the fleet (its steps are ignored).", completion: .file(extensions: ["yaml", "yml", "json"]))
    var fleet: String?

    @Option(help: "table (terminal), json or html.")
    var format: Format = .table

    @Option(name: .shortAndLong, help: "Write here instead of standard output.")
    var output: String?

    @Option(name: .customLong("diff"), help: ArgumentHelp("An earlier Graph policy document, or a baseline (baseline:level-2): show only the cells whose decision changes from it to POLICY, each with the setting that changed it.", valueName: "OLD"),
            completion: .file(extensions: ["json"]))
    var diff: String?

    @Option(help: ArgumentHelp("With --diff: list each changed cell when at most N change, else one line per group of cells that change alike (N at most \(Self.maxCellsLimit)).", valueName: "N"))
    var maxCells: Int = 1000

    /// The most cells `--max-cells` lets a diff list one by one: each is decided twice more and
    /// held until written, and JSON writes about 12,000 a second (50,000 cells: 4 s, 350 MB).
    static let maxCellsLimit = 50_000

    func validate() throws {
        guard (0...Self.maxCellsLimit).contains(maxCells) else {
            throw ValidationError("--max-cells \(maxCells): give 0 to \(Self.maxCellsLimit); beyond, the groups of cells (--format json) name every app of each")
        }
    }

    func run() throws {
        let (chosen, raw) = try Self.load(policy)
        if let diff {
            let (old, oldRaw) = try Self.load(diff)
            return try runDiff(old: old, oldRaw: oldRaw, new: chosen, newRaw: raw, oldPath: diff)
        }
        let fleet = makeFleet(applying: chosen, apps: Self.defaultApps(chosen), scenario: try fleetScenario())
        warnIfUntargeted(fleet, chosen, path: policy)
        let matrix = PolicyMatrix.compute(for: fleet, now: Self.now)
        let text: String
        switch format {
        case .html:
            text = ReportHTML.page(title: "Policy matrix: \(chosen.displayName.isEmpty ? policy : chosen.displayName)",
                                   summary: "\(matrix.parties.count) app × identity pairs from \(policy)\(self.fleet.map { " on the fleet of \($0)" } ?? " on a default fleet")",
                                   scenarios: [], extraGrids: ReportHTML.grids(of: matrix))
        case .json:
            text = Self.json(matrix)
        case .table:
            text = Self.table(matrix)
        }
        try ReportFile.write(text, to: output)
        if let output { Terminal().line("\(format.rawValue) matrix: \(output)") }
    }

    static var now: Instant { Instant(secondsSince1970: Date().timeIntervalSince1970) }

    /// The first policy of a Graph document, and the document's JSON object it came from.
    static func load(_ path: String) throws -> (IosManagedAppProtection, [String: Any]) {
        let data: Data
        if path.hasPrefix("baseline:") {
            guard let document = Baselines.document(path) else {
                Terminal.error("\(path): no such baseline; use \(Baselines.names.map { "baseline:\($0)" }.joined(separator: ", ")) (Microsoft's data protection framework for iOS)")
                throw ExitCode(2)
            }
            data = Data(document.utf8)
        } else if let read = (try? InputFile.contents(of: URL(fileURLWithPath: path))) {
            data = read
        } else {
            Terminal.error("\(path) cannot be read; name a Graph policy document (JSON) or a baseline (\(Baselines.names.map { "baseline:\($0)" }.joined(separator: ", ")))")
            throw ExitCode(2)
        }
        let imported: PolicyImportResult
        do { imported = try GraphPolicyImporter.importPolicies([UInt8](data), source: path) } catch {
            Terminal.error(error)
            throw ExitCode(2)
        }
        guard let chosen = imported.policies.first else {
            Terminal.error("\(path) holds no iosManagedAppProtection policy")
            throw ExitCode(2)
        }
        for w in imported.warnings { Terminal.warning("\(w)") }
        var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        if let first = (object["value"] as? [[String: Any]])?.first { object = first }
        return (chosen, object)
    }

    /// Apps the policy targets: its list, else two of the apps its appGroupType reaches.
    static func defaultApps(_ p: IosManagedAppProtection) -> [BundleID] {
        !p.apps.isEmpty ? p.apps
            : p.appGroupType == .allCoreMicrosoftApps || p.appGroupType == .allMicrosoftApps
            ? [BundleID("com.microsoft.Office.Outlook"), BundleID("com.microsoft.Office.Word")]
            : [BundleID("com.contoso.mail"), BundleID("com.contoso.word")]
    }

    /// `--fleet`'s scenario with `chosen` applied to its accounts that have a policy (or its
    /// first), else a default fleet of `apps`, an app without the SDK, a work account under
    /// the policy and a personal one.
    /// `--fleet`'s scenario, read once for every fleet made from it.
    func fleetScenario() throws -> Scenario? {
        guard let path = self.fleet else { return nil }
        do { return try ScenarioLoader.load(file: URL(fileURLWithPath: path)) } catch {
            Terminal.error(error)
            throw ExitCode(2)
        }
    }

    func makeFleet(applying chosen: IosManagedAppProtection, apps: [BundleID], scenario: Scenario?) -> Fleet {
        Self.applying(chosen, to: baseFleet(apps: apps, scenario: scenario), scenario: scenario)
    }

    /// The fleet a policy is applied to: the scenario's, else `apps`, an app without the SDK, a
    /// work account (under no policy yet) and a personal one. Made once for every policy a
    /// diff applies.
    func baseFleet(apps: [BundleID], scenario: Scenario?) -> Fleet {
        if let scenario { return scenario.fleet }
        var fleet = Fleet()
        fleet.install(contentsOf: apps.map { AppDescriptor(bundleID: $0, multiIdentity: true) }
            + [AppDescriptor(bundleID: "com.example.notes", sdkIntegrated: false)])
        fleet.add(Self.workAccount)
        fleet.add(Account(upn: "user@outlook.com"))
        return fleet
    }

    static let workAccount = Account(upn: "user@contoso.com", oid: "00000000-0000-4000-8000-000000000001", tenant: "contoso.onmicrosoft.com")

    /// `base` with `chosen` applied to the scenario's accounts that have a policy (or its
    /// first), or to the default fleet's work account.
    static func applying(_ chosen: IosManagedAppProtection, to base: Fleet, scenario: Scenario?) -> Fleet {
        var fleet = base
        guard let scenario else {
            fleet.setPolicy(chosen, for: workAccount)
            return fleet
        }
        let targeted = scenario.accounts.filter { $0.policyName != nil }.map(\.account)
        for account in targeted.isEmpty ? Array(scenario.accounts.prefix(1).map(\.account)) : targeted {
            // A Graph export without its `apps` (they come only with $expand=apps) keeps
            // the apps the scenario's own policy lists, as the scenario's `apps:` does.
            var applied = chosen
            if applied.apps.isEmpty, !applied.appsListed, let own = scenario.fleet.policy(for: account) {
                applied.apps = own.apps
                applied.appsListed = own.appsListed
            }
            fleet.setPolicy(applied, for: account)
        }
        return fleet
    }

    func warnIfUntargeted(_ fleet: Fleet, _ chosen: IosManagedAppProtection, path: String) {
        let targeted = fleet.accounts.compactMap { fleet.policy(for: $0) }.flatMap { fleet.apps(targetedBy: $0) }
        if fleet.apps.values.contains(where: { $0.sdkIntegrated && !$0.isExtension }), fleet.accounts.contains(where: fleet.isManaged), targeted.isEmpty {
            Terminal.warning("\(path): the policy targets none of the fleet's SDK apps (appGroupType = \(chosen.appGroupType.rawValue), \(chosen.apps.count) listed apps): no policy applies anywhere; list the apps under the scenario policy's apps: or export the policy with $expand=apps")
        }
    }

    /// `ok`, or the reason code it is blocked for: short, so a grid fits a terminal.
    static func cell(_ d: Verdict) -> String { d.isAllowed ? "ok" : d.blockedBy!.rawValue }

    /// One block per grid: rows are parties, columns numbered (the key lists them).
    static func table(_ m: PolicyMatrix) -> String {
        var out: [String] = ["Cells: ok = allowed, else the reason it is blocked (docs/RULES.md §11); --format json or html explains each.", "", "Parties:"]
        for (i, p) in m.parties.enumerated() { out.append("  [\(i + 1)] \(p)") }
        func grid(_ title: String, _ columns: [String], _ values: [[Verdict]]) {
            out.append("")
            out.append(title)
            // Each column as wide as its header and its cells: a header is never cut
            // (`sharePoi`), and a column of `ok` stays narrow.
            let widths = columns.indices.map { j in max(columns[j].count, values.map { cell($0[j]).count }.max() ?? 0) }
            func line(_ head: String, _ texts: [String]) -> String {
                (head.padding(toLength: 13, withPad: " ", startingAt: 0)
                    + zip(texts, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: " "))
                    .replacingOccurrences(of: " +$", with: "", options: .regularExpression)
            }
            out.append(line("  from \\ to", columns))
            for (i, row) in values.enumerated() { out.append(line("  [\(i + 1)]", row.map(cell))) }
        }
        let numbers = m.parties.indices.map { "[\($0 + 1)]" }
        grid("Transfers (share):", numbers, m.transfers)
        grid("Files (Open in):", numbers, m.files)
        grid("Clipboard (copied in row, pasted in column):", numbers, m.clipboard)
        grid("Save to (same account):", m.saveLocations.map(\.rawValue), m.save)
        grid("Open from (same account):", m.openLocations.map(\.rawValue), m.open)
        grid("In the app (as the row's identity):", m.features.map(\.rawValue), m.feature)
        return UntrustedText.lines(out)
    }

    static func json(_ m: PolicyMatrix) -> String {
        func cells(_ values: [[Verdict]], columns: [String]) -> [[String: Any]] {
            values.enumerated().flatMap { i, row in
                row.enumerated().map { j, d in
                    var c: [String: Any] = ["from": m.parties[i].description, "to": columns[j], "allowed": d.isAllowed, "explanation": d.explanation]
                    if let r = d.blockedBy { c["reason"] = r.rawValue }
                    return c
                }
            }
        }
        let names = m.parties.map(\.description)
        let root: [String: Any] = [
            "schemaVersion": 1,
            "parties": m.parties.map { ["app": $0.app.rawValue, "identity": $0.identity] },
            "transfers": cells(m.transfers, columns: names), "files": cells(m.files, columns: names),
            "clipboard": cells(m.clipboard, columns: names),
            "save": cells(m.save, columns: m.saveLocations.map(\.rawValue)), "open": cells(m.open, columns: m.openLocations.map(\.rawValue)),
            "features": cells(m.feature, columns: m.features.map(\.rawValue)),
        ]
        let data = (try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

/// `mamsim schema`: the JSON Schema of scenario files, made from the loader's own tables (the
/// committed `schemas/scenario.schema.json` is this output; a test keeps them equal).
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema", abstract: "Print the JSON Schema of scenario files (for editors: # yaml-language-server: $schema=FILE).")

    @Option(name: .shortAndLong, help: "Write here instead of standard output.")
    var output: String?

    @Flag(name: .long, help: "Print the verb reference of docs/SCENARIOS.md (a Markdown table) instead of the schema.")
    var verbs = false

    @Flag(name: .long, help: "Print docs/GRAPH-COVERAGE.md: what mamsim does with each Graph iosManagedAppProtection property.")
    var graphCoverage = false

    func validate() throws {
        if verbs, graphCoverage { throw ValidationError("--verbs and --graph-coverage print different documents: give one") }
    }

    func run() throws {
        let text = graphCoverage ? GraphPolicyCoverage.markdown() : verbs ? ScenarioSchema.verbTable() : ScenarioSchema.json()
        // The same bytes to a file or to standard output, so `mamsim schema > FILE` makes the committed file.
        if let output { try ReportFile.write(text, to: output) } else { Terminal.emit(text, to: 1) }
    }
}
