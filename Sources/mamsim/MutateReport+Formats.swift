import Foundation
import MAMDeclarations
import MAMExtensions
import MAMModel
import MAMPolicy
import MAMScenario

extension MutateCommand.Outcome {
    /// What was mutated, as every report names it.
    var displayName: String {
        switch kind {
        case .policy: "\(policy).\(setting)"
        case .appConfig: "app configuration \(policy): \(setting)"
        case .declaration: "managed app configuration \(policy): \(setting)"
        }
    }

    /// The outcome with what the reports point at: the apps the mutated policy or
    /// configuration reaches, the lines its setting and declaration are written on, and the
    /// deciding step's line.
    func placed(in scenario: Scenario, mutant: Mutation) -> Self {
        var o = self
        let place = switch mutant.kind {
        case .policy: scenario.policySources[mutant.owner]
        case .appConfig: scenario.appConfigSources[mutant.owner]
        case .declaration: mutant.place
        }
        let handles = { (bundles: [BundleID]) in scenario.apps.filter { bundles.contains($0.descriptor.bundleID) }.map(\.id) }
        switch mutant.kind {
        case .policy:
            o.apps = scenario.policies[mutant.owner].map { handles(scenario.fleet.apps(targetedBy: $0)) } ?? []
        case .declaration:
            // The apps whose managed configuration names the asset.
            let bundles = scenario.declarations.compactMap { e -> String? in
                let p = e.declaration.payload
                guard e.declaration.type == "com.apple.configuration.app.managed", p["AppConfig"]?.object?["DataAssetReference"]?.string == mutant.owner
                        || (p["ExtensionConfigs"]?.object ?? [:]).values.contains(where: { $0.object?["DataAssetReference"]?.string == mutant.owner }) else { return nil }
                return p["BundleID"]?.string
            }
            o.apps = scenario.apps.filter { bundles.contains($0.descriptor.bundleID.rawValue) }.map(\.id)
        case .appConfig:
            let config = scenario.appConfigs.first { $0.name == mutant.owner }
            o.apps = scenario.apps.filter { app in
                app.descriptor.sdkIntegrated && (config?.apps.isEmpty ?? true || config?.apps.contains(app.descriptor.bundleID) == true)
            }.map(\.id)
        }
        let file = { (url: URL) in SuiteDocument.repositoryPath(url.path) }
        if let place {
            o.at = MutateCommand.SourceLine(file: file(place.file), line: max(1, place.line(of: mutant.setting, scenario: scenario.file)))
            if mutant.kind != .declaration { o.declaredAt = MutateCommand.SourceLine(file: file(scenario.file), line: max(1, place.scenarioLine)) }
        }
        if let step = o.step, step >= 1, step <= scenario.steps.count {
            o.stepAt = MutateCommand.SourceLine(file: file(scenario.file), line: max(1, scenario.steps[step - 1].line))
        }
        return o
    }
}

