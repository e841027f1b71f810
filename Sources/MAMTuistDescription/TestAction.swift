// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// A scheme's test action: test targets, or test plans.
public struct TestAction: Equatable, Codable, Sendable {
    /// Test plan files; the first is the default.
    public var testPlans: [Path]?
    /// Test plans Tuist writes from their Swift description.
    public var generatedTestPlans: [TestPlan]?
    public var targets: [TestableTarget]
    public var arguments: Arguments?
    public var configuration: ConfigurationName
    public var attachDebugger: Bool
    public var expandVariableFromTarget: TargetReference?
    public var preActions: [ExecutionAction]
    public var postActions: [ExecutionAction]
    public var options: TestActionOptions
    public var diagnosticsOptions: SchemeDiagnosticsOptions
    /// Test identifiers to skip.
    public var skippedTests: [String]?

    public static func targets(
        _ targets: [TestableTarget],
        arguments: Arguments? = nil,
        configuration: ConfigurationName = .debug,
        attachDebugger: Bool = true,
        expandVariableFromTarget: TargetReference? = nil,
        preActions: [ExecutionAction] = [],
        postActions: [ExecutionAction] = [],
        options: TestActionOptions = .options(),
        diagnosticsOptions: SchemeDiagnosticsOptions = .options(),
        skippedTests: [String] = []
    ) -> Self {
        Self(testPlans: nil, generatedTestPlans: nil, targets: targets, arguments: arguments, configuration: configuration,
             attachDebugger: attachDebugger, expandVariableFromTarget: expandVariableFromTarget, preActions: preActions,
             postActions: postActions, options: options, diagnosticsOptions: diagnosticsOptions, skippedTests: skippedTests)
    }

    /// Test plan files.
    public static func testPlans(
        _ testPlans: [Path],
        configuration: ConfigurationName = .debug,
        attachDebugger: Bool = true,
        preActions: [ExecutionAction] = [],
        postActions: [ExecutionAction] = []
    ) -> Self {
        Self(testPlans: testPlans, generatedTestPlans: nil, targets: [], arguments: nil, configuration: configuration,
             attachDebugger: attachDebugger, expandVariableFromTarget: nil, preActions: preActions, postActions: postActions,
             options: .options(), diagnosticsOptions: .options(), skippedTests: nil)
    }

    /// Test plans Tuist writes; the one marked default (else the first) is the default.
    public static func testPlans(
        _ testPlans: [TestPlan],
        configuration: ConfigurationName = .debug,
        attachDebugger: Bool = true,
        preActions: [ExecutionAction] = [],
        postActions: [ExecutionAction] = []
    ) -> Self {
        Self(testPlans: nil, generatedTestPlans: testPlans, targets: [], arguments: nil, configuration: configuration,
             attachDebugger: attachDebugger, expandVariableFromTarget: nil, preActions: preActions, postActions: postActions,
             options: .options(), diagnosticsOptions: .options(), skippedTests: nil)
    }
}

/// A test target in a test action or plan.
public struct TestableTarget: Equatable, Codable, ExpressibleByStringInterpolation, Sendable {
    /// Which tests run in parallel (Xcode 16).
    public enum Parallelization: Equatable, Codable, Sendable {
        case disabled, swiftTestingOnly, enabled
    }

    public var target: TargetReference
    public var isSkipped: Bool
    public var parallelization: Parallelization
    public var isRandomExecutionOrdering: Bool
    public var simulatedLocation: SimulatedLocation?

    @available(*, deprecated, renamed: "parallelization", message: "isParallelizable is deprecated. Use the parallelization property instead.")
    public var isParallelizable: Bool {
        parallelization == .enabled
    }

    @available(*, deprecated, renamed: "testableTarget(target:isSkipped:parallelization:isRandomExecutionOrdering:simulatedLocation:)")
    public static func testableTarget(
        target: TargetReference,
        isSkipped: Bool = false,
        isParallelizable: Bool,
        isRandomExecutionOrdering: Bool = false,
        simulatedLocation: SimulatedLocation? = nil
    ) -> Self {
        testableTarget(target: target, isSkipped: isSkipped, parallelization: isParallelizable ? .enabled : .disabled,
                       isRandomExecutionOrdering: isRandomExecutionOrdering, simulatedLocation: simulatedLocation)
    }

    public static func testableTarget(
        target: TargetReference,
        isSkipped: Bool = false,
        parallelization: Parallelization = .disabled,
        isRandomExecutionOrdering: Bool = false,
        simulatedLocation: SimulatedLocation? = nil
    ) -> Self {
        Self(target: target, isSkipped: isSkipped, parallelization: parallelization,
             isRandomExecutionOrdering: isRandomExecutionOrdering, simulatedLocation: simulatedLocation)
    }

    public init(stringLiteral value: String) {
        self.init(target: TargetReference(projectPath: nil, target: value), isSkipped: false, parallelization: .disabled,
                  isRandomExecutionOrdering: false, simulatedLocation: nil)
    }

    init(target: TargetReference, isSkipped: Bool, parallelization: Parallelization, isRandomExecutionOrdering: Bool,
         simulatedLocation: SimulatedLocation?) {
        self.target = target
        self.isSkipped = isSkipped
        self.parallelization = parallelization
        self.isRandomExecutionOrdering = isRandomExecutionOrdering
        self.simulatedLocation = simulatedLocation
    }
}

/// A test plan whose `.xctestplan` Tuist writes (by default under `Derived/TestPlans/`).
public struct TestPlan: Equatable, Codable, Sendable {
    public var name: String
    /// Where to write the plan; nil is Tuist's derived folder.
    public var path: Path?
    public var testTargets: [TestableTarget]
    public var isDefault: Bool

    public init(name: String, path: Path? = nil, testTargets: [TestableTarget], isDefault: Bool = false) {
        self.name = name
        self.path = path
        self.testTargets = testTargets
        self.isDefault = isDefault
    }
}
