import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import MAMBundle
import MAMDocument
import MAMLoop
import MAMModel
import MAMScenario

/// Human output: colours and a live line on a terminal, plain lines when piped. `NO_COLOR`
/// (any value, https://no-color.org) turns colours off; `TERM=dumb` turns off colours and the
/// live line.
struct Terminal: Sendable {
    /// A terminal that can redraw its line (the live progress line).
    let isTTY: Bool
    let colors: Bool

    init(environment: [String: String] = ProcessInfo.processInfo.environment, stdoutIsTerminal: Bool = isatty(1) == 1) {
        let dumb = environment["TERM"] == "dumb"
        isTTY = stdoutIsTerminal && !dumb
        colors = isTTY && (environment["NO_COLOR"] ?? "").isEmpty
    }

    func bold(_ s: String) -> String { colors ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
    func dim(_ s: String) -> String { colors ? "\u{1B}[2m\(s)\u{1B}[0m" : s }
    func red(_ s: String) -> String { colors ? "\u{1B}[31m\(s)\u{1B}[0m" : s }
    func yellow(_ s: String) -> String { colors ? "\u{1B}[33m\(s)\u{1B}[0m" : s }
    func green(_ s: String) -> String { colors ? "\u{1B}[32m\(s)\u{1B}[0m" : s }

    func line(_ s: String) {
        Self.emit(s + "\n", to: 1)
    }

    func overwrite(_ s: String) {
        Self.emit("\r\u{1B}[2K\(s)", to: 1)
    }

    // An error, a warning or a note is one line: what it quotes (a policy's name, a target's,
    // a folder's) may hold a line feed, and the line after it would be the input's own — a CI
    // log reads `::error::` or `##vso[` there as a command. An error of several problems is
    // several lines, each made here.

    static func error(_ s: String) {
        emit("error: \(UntrustedText.line(s))\n", to: 2)
    }

    /// `error`'s lines for an error of several problems (a scenario's, a plugin's findings),
    /// one `error:` line each; any other error as one line.
    static func error(_ e: any Error) {
        for line in lines(of: e) { error(line) }
    }

    static func lines(of e: any Error) -> [String] {
        switch e {
        case let e as ScenarioError: e.problems.map(\.description)
        case let e as PluginDefinitionError: ["plugin \(e.folder) cannot be loaded:"] + e.findings.map { "  " + $0.rendered(inFolder: e.folder) }
        default: ["\(e)"]
        }
    }

    static func warning(_ s: String) {
        emit("warning: \(UntrustedText.line(s))\n", to: 2)
    }

    static func note(_ s: String) {
        emit("note: \(UntrustedText.line(s))\n", to: 2)
    }

    /// `s` with every control character (but a newline or a tab, when `keepingLineBreaks`),
    /// bidirectional control, line or paragraph separator and byte-order mark written as a
    /// Swift escape (`\u{1B}`): an error quotes what a file or a child said (a policy's value,
    /// a plist's string), and that must never reach the terminal as an escape sequence or a
    /// bell, nor end a line it was put on.
    static func escapingControls(_ s: String, keepingLineBreaks: Bool = true) -> String {
        UntrustedText.escaped(s, keepingLineBreaks: keepingLineBreaks)
    }

    /// Descriptors whose reader has gone (`mamsim run x | head`): written to no more. The run
    /// goes on and ends with its own status; only its output is dropped.
    private static let closed = Mutex<Set<Int32>>([])

    /// Writes all of `text`, or stops quietly when the reader has gone (EPIPE; SIGPIPE is
    /// ignored by the program's entry).
    static func emit(_ text: String, to fd: Int32) {
        guard !closed.withLock({ $0.contains(fd) }) else { return }
        do { try System.writeAll(fd, Array(text.utf8)) } catch { closed.withLock { _ = $0.insert(fd) } }
    }

    /// One line per step: mark, number, verb and parties, outcome, explanation; a failing
    /// expectation is highlighted with what was expected.
    func step(_ r: StepResult) {
        let mark = r.passed ? green("✔") : red("✘")
        let number = String(format: "%3d", r.index + 1)
        // Names, outcomes and explanations carry what the scenario and the children wrote:
        // control characters are shown, never sent to the terminal.
        let p = { (s: String) in Self.escapingControls(s, keepingLineBreaks: false) }
        let title = p(r.name.isEmpty ? "\(r.verb) \(r.parties)" : "\(r.name) — \(r.verb) \(r.parties)")
        var text = "\(mark) \(number) \(title)  →  \(bold(p(r.observed.description)))"
        if !r.explanation.isEmpty { text += dim("  \(p(r.explanation))") }
        line(text)
        if !r.passed, let e = r.expected {
            line(red(p("        expected \(e), got \(r.observed) (line \(r.line))")))
            // A text of several lines: which lines differ, numbered, one per line.
            if case .text(let wanted) = e, case .text(let got) = r.observed, wanted.contains("\n") || got.contains("\n") {
                for difference in Self.lineDiff(expected: wanted, got: got) { line(red(p("          " + difference))) }
            }
        }
    }

    /// The lines where two texts differ, numbered from 1: `- N: expected` then `+ N: got`,
    /// at most `limit` lines, then how many more differ.
    static func lineDiff(expected: String, got: String, limit: Int = 12) -> [String] {
        let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let b = got.split(separator: "\n", omittingEmptySubsequences: false)
        var out: [String] = []
        var differing = 0
        for i in 0..<max(a.count, b.count) {
            let left = i < a.count ? String(a[i]) : nil, right = i < b.count ? String(b[i]) : nil
            guard left != right else { continue }
            differing += 1
            guard out.count < limit else { continue }
            out.append("- \(i + 1): " + (left.map { "\"\($0)\"" } ?? "(no line)"))
            out.append("+ \(i + 1): " + (right.map { "\"\($0)\"" } ?? "(no line)"))
        }
        if out.count >= limit, differing * 2 > out.count { out.append("… and \(differing - out.count / 2) more lines differ") }
        return out
    }

    /// Strict Mode's findings (docs/STRICT.md): failures under `--strict`, notes otherwise,
    /// a suppressed one with its reason.
    func strictFindings(_ report: ScenarioReport) {
        for f in report.strictFindings {
            // The check, call, file and detail are the app's own words: escaped, never sent.
            let described = Self.escapingControls(f.described, keepingLineBreaks: false)
            if let reason = f.suppressedBecause {
                line(dim("  strict (suppressed: \(Self.escapingControls(reason, keepingLineBreaks: false))): \(described)"))
            } else if report.strict {
                line(red("✘ strict: \(described)"))
            } else {
                line(yellow("  strict (note; --strict fails the run): \(described)"))
            }
        }
    }

    /// - Parameter auditLog: where the audit log is after the run (`nil`: not kept).
    func summary(_ report: ScenarioReport, auditLog: String?) {
        let time = String(format: "%.2f s", report.seconds)
        for app in report.appsNotStarted { line(red("✘ could not start \(Self.escapingControls(app, keepingLineBreaks: false))")) }
        strictFindings(report)
        // The sentence the HTML report and `mamsim test` say too (ScenarioReport.outcome).
        let sentence = Self.escapingControls("\(report.name): \(report.outcome)", keepingLineBreaks: false)
        line((report.passed ? green("✔ " + sentence) : red("✘ " + sentence)) + dim(" (\(time))"))
        if let auditLog {
            line(dim("  audit log: \(auditLog)"))
        } else if report.auditLog != nil {
            line(dim("  temporary device removed; keep it with --keep-device or the audit log with --audit FILE"))
        }
    }
}
