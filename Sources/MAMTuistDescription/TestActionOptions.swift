// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// The order Xcode runs tests in.
public enum TestExecutionOrdering: String, Codable, Sendable {
    case alphabetical
    case random
}

/// A test plan's parallelization.
public enum TestPlanParallelizationMode: String, Codable, Sendable {
    case automatic
    case disabled
    case enabled
    case swiftTestingOnly
}

/// How tests are repeated.
public enum TestRepetitionMode: String, Codable, Sendable {
    case none
    case untilFailure
    case retryOnFailure
}

/// How long test attachments are kept.
public enum TestAttachmentLifetime: String, Codable, Sendable {
    case keepAlways
    case deleteOnSuccess
    case keepNever
}

/// When Xcode collects diagnostics during tests.
public enum TestDiagnosticCollectionPolicy: String, Codable, Sendable {
    case never = "Never"
    case onFailure = "OnFailure"
}

/// How Swift Testing and XCTest report each other's failures.
public enum TestInteropMode: String, Codable, Sendable {
    case limited
    case complete
}

/// How a UI-test app's crash is reported.
public enum ApplicationCrashDetectionSeverity: String, Codable, Sendable {
    case disabled
    case warning
    case failure
    case fatalFailure
}

/// A location simulated while tests run.
public struct TestLocationScenario: Equatable, Codable, Sendable {
    public let identifier: String
    public let referenceType: String

    public init(identifier: String, referenceType: String = "built-in") {
        self.identifier = identifier
        self.referenceType = referenceType
    }
}

/// Options of a test action.
public struct TestActionOptions: Equatable, Codable, Sendable {
    public var language: SchemeLanguage?
    public var region: String?
    public var preferredScreenCaptureFormat: ScreenCaptureFormat?
    /// Whether code coverage is gathered.
    public var coverage: Bool
    public var codeCoverageTargets: [TargetReference]
    public var testExecutionOrdering: TestExecutionOrdering
    public var parallelizationMode: TestPlanParallelizationMode?
    public var testRepetitionMode: TestRepetitionMode
    public var maximumTestRepetitions: Int?
    public var repeatInNewRunnerProcess: Bool
    public var testTimeoutsEnabled: Bool
    public var defaultTestExecutionTimeAllowance: Int?
    public var maximumTestExecutionTimeAllowance: Int?
    public var userAttachmentLifetime: TestAttachmentLifetime
    public var uiTestingScreenshotsLifetime: TestAttachmentLifetime
    public var areLocalizationScreenshotsEnabled: Bool
    public var diagnosticCollectionPolicy: TestDiagnosticCollectionPolicy
    public var distributor: String?
    public var locationScenario: TestLocationScenario?
    public var testInteropMode: TestInteropMode?
    public var applicationCrashDetectionSeverity: ApplicationCrashDetectionSeverity?

    public static func options(
        language: SchemeLanguage? = nil,
        region: String? = nil,
        preferredScreenCaptureFormat: ScreenCaptureFormat? = nil,
        coverage: Bool = false,
        codeCoverageTargets: [TargetReference] = [],
        testExecutionOrdering: TestExecutionOrdering = .alphabetical,
        parallelizationMode: TestPlanParallelizationMode? = nil,
        testRepetitionMode: TestRepetitionMode = .none,
        maximumTestRepetitions: Int? = nil,
        repeatInNewRunnerProcess: Bool = false,
        testTimeoutsEnabled: Bool = true,
        defaultTestExecutionTimeAllowance: Int? = nil,
        maximumTestExecutionTimeAllowance: Int? = nil,
        userAttachmentLifetime: TestAttachmentLifetime = .deleteOnSuccess,
        uiTestingScreenshotsLifetime: TestAttachmentLifetime = .deleteOnSuccess,
        areLocalizationScreenshotsEnabled: Bool = false,
        diagnosticCollectionPolicy: TestDiagnosticCollectionPolicy = .never,
        distributor: String? = nil,
        locationScenario: TestLocationScenario? = nil,
        testInteropMode: TestInteropMode? = nil,
        applicationCrashDetectionSeverity: ApplicationCrashDetectionSeverity? = nil
    ) -> TestActionOptions {
        TestActionOptions(
            language: language, region: region, preferredScreenCaptureFormat: preferredScreenCaptureFormat, coverage: coverage,
            codeCoverageTargets: codeCoverageTargets, testExecutionOrdering: testExecutionOrdering,
            parallelizationMode: parallelizationMode, testRepetitionMode: testRepetitionMode,
            maximumTestRepetitions: maximumTestRepetitions, repeatInNewRunnerProcess: repeatInNewRunnerProcess,
            testTimeoutsEnabled: testTimeoutsEnabled, defaultTestExecutionTimeAllowance: defaultTestExecutionTimeAllowance,
            maximumTestExecutionTimeAllowance: maximumTestExecutionTimeAllowance, userAttachmentLifetime: userAttachmentLifetime,
            uiTestingScreenshotsLifetime: uiTestingScreenshotsLifetime,
            areLocalizationScreenshotsEnabled: areLocalizationScreenshotsEnabled,
            diagnosticCollectionPolicy: diagnosticCollectionPolicy, distributor: distributor, locationScenario: locationScenario,
            testInteropMode: testInteropMode, applicationCrashDetectionSeverity: applicationCrashDetectionSeverity
        )
    }
}
