import ArgumentParser
import Foundation
import MAMExtensions
import MAMModel
import MAMPolicy
import MAMScenario

/// `mamsim whatif POLICIES... --personas FILE`: offline, from a tenant's Graph exports, what
/// each persona's apps get — which app protection policy applies (assignments, exclusions,
/// filters, the apps it targets) or none and why, the token conditional access gives, the app
/// configuration received, and where the app's data may go.
struct WhatIfCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whatif", abstract: "Evaluate Graph exports (app protection, app configuration, conditional access, filters, groups) for personas, offline.",
        discussion: """
            POLICIES are Graph JSON files or folders of them (read recursively): iosManagedAppProtection with its \
            assignments, targetedManagedAppConfiguration, conditionalAccessPolicy, deviceAndAppManagementAssignmentFilter \
            and group objects, recognised by @odata.type or by their properties. Other objects are listed as skipped. \
            The personas file (YAML or JSON) is described in docs/WHATIF.md. Exit 0 when evaluated, 2 on bad input.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json, html }

    @Argument(help: "Graph JSON files or folders of them.", completion: .file(extensions: ["json"]))
    var policies: [String]

    @Option(help: "The personas file (YAML or JSON).", completion: .file(extensions: ["yaml", "yml", "json"]))
    var personas: String

    @Option(help: "table (terminal), json or html.")
    var format: Format = .table

    @Option(name: .shortAndLong, help: "Write here instead of standard output.")
    var output: String?

    func run() throws {
        let (loaded, notes) = try Self.loadPolicies(policies)
        let people: [WhatIfPersona]
        do { people = try PersonaLoader.load(file: URL(fileURLWithPath: personas)) } catch {
            Terminal.error("\(error)")
            throw ExitCode(2)
        }
        for note in notes { Terminal.warning(note) }
        let now = Instant(secondsSince1970: Date().timeIntervalSince1970)
        let results = people.map { WhatIf.evaluate($0, loaded, now: now) }
        let text: String
        switch format {
        case .table: text = WhatIfReport.table(results, loaded)
        case .json: text = WhatIfReport.json(results)
        case .html: text = WhatIfReport.html(results, sources: policies)
        }
        try ReportFile.write(text, to: output)
        if let output { Terminal().line("whatif \(format.rawValue): \(output) (\(results.count) persona\(results.count == 1 ? "" : "s"))") }
    }

    /// Every Graph document under `paths`, in path order, with the warnings and skipped objects
    /// to show; a document that does not import stops the command (exit 2), naming it.
    static func loadPolicies(_ paths: [String]) throws -> (WhatIfPolicies, [String]) {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                Terminal.error("\(path) does not exist; name Graph JSON files or folders of them")
                throw ExitCode(2)
            }
            if isDirectory.boolValue {
                let found = (FileManager.default.enumerator(atPath: path)?.compactMap { $0 as? String } ?? [])
                    .filter { $0.lowercased().hasSuffix(".json") }.sorted()
                files += found.map { (path as NSString).appendingPathComponent($0) }
            } else {
                files.append(path)
            }
        }
        var policies = WhatIfPolicies()
        var notes: [String] = []
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                Terminal.error("\(file) cannot be read")
                throw ExitCode(2)
            }
            do {
                let (warnings, skipped) = try policies.add(document: [UInt8](data), source: file)
                notes += warnings + skipped.map { "skipped \($0)" }
            } catch {
                Terminal.error("\(error)")
                throw ExitCode(2)
            }
        }
        if policies.protections.isEmpty { notes.append("no iosManagedAppProtection among \(files.count) file\(files.count == 1 ? "" : "s"): every app is unprotected") }
        for p in policies.protections where p.assignments.isEmpty {
            notes.append("policy \"\(p.title)\" has no assignments (export it with $expand=assignments): it applies to no persona")
        }
        return (policies, notes)
    }
}

/// How `whatif` results are written.
enum WhatIfReport {
    static func protection(_ p: WhatIfAppResult.Protection) -> String {
        switch p {
        case .policy(let name): "\"\(name)\""
        case .none: "none"
        case .conflict(let names): "CONFLICT between " + names.map { "\"\($0)\"" }.joined(separator: " and ")
        case .undetermined: "undetermined"
        }
    }

    static func verdict(_ v: Verdict) -> String { v.isAllowed ? "allowed" : "\(v.blockedBy!.rawValue)" }

    static func table(_ results: [WhatIfPersonaResult], _ policies: WhatIfPolicies) -> String {
        var out: [String] = []
        var conflicts = 0
        for r in results {
            let p = r.persona
            let device = p.device.mdmEnrolled ? "enrolled (\(p.managementType))" : "unenrolled"
            out.append("\(p.name): \(p.user.upn), groups [\(p.member.named.joined(separator: ", "))], \(device) iOS \(p.device.osVersion) \(p.device.model)")
            for a in r.apps {
                out.append("  \(a.app)")
                out.append("    app protection: \(protection(a.protection))")
                for e in a.evaluations {
                    let mark = e.applies == true ? "applies" : e.applies == false ? "no" : "?"
                    out.append("      \(mark): \"\(e.displayName)\" — \(e.reason)")
                }
                if case .conflict = a.protection { conflicts += 1 }
                out.append("    token (\(p.resource)): \(verdict(a.token)) — \(a.token.explanation)")
                for e in a.conditionalAccess where e.reportOnly && e.reason.hasPrefix("report-only: would") {
                    out.append("      report-only \"\(e.displayName)\": \(e.reason)")
                }
                if !a.appConfig.isEmpty {
                    out.append("    app config: " + a.appConfig.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))
                }
                let blocked = a.transfers.filter { !$0.verdict.isAllowed }.map(\.to)
                out.append("    share: \(a.transfers.count - blocked.count) of \(a.transfers.count) allowed" + (blocked.isEmpty ? "" : "; blocked to \(blocked.joined(separator: ", "))"))
                let paste = a.clipboard.filter { !$0.verdict.isAllowed }.map(\.to)
                out.append("    paste: \(a.clipboard.count - paste.count) of \(a.clipboard.count) allowed" + (paste.isEmpty ? "" : "; blocked in \(paste.joined(separator: ", "))"))
                out.append("    save: " + a.save.map { "\($0.to) \(verdict($0.verdict))" }.joined(separator: ", "))
                out.append("    features: " + a.features.map { "\($0.to) \(verdict($0.verdict))" }.joined(separator: ", "))
            }
        }
        if conflicts > 0 { out.append("\n\(conflicts) app\(conflicts == 1 ? "" : "s") under a CONFLICT. \(WhatIf.conflictRule)") }
        return out.joined(separator: "\n")
    }

    static func cells(_ cells: [WhatIfAppResult.Cell]) -> [[String: Any]] {
        cells.map { ["to": $0.to, "decision": verdict($0.verdict), "reason": $0.verdict.explanation] }
    }

    static func evaluation(_ e: WhatIfAppResult.PolicyEvaluation) -> [String: Any] {
        var d: [String: Any] = ["@odata.type": e.kind, "displayName": e.displayName, "policyApplies": e.applies as Any? ?? NSNull(),
                                "analysisReasons": e.analysisReasons.joined(separator: ","), "reason": e.reason]
        if !e.id.isEmpty { d["id"] = e.id }
        if e.reportOnly { d["state"] = "enabledForReportingButNotEnforced" }
        return d
    }

    static func object(_ results: [WhatIfPersonaResult]) -> [String: Any] {
        ["personas": results.map { r -> [String: Any] in
            ["name": r.persona.name, "user": r.persona.user.upn, "groups": r.persona.member.named,
             "apps": r.apps.map { a -> [String: Any] in
                var protection: [String: Any] = ["value": a.evaluations.map(evaluation)]
                switch a.protection {
                case .policy(let n): protection["result"] = "applied"; protection["policy"] = n
                case .none: protection["result"] = "none"
                case .conflict(let names): protection["result"] = "conflict"; protection["policies"] = names; protection["rule"] = WhatIf.conflictRule
                case .undetermined: protection["result"] = "undetermined"
                }
                return ["app": a.app.rawValue, "appProtection": protection,
                        "conditionalAccess": ["resource": r.persona.resource, "token": verdict(a.token), "reason": a.token.explanation,
                                              "value": a.conditionalAccess.map(evaluation)],
                        "appConfig": a.appConfig, "transfers": cells(a.transfers), "clipboard": cells(a.clipboard),
                        "save": cells(a.save), "open": cells(a.open), "features": cells(a.features)]
            }]
        }]
    }

    static func json(_ results: [WhatIfPersonaResult]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object(results), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func html(_ results: [WhatIfPersonaResult], sources: [String]) -> String {
        let esc = LintFormat.escapeXML
        var rows = ""
        for r in results {
            for a in r.apps {
                let why = a.evaluations.map { "\($0.applies == true ? "✓" : $0.applies == false ? "✗" : "?") \(esc($0.displayName)): \(esc($0.reason))" }.joined(separator: "<br>")
                let blocked = a.transfers.filter { !$0.verdict.isAllowed }.map(\.to)
                rows += "<tr><td>\(esc(r.persona.name))</td><td>\(esc(a.app.rawValue))</td><td>\(esc(protection(a.protection)))<div class=why>\(why)</div></td>"
                    + "<td>\(esc(verdict(a.token)))<div class=why>\(esc(a.token.explanation))</div></td>"
                    + "<td>\(esc(a.appConfig.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")))</td>"
                    + "<td>\(a.transfers.count - blocked.count)/\(a.transfers.count) allowed<div class=why>\(esc(blocked.isEmpty ? "" : "blocked: " + blocked.joined(separator: ", ")))</div></td></tr>\n"
            }
        }
        return """
            <!doctype html><html><head><meta charset="utf-8"><title>mamsim whatif</title>
            <style>body{font-family:system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .5em;vertical-align:top;text-align:left}.why{color:#555;font-size:.85em}</style></head>
            <body><h1>What if</h1><p>\(results.count) personas from \(esc(sources.joined(separator: ", ")))</p>
            <table><tr><th>Persona</th><th>App</th><th>App protection</th><th>Token</th><th>App config</th><th>Share</th></tr>
            \(rows)</table></body></html>
            """
    }
}
