public import Foundation
public import MAMModel

/// The result of one step: what ran, what happened, what was expected.
public struct StepResult: Sendable {
    public var index: Int
    public var line: Int
    public var name: String
    public var verb: String
    /// The parties, e.g. `mail → notes`.
    public var parties: String
    public var observed: Observed
    public var explanation: String
    public var expected: ExpectedOutcome?
    public var seconds: Double

    /// True when there was no expectation or the outcome satisfied it.
    public var passed: Bool { expected.map { observed.satisfies($0) } ?? true }

    /// The row's title: the step's name, else `verb parties`.
    public var title: String { name.isEmpty ? "\(verb) \(parties)" : name }
}

/// Everything one scenario run produced.
public struct ScenarioReport: Sendable {
    public var name: String
    public var file: URL
    public var steps: [StepResult] = []
    /// Set when no app of the fleet could start (or the device could not be opened); no step ran.
    public var fleetError: String?
    /// Apps that could not start, each with why; the others ran the steps.
    public var appsNotStarted: [String] = []
    public var seconds: Double = 0
    public var deviceDirectory: URL
    /// The audit log (JSON lines) exported at the end of the run.
    public var auditLog: URL?
    /// Why the audit log could not be written, if it could not.
    public var auditError: String?

    /// Strict Mode's findings (docs/STRICT.md): the integration mistakes the façade saw the
    /// apps make, in the order they were reported, each with the suppression that covers it.
    public var strictFindings: [StrictReportFinding] = []
    /// What the run decided that the scenario did not ask for, said without `--verbose` (a
    /// login its user cancelled), each with the key that changes it; at most 100.
    public var notes: [String] = []
    /// Whether unsuppressed findings fail the run (`--strict`, or the scenario's `strict:`).
    public var strict = false
    /// What the apps' own code did with their policies, in order (`mamsim mutate`).
    public var participation: [Participation] = []

    public var failures: [StepResult] { steps.filter { !$0.passed } }
    /// The findings that fail a strict run.
    public var strictFailures: [StrictReportFinding] { strict ? strictFindings.filter { $0.suppressedBecause == nil } : [] }
    public var passed: Bool { fleetError == nil && appsNotStarted.isEmpty && failures.isEmpty && strictFailures.isEmpty }

    /// The run in one sentence, the same in the terminal, `mamsim test` and the HTML report:
    /// the steps run, how many of them carried an expectation, and how those came out. A step
    /// without `expect:` is run and shown but checks nothing, so it is never counted as held.
    public var outcome: String {
        let checked = steps.filter { $0.expected != nil }.count
        let failed = failures.count
        let stepsRun = "\(steps.count) step\(steps.count == 1 ? "" : "s")"
        let expectations = checked == steps.count ? "each with an expectation" : "\(checked) with an expectation"
        if let fleetError { return "the fleet could not start: \(fleetError)" }
        if failed > 0 { return "\(failed) of \(checked) expectation\(checked == 1 ? "" : "s") failed (\(stepsRun) run)" }
        var text = checked == 0 ? "\(stepsRun) run, none with an expectation" : "\(stepsRun) run, \(expectations), all held"
        if !appsNotStarted.isEmpty {
            let n = appsNotStarted.count
            text = "\(n) app\(n == 1 ? "" : "s") could not start; " + text
        }
        if !strictFailures.isEmpty {
            let n = strictFailures.count
            text += "; Strict Mode found \(n) integration mistake\(n == 1 ? "" : "s")"
        }
        return text
    }
}

/// One Strict Mode finding of a run: the app (its scenario id), what the façade reported, and
/// the reason of the suppression that covers it, if one does.
public struct StrictReportFinding: Sendable, Hashable {
    public var app: String
    public var finding: StrictFindingEvent
    public var suppressedBecause: String?
    /// The finding's source file relative to the scenario's repository (`Sources/Module/File.swift`),
    /// where the app's package is on disk: what code scanning places it at.
    public var source: String?

    public init(app: String, finding: StrictFindingEvent, suppressedBecause: String? = nil, source: String? = nil) {
        self.app = app
        self.finding = finding
        self.suppressedBecause = suppressedBecause
        self.source = source
    }

    /// `check at File.swift:12 in app (call): detail`, for the human output and JUnit; a
    /// finding the host made (the SDK called the app: no line of the app's) has no place.
    public var described: String {
        "\(finding.check)\(place.map { " at \($0)" } ?? "") in \(app) (\(finding.call)): \(finding.detail)"
    }

    /// `File.swift:12`, or `nil` for a finding with no line of the app's.
    public var place: String? { finding.file.isEmpty ? nil : "\(finding.file):\(finding.line)" }
}

/// Something an app's own code did that a policy setting governs: it read a getter of an
/// account's policy object (the façade's word), or it saved an account's data where the user
/// sees its files (the host's). `mamsim mutate` tells from these a setting the app consults from
/// one it ignores.
public struct Participation: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case read(PolicyGetter)
        /// `byItself`: the app wrote the file with its own file calls, not the host's service,
        /// so whose data it is was taken from its process identity (`DocumentsWatch`).
        case saved(path: String, byItself: Bool)
        /// A key of the account's app configuration (IntuneMAMAppConfig's getters).
        case readConfig(key: String)
    }
    public var app: String
    /// The account (its UPN; "" = the unmanaged identity) whose policy or data it was.
    public var account: String
    public var kind: Kind
    /// The step it happened in (its index), or nil at the fleet's start.
    public var step: Int?

    public init(app: String, account: String, kind: Kind, step: Int?) {
        (self.app, self.account, self.kind, self.step) = (app, account, kind, step)
    }
}
