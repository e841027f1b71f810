import ArgumentParser
import Foundation
import MAMExtensions
import MAMDeviceState
import MAMModel
import MAMPolicy

/// One self-contained HTML page (no script, no network: it works opened from disk) answering
/// "what can flow where, and why?": per scenario the fleet and its identities, a transfer
/// matrix (from app × identity to app × identity), the clipboard, save-to and open-from grids,
/// and the step timeline; a suite summary with links. Tables are real tables with header
/// cells; every cell says its outcome in words, colour only repeats it.
enum ReportHTML {
    /// A grid to draw: row and column headers, and at most one cell per pair.
    struct Grid {
        var id: String
        var caption: String
        var corner: String
        var rows: [String]
        var columns: [String]
        var cells: [Int: [Int: Cell]] = [:]

        private var rowIndex: [String: Int] = [:]
        private var columnIndex: [String: Int] = [:]

        init(id: String, caption: String, corner: String, rows: [String], columns: [String]) {
            (self.id, self.caption, self.corner) = (id, caption, corner)
            self.rows = []
            self.columns = []
            for r in rows { _ = index(of: r, in: &self.rows, &rowIndex) }
            for c in columns { _ = index(of: c, in: &self.columns, &columnIndex) }
        }

        private func index(of name: String, in names: inout [String], _ index: inout [String: Int]) -> Int {
            if let i = index[name] { return i }
            names.append(name)
            index[name] = names.count - 1
            return names.count - 1
        }

        mutating func add(row: String, column: String, _ entry: Cell.Entry) {
            let r = index(of: row, in: &rows, &rowIndex)
            let c = index(of: column, in: &columns, &columnIndex)
            cells[r, default: [:]][c, default: Cell()].add(entry)
        }
    }

    /// What happened (or would happen) between a row and a column.
    struct Cell {
        struct Entry {
            var outcome: AuditDecision
            var reason: Reason?
            var explanation: String
            /// The step behind it, when it comes from a run.
            var step: String
        }

        /// The first entries, for the cell's details (a long log keeps only these).
        var entries: [Entry] = []
        /// Every entry the cell was given.
        var count = 0
        /// The cell's verdict: blocked or failed wins over allowed, so a pair that was refused
        /// once shows it (the first such entry).
        var worst: Entry?
        static let detailed = 20

        mutating func add(_ entry: Entry) {
            count += 1
            if entries.count < Self.detailed { entries.append(entry) }
            func rank(_ e: Entry) -> Int { e.outcome.isBlocked ? 2 : e.outcome.isDone ? 0 : 1 }
            if worst == nil || rank(entry) > rank(worst!) { worst = entry }
        }
    }

    /// One scenario's part of the page.
    struct ScenarioPage {
        var name: String
        var file: String?
        var status: String?
        var digest: AuditDigest
        var result: SuiteDocument.Scenario?
    }

    /// A scenario's audit events folded as they are read: the fleet and the grids. Memory is
    /// bound by the fleet and the grids' details, never by the log's length.
    struct AuditDigest {
        var events = 0
        var grids: [Grid] = [
            Grid(id: "transfers", caption: "Transfers (share, Open in): from app × identity to app × identity", corner: "from \\ to", rows: [], columns: []),
            Grid(id: "clipboard", caption: "Clipboard: copied in (row), pasted in (column)", corner: "copied in \\ pasted in", rows: [], columns: []),
            Grid(id: "save", caption: "Save to: app × identity (row), location (column)", corner: "app \\ location", rows: [], columns: []),
            Grid(id: "open", caption: "Open from: app × identity (row), location (column)", corner: "app \\ location", rows: [], columns: []),
        ]
        /// The enrollment lifecycle as it happened (SCENARIOS.md v1.3): enrollments, check-ins,
        /// unenrollments and wipes, in order.
        var lifecycle: [AuditEvent] = []
        private var lastCopy: String?
        private var identities: [String: [String]] = [:]
        private var order: [String] = []

        /// The apps and the identities each acted as.
        var fleet: [(app: String, identities: [String])] { order.map { ($0, identities[$0]!) } }

