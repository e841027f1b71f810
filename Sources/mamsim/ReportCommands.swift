import ArgumentParser
import Foundation
import MAMDeviceState
import MAMModel
import MAMPolicy
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
            let read: (lines: Int, events: Int)
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
            total += read.events
        }
        var document: SuiteDocument?
        if let results {
            guard let data = FileManager.default.contents(atPath: results) else {
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
            The policy applies to the fleet's accounts that have a policy (or, if none has, to its first account). \
            Without --fleet: the policy's targeted apps (or two SDK apps) and one app without the SDK, with a work \
            account under the policy and a personal one.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json, html }

    @Argument(help: "A Graph iosManagedAppProtection document (or a collection of them: the first is used).")
    var policy: String

    @Option(help: "A scenario file whose apps, accounts and device are the fleet (its steps are ignored).")
    var fleet: String?

    @Option(help: "table (terminal), json or html.")
    var format: Format = .table

    @Option(name: .shortAndLong, help: "Write here instead of standard output.")
    var output: String?

    func run() throws {
        guard let data = FileManager.default.contents(atPath: policy) else {
            Terminal.error("\(policy) cannot be read; name a Graph policy document (JSON)")
            throw ExitCode(2)
        }
        let imported: PolicyImportResult
        do { imported = try GraphPolicyImporter.importPolicies([UInt8](data), source: policy) } catch {
            Terminal.error("\(error)")
            throw ExitCode(2)
        }
        guard let chosen = imported.policies.first else {
            Terminal.error("\(policy) holds no iosManagedAppProtection policy")
            throw ExitCode(2)
        }
        for w in imported.warnings { Terminal.warning("\(w)") }
        var fleet: Fleet
        if let path = self.fleet {
            let scenario: Scenario
            do { scenario = try ScenarioLoader.load(file: URL(fileURLWithPath: path)) } catch {
                Terminal.error("\(error)")
                throw ExitCode(2)
            }
            fleet = scenario.fleet
            let targeted = scenario.accounts.filter { $0.policyName != nil }.map(\.account)
            for account in targeted.isEmpty ? Array(scenario.accounts.prefix(1).map(\.account)) : targeted {
                fleet.setPolicy(chosen, for: account)
            }
        } else {
            fleet = Fleet()
            let apps = chosen.apps.isEmpty ? [BundleID("com.contoso.mail"), BundleID("com.contoso.word")] : chosen.apps
            for app in apps { fleet.install(AppDescriptor(bundleID: app, multiIdentity: true)) }
            fleet.install(AppDescriptor(bundleID: "com.example.notes", sdkIntegrated: false))
            fleet.add(Account(upn: "user@contoso.com", oid: "00000000-0000-4000-8000-000000000001", tenant: "contoso.onmicrosoft.com"), policy: chosen)
            fleet.add(Account(upn: "user@outlook.com"))
        }
        let matrix = PolicyMatrix.compute(for: fleet)
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

    static func cell(_ d: Decision) -> String { d.isAllowed ? "allowed" : "blocked:\(d.blockedBy!.rawValue)" }

    /// One block per grid: rows are parties, columns numbered (the key lists them).
    static func table(_ m: PolicyMatrix) -> String {
        var out: [String] = ["Parties:"]
        for (i, p) in m.parties.enumerated() { out.append("  [\(i + 1)] \(p)") }
        func grid(_ title: String, _ columns: [String], _ values: [[Decision]]) {
            out.append("")
            out.append(title)
            let width = max(8, values.flatMap { $0.map { cell($0).count } }.max() ?? 8)
            out.append("  from \\ to  " + columns.map { $0.padding(toLength: width, withPad: " ", startingAt: 0) }.joined(separator: " "))
            for (i, row) in values.enumerated() {
                out.append("  [\(i + 1)]".padding(toLength: 13, withPad: " ", startingAt: 0) + row.map { cell($0).padding(toLength: width, withPad: " ", startingAt: 0) }.joined(separator: " "))
            }
        }
        let numbers = m.parties.indices.map { "[\($0 + 1)]" }
        grid("Transfers (share):", numbers, m.transfers)
        grid("Files (Open in):", numbers, m.files)
        grid("Clipboard (copied in row, pasted in column):", numbers, m.clipboard)
        grid("Save to (same account):", m.saveLocations.map(\.rawValue), m.save)
        grid("Open from (same account):", m.openLocations.map(\.rawValue), m.open)
        return out.joined(separator: "\n")
    }

    static func json(_ m: PolicyMatrix) -> String {
        func cells(_ values: [[Decision]], columns: [String]) -> [[String: Any]] {
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
        ]
        let data = (try? JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
