// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// A scheme's run action.
public struct RunAction: Equatable, Codable, Sendable {
    public var configuration: ConfigurationName
    public var attachDebugger: Bool
    public var customLLDBInitFile: Path?
    public var preActions: [ExecutionAction]
    public var postActions: [ExecutionAction]
    public var executable: TargetReference?
    /// The folder the executable is launched in.
    public var customWorkingDirectory: Path?
    /// A file run instead of the built product.
    public var filePath: Path?
    public var arguments: Arguments?
    public var options: RunActionOptions
    public var diagnosticsOptions: SchemeDiagnosticsOptions
    public var metalOptions: MetalOptions
    /// The target whose settings expand `$(...)` in environment variables.
    public var expandVariableFromTarget: TargetReference?
    /// Whether Xcode asks which app to launch.
    public var askForAppToLaunch: Bool
    public var launchStyle: LaunchStyle
    public var appClipInvocationURLString: String?

    public static func runAction(
        configuration: ConfigurationName = .debug,
        attachDebugger: Bool = true,
        customLLDBInitFile: Path? = nil,
        preActions: [ExecutionAction] = [],
        postActions: [ExecutionAction] = [],
        executable: TargetReference? = nil,
        customWorkingDirectory: Path? = nil,
        filePath: Path? = nil,
        arguments: Arguments? = nil,
        options: RunActionOptions = .options(),
        diagnosticsOptions: SchemeDiagnosticsOptions = .options(),
        metalOptions: MetalOptions = .options(),
        expandVariableFromTarget: TargetReference? = nil,
        launchStyle: LaunchStyle = .automatically,
        appClipInvocationURLString: String? = nil
    ) -> RunAction {
        RunAction(configuration: configuration, attachDebugger: attachDebugger, customLLDBInitFile: customLLDBInitFile,
                  preActions: preActions, postActions: postActions, executable: executable,
                  customWorkingDirectory: customWorkingDirectory, filePath: filePath, arguments: arguments, options: options,
                  diagnosticsOptions: diagnosticsOptions, metalOptions: metalOptions, expandVariableFromTarget: expandVariableFromTarget,
                  askForAppToLaunch: false, launchStyle: launchStyle, appClipInvocationURLString: appClipInvocationURLString)
    }

    /// A run action whose executable may be chosen at launch (`.askOnLaunch`).
    public static func runAction(
        configuration: ConfigurationName = .debug,
        attachDebugger: Bool = true,
        customLLDBInitFile: Path? = nil,
        preActions: [ExecutionAction] = [],
        postActions: [ExecutionAction] = [],
        executable: Executable,
        customWorkingDirectory: Path? = nil,
        filePath: Path? = nil,
        arguments: Arguments? = nil,
        options: RunActionOptions = .options(),
        diagnosticsOptions: SchemeDiagnosticsOptions = .options(),
        metalOptions: MetalOptions = .options(),
        expandVariableFromTarget: TargetReference? = nil,
        launchStyle: LaunchStyle = .automatically,
        appClipInvocationURLString: String? = nil
    ) -> RunAction {
        var action = runAction(configuration: configuration, attachDebugger: attachDebugger, customLLDBInitFile: customLLDBInitFile,
                               preActions: preActions, postActions: postActions, executable: nil,
                               customWorkingDirectory: customWorkingDirectory, filePath: filePath, arguments: arguments, options: options,
                               diagnosticsOptions: diagnosticsOptions, metalOptions: metalOptions,
                               expandVariableFromTarget: expandVariableFromTarget, launchStyle: launchStyle,
                               appClipInvocationURLString: appClipInvocationURLString)
        switch executable {
        case .askOnLaunch: action.askForAppToLaunch = true
        case let .executable(reference): action.executable = reference
        }
        return action
    }
}

/// Options of a run action.
public struct RunActionOptions: Equatable, Codable, Sendable {
    public var language: SchemeLanguage?
    public var region: String?
    /// A StoreKit configuration file (Tuist adds it to the project).
    public var storeKitConfigurationPath: Path?
    public var simulatedLocation: SimulatedLocation?
    public var enableGPUFrameCaptureMode: GPUFrameCaptureMode

