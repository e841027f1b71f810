import Foundation
import MAMScenario

/// Human output: colours and a live line on a terminal, plain lines when piped.
struct Terminal: Sendable {
    let isTTY = isatty(1) == 1

    func bold(_ s: String) -> String { isTTY ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
    func dim(_ s: String) -> String { isTTY ? "\u{1B}[2m\(s)\u{1B}[0m" : s }
    func red(_ s: String) -> String { isTTY ? "\u{1B}[31m\(s)\u{1B}[0m" : s }
    func green(_ s: String) -> String { isTTY ? "\u{1B}[32m\(s)\u{1B}[0m" : s }

    func line(_ s: String) {
        FileHandle.standardOutput.write(Data((s + "\n").utf8))
    }

    func overwrite(_ s: String) {
        FileHandle.standardOutput.write(Data("\r\u{1B}[2K\(s)".utf8))
    }

    static func error(_ s: String) {
        FileHandle.standardError.write(Data("error: \(s)\n".utf8))
    }

    static func warning(_ s: String) {
        FileHandle.standardError.write(Data("warning: \(s)\n".utf8))
    }

    /// One line per step: mark, number, verb and parties, outcome, explanation; a failing
    /// expectation is highlighted with what was expected.
    func step(_ r: StepResult) {
        let mark = r.passed ? green("✔") : red("✘")
        let number = String(format: "%3d", r.index + 1)
        let title = r.name.isEmpty ? "\(r.verb) \(r.parties)" : "\(r.name) — \(r.verb) \(r.parties)"
        var text = "\(mark) \(number) \(title)  →  \(bold(r.observed.description))"
        if !r.explanation.isEmpty { text += dim("  \(r.explanation)") }
        line(text)
        if !r.passed, let e = r.expected {
            line(red("        expected \(e), got \(r.observed) (line \(r.line))"))
        }
    }

    func summary(_ report: ScenarioReport) {
        let failed = report.failures.count
        let checked = report.steps.filter { $0.expected != nil }.count
        let time = String(format: "%.2f s", report.seconds)
        for app in report.appsNotStarted { line(red("✘ could not start \(app)")) }
        if failed == 0 && report.appsNotStarted.isEmpty {
            line(green("✔ \(report.name): \(report.steps.count) steps, \(checked) expectations held") + dim(" (\(time))"))
        } else if failed == 0 {
            let n = report.appsNotStarted.count
            line(red("✘ \(report.name): \(n) app\(n == 1 ? "" : "s") could not start; \(checked) expectations held") + dim(" (\(time))"))
        } else {
            line(red("✘ \(report.name): \(failed) of \(checked) expectations failed") + dim(" (\(time))"))
        }
        if let audit = report.auditLog { line(dim("  audit log: \(audit.path)")) }
    }
}