        mutating func add(_ e: AuditEvent) {
            events += 1
            if e.verb.sourceIsApp { note(e.sourceApp, e.sourceIdentity) }
            if e.verb.destinationIsApp { note(e.destinationApp, e.destinationIdentity) }
            let from = ReportHTML.party(e.sourceApp, e.sourceIdentity)
            let entry = Cell.Entry(outcome: e.decision, reason: e.reason, explanation: e.explanation, step: e.step)
            switch e.verb {
            case .share: grids[0].add(row: from, column: ReportHTML.party(e.destinationApp, e.destinationIdentity), entry)
            case .copy: lastCopy = from
            case .paste: grids[1].add(row: lastCopy ?? "(nothing copied)", column: from, entry)
            case .save: grids[2].add(row: from, column: e.destinationApp, entry)
            case .open: grids[3].add(row: from, column: e.destinationApp, entry)
            case .enroll, .checkIn, .unenroll, .wipe, .setLicense, .serviceFault: lifecycle.append(e)
            default: break
            }
        }

        private mutating func note(_ app: String, _ identity: String) {
            guard !app.isEmpty else { return }
            if identities[app] == nil { order.append(app); identities[app] = [] }
            let id = identity.isEmpty ? ReportHTML.noAccount : identity
            if !identities[app]!.contains(id) { identities[app]!.append(id) }
        }
    }

    static func outcomeClass(_ outcome: AuditDecision) -> String {
        outcome.isDone ? "ok" : outcome.isBlocked ? "blocked" : "failed"
    }

    static func label(_ e: Cell.Entry) -> String {
        switch outcomeClass(e.outcome) {
        case "ok": "✔ \(e.outcome)"
        case "blocked": "✘ blocked" + (e.reason.map { ": \($0.rawValue)" } ?? "")
        default: "⚠ \(e.outcome.rawValue)" + (e.reason.map { ": \($0.rawValue)" } ?? "")
        }
    }

    // MARK: From a run's audit log

    static func party(_ app: String, _ identity: String) -> String { "\(app) (\(identity.isEmpty ? noAccount : identity))" }

    /// An app acting with no identity, as every output names it.
    static let noAccount = PolicyMatrix.noAccount

    // MARK: From a policy

    /// The grids `mamsim matrix` draws from a `PolicyMatrix`.
    static func grids(of matrix: PolicyMatrix) -> [Grid] {
        let names = matrix.parties.map { party($0.app.rawValue, $0.account?.upn ?? "") }
        func grid(_ id: String, _ caption: String, _ corner: String, _ columns: [String], _ values: [[Verdict]]) -> Grid {
            var g = Grid(id: id, caption: caption, corner: corner, rows: names, columns: columns)
            for (i, row) in values.enumerated() {
                for (j, d) in row.enumerated() {
                    g.add(row: names[i], column: columns[j], Cell.Entry(outcome: AuditDecision(d),
                                                                       reason: d.blockedBy, explanation: d.explanation, step: ""))
                }
            }
            return g
        }
        return [
            grid("transfers", "Transfers (share): owner's app × identity to receiving app × identity", "from \\ to", names, matrix.transfers),
            grid("files", "Files (Open in): owner's app × identity to receiving app × identity", "from \\ to", names, matrix.files),
            grid("clipboard", "Clipboard: copied in (row), pasted in (column)", "copied in \\ pasted in", names, matrix.clipboard),
            grid("save", "Save to a location of the same account", "app \\ location", matrix.saveLocations.map(\.rawValue), matrix.save),
            grid("open", "Open from a location of the same account", "app \\ location", matrix.openLocations.map(\.rawValue), matrix.open),
            grid("features", "In the app: printing, notifications, screen capture, every switch the app asks the SDK, every OS surface, web links, conditional launch", "app \\ switch", matrix.features.map(\.rawValue), matrix.feature),
        ]
    }

    // MARK: Rendering