extension MutateSweep {
    /// SARIF 2.1.0 (GitHub code scanning): a result per survivor (`warning`, rule
    /// `mutant-survived`) and per mutant no step reaches (`note`, rule `mutant-not-exercised`),
    /// at the line its setting is written on, with its policy's declaration and the step as
    /// related locations. Killed mutants are the tests working: no result.
    func sarif() -> String {
        let rules: [[String: Any]] = [
            ["id": "mutant-survived", "shortDescription": ["text": "A setting moved, a step met it, and no expectation caught it"],
             "help": ["text": "docs/MUTATE.md in mamsim: add an expectation that checks the setting's effect, or make the app's code consult it"],
             "defaultConfiguration": ["level": "warning"]],
            ["id": "mutant-not-exercised", "shortDescription": ["text": "A setting moved and no step reached it"],
             "help": ["text": "docs/MUTATE.md in mamsim: add a step that reaches the setting (the message names one)"],
             "defaultConfiguration": ["level": "note"]],
        ]
        let results: [[String: Any]] = outcomes.filter { $0.verdict != .killed }.map { o in
            let survived = o.verdict == .survived
            let what = o.displayName
            var result: [String: Any] = [
                "ruleId": survived ? "mutant-survived" : "mutant-not-exercised", "ruleIndex": survived ? 0 : 1, "level": survived ? "warning" : "note",
                "message": ["text": UntrustedText.escaped("\(what) → \(o.value) \(o.verdict.rawValue) (scenario \(o.scenario)): \(o.because)")],
            ]
            let here = o.at ?? o.declaredAt ?? MutateCommand.SourceLine(file: SuiteDocument.repositoryPath(o.scenario), line: 1)
            result["locations"] = [Self.location(here)]
            let related = [(o.declaredAt, "where \(o.kind == .policy ? "the policy" : "the app configuration") is declared"), (o.stepAt, "the step that met it")]
                .compactMap { place, text in place.map { (Self.location($0), text) } }
            if !related.isEmpty {
                result["relatedLocations"] = related.enumerated().map { i, pair in
                    var r = pair.0
                    r["id"] = i + 1
                    r["message"] = ["text": pair.1]
                    return r
                }
            }
            result["partialFingerprints"] = ["mamsimMutant/v1": [o.scenario, o.kind.rawValue, o.policy, o.setting, o.value].joined(separator: "\u{1F}")]
            return result
        }
        let document: [String: Any] = [
            "version": "2.1.0", "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "runs": [["tool": ["driver": ["name": "mamsim", "version": mamsimVersion, "rules": rules]],
                      "results": results]],
        ]
        let data = (try? JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private static func location(_ at: MutateCommand.SourceLine) -> [String: Any] {
        ["physicalLocation": ["artifactLocation": ["uri": at.file], "region": ["startLine": at.line]] as [String: Any]]
    }

    /// One row of the HTML report's score tables.
    struct Score {
        var name: String
        var killed = 0, survived = 0, notExercised = 0
        var total: Int { killed + survived + notExercised }
        var percent: Double { total == 0 ? 100 : Double(killed) * 100 / Double(total) }
    }

    /// The score of each group of outcomes (an outcome may fall in several: a policy reaches
    /// several apps), in name order.
    func scores(by keys: (MutateCommand.Outcome) -> [String]) -> [Score] {
        var table: [String: Score] = [:]
        for o in outcomes {
            for key in keys(o) {
                var s = table[key] ?? Score(name: key)
                switch o.verdict {
                case .killed: s.killed += 1
                case .survived: s.survived += 1
                case .notExercised: s.notExercised += 1
                }
                table[key] = s
            }
        }
        return table.keys.sorted().compactMap { table[$0] }
    }

    /// A page of its own (no script, nothing fetched): the score, the score per app and per
    /// setting, and every mutant with its verdict and why. Every text is escaped.
    func html() -> String {
        let esc = UntrustedText.xml
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>mamsim mutate</title><style>\(ReportHTML.style)</style></head><body>
            <h1>Mutation testing of app protection settings</h1>
            <p id="summary">\(esc(summary))</p>

            """
        for line in baselineFailed { html += "<p class=\"fail\">\(esc(line))</p>\n" }
        func table(_ id: String, _ title: String, _ corner: String, _ rows: [Score]) {
            html += "<h2>\(esc(title))</h2>\n<table id=\"\(id)\"><tr><th>\(esc(corner))</th><th>score</th><th>killed</th><th>survived</th><th>not exercised</th></tr>\n"
            for r in rows {
                html += "<tr data-name=\"\(esc(r.name))\" data-score=\"\(String(format: "%.1f", r.percent))\"><td>\(esc(r.name))</td><td>\(String(format: "%.1f%%", r.percent))</td>"
                    + "<td>\(r.killed)</td><td>\(r.survived)</td><td>\(r.notExercised)</td></tr>\n"
            }
            html += "</table>\n"
        }
        table("apps", "Score per app", "app", scores { o in o.apps.isEmpty ? ["(no app)"] : o.apps.map { "\(o.scenario): \($0)" } })
        table("settings", "Score per setting", "setting", scores { o in
            let name = switch o.kind {
            case .policy: o.setting
            case .appConfig: "app configuration: \(o.setting)"
            case .declaration: "managed app configuration: \(o.setting)"
            }
            return [name]
        })
        html += "<h2>Mutants</h2>\n<table id=\"mutants\"><tr><th>verdict</th><th>scenario</th><th>policy or configuration</th><th>setting</th><th>value</th><th>why</th></tr>\n"
        for o in outcomes {
            let mark = o.verdict == .killed ? "✔ killed" : o.verdict == .survived ? "✘ survived" : "– not exercised"
            let cell = o.verdict == .killed ? "ok" : o.verdict == .survived ? "blocked" : "none"
            html += "<tr data-verdict=\"\(esc(o.verdict.rawValue))\" data-setting=\"\(esc(o.setting))\">"
                + "<td class=\"\(cell)\">\(esc(mark))</td><td>\(esc(o.scenario))</td><td>\(esc(o.policy))</td><td>\(esc(o.setting))</td><td>\(esc(o.value))</td><td>\(esc(o.because))</td></tr>\n"
        }
        html += "</table>\n</body></html>\n"
        return html
    }
}
