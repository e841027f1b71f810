import ArgumentParser
import Foundation
import MAMExtensions
import MAMDeviceState
import MAMModel
import MAMPolicy

/// The report's two timelines: the enrollment lifecycle by account, and the steps with their
/// expectations.
extension ReportHTML {
    /// Per account, the enrollment statuses over simulated time and what each check-in
    /// delivered (the service's own changes — a licence, an injected fault — between them).
    static func lifecycleTimeline(_ events: [AuditEvent]) -> String {
        guard !events.isEmpty else { return "" }
        let esc = UntrustedText.xml
        let accounts = events.reduce(into: [String]()) { list, e in
            let who = e.owner.isEmpty ? e.sourceIdentity : e.owner
            if !list.contains(who) { list.append(who) }
        }
        var html = "<div class=\"scroll\"><table class=\"lifecycle\"><caption>Enrollment timeline, by account (simulated time)</caption><thead><tr><th scope=\"col\">account</th><th scope=\"col\">time</th><th scope=\"col\">app</th><th scope=\"col\">request</th><th scope=\"col\">status and why</th><th scope=\"col\">step</th></tr></thead><tbody>\n"
        for account in accounts {
            for e in events where (e.owner.isEmpty ? e.sourceIdentity : e.owner) == account {
                let cls = outcomeClass(e.decision)
                // The decision is written before the sentence, so a yellow row says what it is
                // (a cancelled login, a network failure) without the legend or a hover.
                let decision = "<strong>\(esc(lifecycleLabel(e.decision)))</strong> "
                html += "<tr><th scope=\"row\">\(esc(account.isEmpty ? "(service)" : account))</th><td>\(esc(e.time.description))</td><td>\(esc(e.sourceApp))</td><td>\(esc(e.verb.rawValue))</td><td class=\"\(cls)\">\(decision)\(esc(e.explanation))</td><td>\(esc(e.step))</td></tr>\n"
            }
        }
        html += "</tbody></table></div>\n"
        return html + "<p class=\"legend\">Rows: <span class=\"ok\">✔ done</span><span class=\"blocked\">✘ refused by a rule</span><span class=\"failed\">⚠ not done</span> (the user cancelled, the service or the network failed, interaction is required, the device is not compliant). A yellow row is what the device did, not a failed step: whether the scenario expected it is in the step's row under Steps.</p>\n"
    }

    /// `✔ compliant`, `✘ blocked`, `⚠ networkFailure`: the lifecycle row's decision, in the
    /// words the audit log and the compliance delegate use.
    static func lifecycleLabel(_ d: AuditDecision) -> String {
        switch outcomeClass(d) {
        case "ok": "✔ \(d.rawValue):"
        case "blocked": "✘ \(d.rawValue):"
        default: "⚠ \(d.rawValue):"
        }
    }

    static func timeline(_ s: SuiteDocument.Scenario, anchor: String = "s1") -> String {
        let esc = UntrustedText.xml
        var html = "<div class=\"scroll\"><table class=\"timeline\"><caption>Steps</caption><thead><tr><th scope=\"col\">#</th><th scope=\"col\">step</th><th scope=\"col\">outcome</th><th scope=\"col\">expected</th><th scope=\"col\">held</th><th scope=\"col\">why</th></tr></thead><tbody>\n"
        for step in s.steps {
            let unexpected = !step.passed && step.expected != nil
            html += "<tr id=\"\(anchor)-step-\(step.index)\"\(unexpected ? " class=\"unexpected\"" : "")><th scope=\"row\">\(step.index)</th><td>\(esc(step.title)) <small>(line \(step.line))</small></td><td>\(esc(step.outcome))</td><td>\(esc(step.expected ?? "—"))</td>"
            html += step.expected == nil ? "<td class=\"none\">no expectation</td>" : (step.passed ? "<td class=\"ok\">✔ held</td>" : "<td class=\"blocked\">✘ failed</td>")
            html += "<td>\(esc(step.explanation))</td></tr>\n"
        }
        return html + "</tbody></table></div>\n"
    }
}