    static let style = """
        body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem;color:#1b1b1b;background:#fff}
        h1{font-size:1.6rem}h2{font-size:1.3rem;margin-top:2.5rem;border-top:1px solid #ccc;padding-top:1rem}h3{font-size:1.05rem}
        table{border-collapse:collapse;margin:.5rem 0 1.5rem}caption{text-align:left;font-weight:600;padding:.3rem 0}
        th,td{border:1px solid #999;padding:.3rem .45rem;vertical-align:top;text-align:left}
        thead th{background:#eee}th[scope=row]{background:#f6f6f6;white-space:nowrap}
        td.ok{background:#e3f4e1}td.blocked{background:#fbe0de}td.failed{background:#fff1c9}td.none{color:#777}
        details summary{cursor:pointer;font-weight:600}details ul{margin:.3rem 0 0 1rem;padding:0;max-width:32rem}
        .legend span{display:inline-block;margin-right:1rem;padding:.1rem .4rem;border:1px solid #999}
        .legend .ok{background:#e3f4e1}.legend .blocked{background:#fbe0de}.legend .failed{background:#fff1c9}
        .scroll{max-width:100%;overflow-x:auto}td,th{overflow-wrap:normal;word-break:normal;hyphens:none}
        td[data-expectation=failed]{outline:3px solid #b00020;outline-offset:-3px}
        #failures{border:2px solid #b00020;padding:.5rem 1rem;background:#fff5f5}#failures li{margin:.3rem 0}#failures h2{margin:.3rem 0;border:0;padding:0}
        tr.unexpected th,tr.unexpected td{background:#fbe0de}footer{margin-top:3rem;color:#555;font-size:.9rem}
        """

    /// How the audit log names a step: its name, else `step N` (as the runner sets it).
    static func auditName(_ step: SuiteDocument.Step) -> String { step.name ?? "step \(step.index)" }

    /// Why a scenario could not run, when it could not.
    static func errorReason(_ s: ScenarioPage) -> String? { s.result.flatMap { $0.error ?? $0.fleetError } }

