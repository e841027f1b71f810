public import MAMModel
import MAMPolicy

/// `whatif --format html`: pages an admin can share — a summary first (who gets what; who a
/// change affects, and by which change), then every column of the table, laid out to be read in
/// a 1,400 px window (the columns wrap, the page never scrolls sideways). Self-contained: no
/// script, no link out. Every text is the input's or derived from it, escaped.
public enum WhatIfHTML {
    public static let esc = UntrustedText.xml

    static let style = """
        body{font-family:system-ui,sans-serif;margin:1.2em;max-width:1360px;color:#222}
        table{border-collapse:collapse;width:100%;table-layout:fixed;margin-bottom:1.5em}
        td,th{border:1px solid #ccc;padding:.3em .45em;vertical-align:top;text-align:left;overflow-wrap:anywhere;font-size:.86em}
        th{background:#f3f3f3}.why{color:#555;font-size:.9em}.n{white-space:nowrap}
        .allowed{background:#eef8ee}.blocked{background:#fbecec}.depends{background:#fff6d5}.fail{background:#fbecec;font-weight:600}
        details>summary{cursor:pointer}ul{margin:.2em 0;padding-left:1.1em}
        """

    static func page(title: String, body: String) -> String { pageHead(title: title) + body + pageTail }

    /// A page up to its body's text, and after it: what a page streamed in pieces writes first
    /// and last.
    static func pageHead(title: String) -> String {
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>\(esc(title))</title><style>\(style)</style></head><body>"
    }
    static let pageTail = "</body></html>\n"

    /// A grid's cells in a table cell: how many are allowed, and each blocked one with why.
    static func cells(_ cells: [WhatIfAppResult.Cell], of r: WhatIfPersonaResult) -> String {
        let blocked = cells.filter { !$0.isAllowed }
        let head = "<span class=n>\(cells.count - blocked.count) of \(cells.count) allowed</span>"
        guard !blocked.isEmpty else { return head }
        return "<details><summary>\(head)</summary><ul>" + blocked.map { "<li>\(esc(r.text($0.to))): \(esc(WhatIfReport.verdict($0)))</li>" }.joined() + "</ul></details>"
    }

    static func tokenClass(_ t: WhatIfToken) -> String { t.depends ? "depends" : t.isAllowed ? "allowed" : "blocked" }

    /// The evaluation: a summary row per persona, then a row per persona and app.
    public static func evaluation(_ results: [WhatIfPersonaResult], sources: [String]) -> String {
        let parts = results.map(rows)
        return evaluationPage(personas: results.count, apps: results.reduce(0) { $0 + $1.persona.apps.count }, sources: sources,
                              summary: parts.map(\.summary).joined(), rows: parts.map(\.apps).joined())
    }

    /// One persona's rows: its summary row, and a row per app.
    public static func rows(_ r: WhatIfPersonaResult) -> (summary: String, apps: String) {
        let p = r.persona, apps = r.apps
        let protected = apps.filter { if case .policy = $0.protection { true } else if case .conflict = $0.protection { true } else { false } }.count
        let notEvaluated = apps.contains { if case .notEvaluated = $0.protection { true } else { false } }
        let tokens = Dictionary(grouping: apps, by: { $0.token.word }).map { "\($0.value.count) \($0.key)" }.sorted().joined(separator: ", ")
        func count(_ grid: (WhatIfAppResult) -> [WhatIfAppResult.Cell]) -> String {
            guard !notEvaluated else { return "not evaluated" }
            let all = apps.flatMap(grid)
            return "\(all.filter(\.isAllowed).count) of \(all.count) allowed"
        }
        let device = "\(p.device.mdmEnrolled ? "enrolled (\(p.managementType))" : "unenrolled") \(p.device.platform) \(p.device.osVersion)" + (p.device.model.isEmpty ? "" : " \(p.device.model)")
        let summary = "<tr><td>\(esc(p.name))</td><td>\(esc(p.user.upn))<div class=why>\(esc(p.member.named.joined(separator: ", ")))</div></td><td>\(esc(device))</td>"
            + "<td>\(notEvaluated ? "not evaluated" : "\(protected) of \(apps.count) apps")</td><td>\(esc(tokens))</td>"
            + "<td>\(count(\.transfers))</td><td>\(count(\.clipboard))</td><td>\(count(\.save))</td><td>\(count(\.features))</td></tr>\n"
        var rows = ""
        for a in apps {
            let why = a.evaluations.map { "\($0.applies == true ? "✓" : $0.applies == false ? "✗" : "?") \(esc($0.displayName)): \(esc(r.text($0.reason)))" }.joined(separator: "<br>")
            let ca = a.conditionalAccess.filter { !$0.disabled && $0.applies != false }
                .map { "\($0.reportOnly ? "report-only" : $0.applies == nil ? "depends" : "applies") \(esc($0.displayName)): \(esc(r.text($0.reason)))" }.joined(separator: "<br>")
            let config = a.appConfig.sorted { $0.key < $1.key }.map { "\(esc($0.key))=\(esc(r.text($0.value)))" }.joined(separator: "<br>")
            let grids: String
            if case .notEvaluated = a.protection {
                grids = "<td colspan=5>not evaluated (see app protection)</td>"
            } else {
                grids = [a.transfers, a.clipboard, a.save, a.open, a.features].map { "<td>\(cells($0, of: r))</td>" }.joined()
            }
            rows += "<tr><td>\(esc(p.name))</td><td>\(esc(a.app.rawValue))</td>"
                + "<td><details><summary>\(esc(a.protection.description))</summary><div class=why>\(why)</div></details></td>"
                + "<td class=\(tokenClass(a.token))><details><summary>\(esc(a.token.word))</summary><div class=why>\(esc(r.text(a.token.explanation)))\(ca.isEmpty ? "" : "<br>" + ca)</div></details></td>"
                + "<td>\(config)</td>\(grids)</tr>\n"
        }
        return (summary, rows)
    }

