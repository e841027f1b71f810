public import Foundation
import MAMModel

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

    public var failures: [StepResult] { steps.filter { !$0.passed } }
    public var passed: Bool { fleetError == nil && appsNotStarted.isEmpty && failures.isEmpty }
}