    init(
        language: SchemeLanguage? = nil,
        region: String? = nil,
        storeKitConfigurationPath: Path? = nil,
        simulatedLocation: SimulatedLocation? = nil,
        enableGPUFrameCaptureMode: GPUFrameCaptureMode = GPUFrameCaptureMode.default
    ) {
        self.language = language
        self.region = region
        self.storeKitConfigurationPath = storeKitConfigurationPath
        self.simulatedLocation = simulatedLocation
        self.enableGPUFrameCaptureMode = enableGPUFrameCaptureMode
    }

    public static func options(
        language: SchemeLanguage? = nil,
        region: String? = nil,
        storeKitConfigurationPath: Path? = nil,
        simulatedLocation: SimulatedLocation? = nil,
        enableGPUFrameCaptureMode: GPUFrameCaptureMode = GPUFrameCaptureMode.default
    ) -> Self {
        Self(language: language, region: region, storeKitConfigurationPath: storeKitConfigurationPath,
             simulatedLocation: simulatedLocation, enableGPUFrameCaptureMode: enableGPUFrameCaptureMode)
    }

    /// Metal frame capture.
    public enum GPUFrameCaptureMode: String, Codable, Equatable, Sendable {
        case autoEnabled
        case metal
        case openGL
        case disabled

        public static var `default`: GPUFrameCaptureMode { .autoEnabled }
    }
}

/// A scheme's archive action.
public struct ArchiveAction: Equatable, Codable, Sendable {
    public let configuration: ConfigurationName
    /// Whether Xcode shows the Organizer when done.
    public let revealArchiveInOrganizer: Bool
    public let customArchiveName: String?
    public let preActions: [ExecutionAction]
    public let postActions: [ExecutionAction]

    public static func archiveAction(
        configuration: ConfigurationName,
        revealArchiveInOrganizer: Bool = true,
        customArchiveName: String? = nil,
        preActions: [ExecutionAction] = [],
        postActions: [ExecutionAction] = []
    ) -> ArchiveAction {
        ArchiveAction(configuration: configuration, revealArchiveInOrganizer: revealArchiveInOrganizer,
                      customArchiveName: customArchiveName, preActions: preActions, postActions: postActions)
    }
}

/// A scheme's profile action.
public struct ProfileAction: Equatable, Codable, Sendable {
    public var configuration: ConfigurationName
    public var preActions: [ExecutionAction]
    public var postActions: [ExecutionAction]
    public var executable: TargetReference?
    public var askForAppToLaunch: Bool
    public var arguments: Arguments?

    public static func profileAction(
        configuration: ConfigurationName = .release,
        preActions: [ExecutionAction] = [],
        postActions: [ExecutionAction] = [],
        executable: TargetReference? = nil,
        arguments: Arguments? = nil
    ) -> ProfileAction {
        ProfileAction(configuration: configuration, preActions: preActions, postActions: postActions, executable: executable,
                      askForAppToLaunch: false, arguments: arguments)
    }

    /// A profile action whose executable may be chosen at launch (`.askOnLaunch`).
    public static func profileAction(
        configuration: ConfigurationName = .release,
        preActions: [ExecutionAction] = [],
        postActions: [ExecutionAction] = [],
        executable: Executable,
        arguments: Arguments? = nil
    ) -> ProfileAction {
        var action = profileAction(configuration: configuration, preActions: preActions, postActions: postActions, arguments: arguments)
        switch executable {
        case .askOnLaunch: action.askForAppToLaunch = true
        case let .executable(reference): action.executable = reference
        }
        return action
    }
}

/// A scheme's analyze action.
public struct AnalyzeAction: Equatable, Codable, Sendable {
    public let configuration: ConfigurationName

    public static func analyzeAction(configuration: ConfigurationName) -> AnalyzeAction {
        AnalyzeAction(configuration: configuration)
    }
}