    /// The evaluation's page from its personas' rows (a shard's, or all of them).
    public static func evaluationPage(personas: Int, apps: Int, sources: [String], summary: String, rows: String) -> String {
        let frame = evaluationFrame(personas: personas, apps: apps, sources: sources)
        return frame.head + summary + frame.middle + rows + frame.tail
    }

    /// The evaluation's page around its rows: before the summary rows, between them and the
    /// app rows, and after those (`mamsim merge` streams each part's rows into it).
    public static func evaluationFrame(personas: Int, apps: Int, sources: [String]) -> (head: String, middle: String, tail: String) {
        let head = pageHead(title: "mamsim whatif") + """
            <h1>What if</h1><p>\(personas) personas, \(apps) apps, from \(esc(sources.joined(separator: ", ")))</p>
            <section id="summary"><h2>Summary</h2><table>
            <colgroup><col style="width:11%"><col style="width:17%"><col style="width:15%"><col style="width:10%"><col style="width:15%"><col span="4" style="width:8%"></colgroup>
            <tr><th>Persona</th><th>User and groups</th><th>Device</th><th>App protection</th><th>Token</th><th>Share</th><th>Paste</th><th>Save</th><th>Features</th></tr>

            """
        let middle = """
            </table></section>
            <section id="apps"><h2>Every app</h2><table>
            <colgroup><col style="width:8%"><col style="width:11%"><col style="width:14%"><col style="width:14%"><col style="width:11%"><col span="5" style="width:8.4%"></colgroup>
            <tr><th>Persona</th><th>App</th><th>App protection</th><th>Token</th><th>App config</th><th>Share</th><th>Paste</th><th>Save</th><th>Open</th><th>Features</th></tr>

            """
        return (head, middle, "</table></section>" + pageTail)
    }

    /// The diff's page up to its rows: who is affected and by which change, then the head of
    /// the table of every change (`WhatIfDiffWriter` writes the rows, then `diffTail`).
    public static func diffHead(old: String, new: String, personas: Int, total: Int, failingSaid: String,
                         summary: [(name: String, WhatIfDiffSummary)]) -> String {
        var rows = ""
        for (name, s) in summary {
            let kinds = s.kinds.map { "\($0.value) \($0.key)" }.sorted().joined(separator: ", ")
            rows += "<tr\(s.failing > 0 ? " class=fail" : "")><td>\(esc(name))</td><td class=n>\(s.changes)</td><td class=n>\(s.failing)</td><td>\(esc(kinds))</td>"
                + "<td><ul>" + s.causes.map { "<li>\(esc($0))</li>" }.joined() + (s.moreCauses > 0 ? "<li>and \(s.moreCauses) more</li>" : "") + "</ul></td></tr>\n"
        }
        return pageHead(title: "mamsim whatif --diff") + """
            <h1>What if: the change</h1><p>\(esc(old)) → \(esc(new)), \(personas) personas: \(total) cells change\(esc(failingSaid))</p>
            <section id="summary"><h2>Who is affected, by which change</h2><table>
            <colgroup><col style="width:16%"><col style="width:7%"><col style="width:7%"><col style="width:25%"><col style="width:45%"></colgroup>
            <tr><th>Persona</th><th>Changes</th><th>Failing</th><th>Kinds</th><th>Because</th></tr>
            \(rows.isEmpty ? "<tr><td colspan=5>no change</td></tr>" : rows)</table></section>
            <section id="changes"><h2>Every change</h2><table>
            <colgroup><col style="width:4%"><col style="width:10%"><col style="width:10%"><col style="width:13%"><col style="width:16%"><col style="width:10%"><col style="width:10%"><col style="width:27%"></colgroup>
            <tr><th></th><th>Kind</th><th>Persona</th><th>App</th><th>Cell</th><th>Before</th><th>After</th><th>Because</th></tr>

            """
    }

    public static let diffTail = "</table></section>" + pageTail

    /// A change of `whatif --diff` as a row of its HTML table, with its line end.
    public static func diffRow(_ c: WhatIfChange, fails: Bool) -> String {
        "<tr\(fails ? " class=fail" : "")><td>\(fails ? "FAIL" : "")</td><td>\(esc(c.kind.rawValue))</td><td>\(esc(c.persona))</td><td>\(esc(c.app.rawValue))</td>"
            + "<td>\(esc(c.cell))</td><td>\(esc(c.before))</td><td>\(esc(c.after))</td><td class=why>\(esc(c.because.joined(separator: "; ")))</td></tr>\n"
    }
}