    static func page(title: String, summary: String, scenarios: [ScenarioPage], extraGrids: [Grid] = []) -> String {
        let esc = UntrustedText.xml
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>\(esc(title))</title><style>\(style)</style></head><body>
            <h1>\(esc(title))</h1>
            <p>\(esc(summary))</p>

            """
        html += failures(scenarios)
        html += "<p class=\"legend\">Cells: <span class=\"ok\">✔ allowed or delivered</span><span class=\"blocked\">✘ blocked: reason</span><span class=\"failed\">⚠ failed: reason</span> — a red frame marks a cell whose step's expectation failed; open a cell for the explanation and the steps behind it. \"no account\": the app acted with no identity (an app without the SDK, or one nobody is signed in to); a personal account is named by its address like a managed one.</p>\n"
        if scenarios.count > 1 {
            html += "<div class=\"scroll\"><table id=\"suite\"><caption>Scenarios</caption><thead><tr><th scope=\"col\">scenario</th><th scope=\"col\">result</th><th scope=\"col\">steps</th><th scope=\"col\">file</th></tr></thead><tbody>\n"
            for (i, s) in scenarios.enumerated() {
                let status = s.status ?? "run"
                let failed = s.result?.steps.filter { !$0.passed && $0.expected != nil }.count ?? 0
                let result = errorReason(s).map { "error: \($0)" } ?? (failed > 0 ? "\(status): \(failed) expectation\(failed == 1 ? "" : "s") failed" : status)
                html += "<tr><th scope=\"row\"><a href=\"#scenario-\(i + 1)\">\(esc(s.name))</a></th><td class=\"\(status == "passed" ? "ok" : status == "run" ? "none" : "blocked")\">\(esc(result))</td><td>\(s.result?.steps.count ?? 0)</td><td>\(esc(s.file ?? ""))</td></tr>\n"
            }
            html += "</tbody></table></div>\n"
        }
        for grid in extraGrids { html += render(grid, prefix: "policy") }
        for (i, s) in scenarios.enumerated() {
            // One scenario on its own page is named by the page's title already.
            let heading = scenarios.count > 1 || s.name != title ? "<h2>\(esc(s.name))</h2>" : ""
            html += "<section id=\"scenario-\(i + 1)\" data-scenario=\"\(esc(s.name))\">\(heading)\n"
            if let file = s.file { html += "<p>File: <code>\(esc(file))</code>\(s.status.map { " — <strong>\(esc($0))</strong>" } ?? "")</p>\n" }
            if let why = errorReason(s) { html += "<p><strong>Could not run:</strong> \(esc(why))</p>\n" }
            let fleet = s.digest.fleet
            if !fleet.isEmpty {
                html += "<h3>Fleet and identities</h3><ul>" + fleet.map { "<li><code>\(esc($0.app))</code>: \(esc($0.identities.joined(separator: ", ")))</li>" }.joined() + "</ul>\n"
            }
            let failedSteps = Set((s.result?.steps ?? []).filter { !$0.passed && $0.expected != nil }.map(auditName))
            for grid in s.digest.grids where !grid.rows.isEmpty {
                html += render(grid, prefix: "s\(i + 1)", failedSteps: failedSteps)
            }
            html += lifecycleTimeline(s.digest.lifecycle)
            html += strictFindings(s.result?.strict ?? [], anchor: "s\(i + 1)")
            if let result = s.result { html += timeline(result, anchor: "s\(i + 1)") }
            html += "</section>\n"
        }
        let date = ISO8601DateFormatter().string(from: Date())
        return html + "<footer>mamsim \(esc(mamsimVersion)), \(esc(date))</footer>\n</body></html>\n"
    }

    /// What failed, before anything else: each expectation that did not hold (expected, got,
    /// why, a link to its step) and each scenario that could not run, with the reason.
    static func failures(_ scenarios: [ScenarioPage]) -> String {
        let esc = UntrustedText.xml
        var items: [String] = []
        var expectations = 0
        for (i, s) in scenarios.enumerated() {
            let name = scenarios.count > 1 ? "\(esc(s.name)): " : ""
            if let why = errorReason(s) {
                items.append("<li>\(name)<a href=\"#scenario-\(i + 1)\">could not run</a> — \(esc(why))</li>")
            }
            for step in s.result?.steps ?? [] where !step.passed && step.expected != nil {
                expectations += 1
                items.append("<li>\(name)<a href=\"#s\(i + 1)-step-\(step.index)\">step \(step.index)</a> \(esc(step.title)) (line \(step.line)): expected <code>\(esc(step.expected ?? ""))</code>, got <code>\(esc(step.outcome))</code> — \(esc(step.explanation))</li>")
            }
        }
        var mistakes = 0
        for (i, s) in scenarios.enumerated() {
            let name = scenarios.count > 1 ? "\(esc(s.name)): " : ""
            for f in s.result?.strict ?? [] where f.failed {
                mistakes += 1
                items.append("<li>\(name)<a href=\"#s\(i + 1)-strict\">Strict Mode</a>: <code>\(esc(f.check))</code>\(f.file.isEmpty ? "" : " at <code>\(esc(f.file)):\(f.line)</code>") in \(esc(f.app)) (<code>\(esc(f.call))</code>) — \(esc(f.detail))</li>")
            }
        }
        guard !items.isEmpty else { return "" }
        let errored = scenarios.filter { errorReason($0) != nil }.count
        var head: [String] = []
        if expectations > 0 { head.append("\(expectations) expectation\(expectations == 1 ? "" : "s") failed") }
        if mistakes > 0 { head.append("\(mistakes) integration mistake\(mistakes == 1 ? "" : "s") (Strict Mode)") }
        if errored > 0 { head.append("\(errored) scenario\(errored == 1 ? "" : "s") could not run") }
        return "<section id=\"failures\"><h2>Failures: \(head.joined(separator: ", "))</h2><ol>\n" + items.joined(separator: "\n") + "\n</ol></section>\n"
    }

    /// Strict Mode's findings of a scenario (docs/STRICT.md): each with its check, place, app,
    /// call and detail, marked failed (under `--strict`), a note, or suppressed with the reason.
    static func strictFindings(_ findings: [SuiteDocument.StrictFinding], anchor: String) -> String {
        guard !findings.isEmpty else { return "" }
        let esc = UntrustedText.xml
        let items = findings.map { f -> String in
            let state = f.failed ? "<span class=\"blocked\">✘ failed</span>"
                : f.suppressedBecause.map { "<span class=\"none\">suppressed: \(esc($0))</span>" } ?? "<span class=\"none\">note (not --strict)</span>"
            let place = f.file.isEmpty ? "" : " at <code>\(esc(f.file)):\(f.line)</code>"
            return "<li>\(state) <code>\(esc(f.check))</code>\(place) in \(esc(f.app)) (<code>\(esc(f.call))</code>): \(esc(f.detail))</li>"
        }
        return "<h3 id=\"\(anchor)-strict\">Strict Mode</h3><ul>\n" + items.joined(separator: "\n") + "\n</ul>\n"
    }

    /// `failedSteps`: the audit names of the steps whose expectation failed; their cells are
    /// framed and say so, so a run whose expected blocks were delivered does not look green.
    static func render(_ grid: Grid, prefix: String, failedSteps: Set<String> = []) -> String {
        let esc = UntrustedText.xml
        var html = "<div class=\"scroll\"><table class=\"matrix\" id=\"\(prefix)-\(grid.id)\" data-grid=\"\(grid.id)\"><caption>\(esc(grid.caption))</caption>\n<thead><tr><th scope=\"col\">\(esc(grid.corner))</th>"
        html += grid.columns.map { "<th scope=\"col\">\(esc($0))</th>" }.joined() + "</tr></thead><tbody>\n"
        for (r, row) in grid.rows.enumerated() {
            html += "<tr><th scope=\"row\">\(esc(row))</th>"
            for (c, column) in grid.columns.enumerated() {
                guard let cell = grid.cells[r]?[c], let worst = cell.worst else {
                    html += "<td class=\"none\" data-from=\"\(esc(row))\" data-to=\"\(esc(column))\">—</td>"
                    continue
                }
                let cls = outcomeClass(worst.outcome)
                let details = cell.entries.map { e in
                    "<li>\(e.step.isEmpty ? "" : "<strong>\(esc(e.step))</strong>: ")\(esc(label(e))) — \(esc(e.explanation))</li>"
                }.joined()
                let unexpected = cell.entries.first { failedSteps.contains($0.step) }
                html += "<td class=\"\(cls)\" data-from=\"\(esc(row))\" data-to=\"\(esc(column))\" data-outcome=\"\(esc(worst.outcome.rawValue))\" data-reason=\"\(esc(worst.reason?.rawValue ?? ""))\"\(unexpected == nil ? "" : " data-expectation=\"failed\"") title=\"\(esc(worst.explanation))\">"
                let more = cell.count > cell.entries.count ? "<li>… and \(cell.count - cell.entries.count) more</li>" : ""
                let flag = unexpected.map { "⚠ expectation failed (\(esc($0.step))) · " } ?? ""
                html += "<details><summary>\(flag)\(esc(label(worst)))\(cell.count > 1 ? " (\(cell.count))" : "")</summary><ul>\(details)\(more)</ul></details></td>"
            }
            html += "</tr>\n"
        }
        return html + "</tbody></table></div>\n"
    }

    /// Reads an audit log (`AuditEvent`s as JSON lines, as the device writes them) a chunk at
    /// a time, giving each event to `body`; a line that is not one is skipped, a line longer
    /// than 1 MiB too. Returns the number of lines and of events read, and why the first
    /// skipped line was (its number and the decoder's reason).
    @discardableResult
    static func readAuditLog(at path: String, _ body: (AuditEvent) -> Void) throws -> (lines: Int, events: Int, firstSkipped: String?) {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let decoder = JSONDecoder()
        var pending = Data()
        var skipping = false
        var lines = 0, events = 0
        var firstSkipped: String?
        func line(_ bytes: Data) {
            guard !bytes.isEmpty else { return }
            lines += 1
            do {
                body(try decoder.decode(AuditEvent.self, from: bytes))
                events += 1
            } catch {
                if firstSkipped == nil { firstSkipped = "line \(lines): \(MergeCommand.describe(error))" }
            }
        }
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            var start = chunk.startIndex
            while let newline = chunk[start...].firstIndex(of: 0x0A) {
                if skipping { skipping = false } else { pending.append(chunk[start..<newline]); line(pending) }
                pending.removeAll(keepingCapacity: true)
                start = chunk.index(after: newline)
            }
            if !skipping { pending.append(chunk[start...]) }
            if pending.count > 1 << 20 {
                pending.removeAll()
                skipping = true
            }
        }
        if !skipping { line(pending) }
        return (lines, events, firstSkipped)
    }

    /// The digest of one run's audit log (a missing file is an empty digest).
    static func digest(ofAuditLog url: URL?) -> AuditDigest {
        var digest = AuditDigest()
        if let url { _ = try? readAuditLog(at: url.path) { digest.add($0) } }
        return digest
    }
}
