// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

// Names of Tuist 1.x (most kept, deprecated, through 2.x and 3.x) that Tuist 4 removed, so
// manifests written for Tuist 1 compile. Each is deprecated here; a Tuist 4 manifest never names them.

/// A named configuration with its variant (Tuist 1's name for what is now `Configuration`).
@available(*, deprecated, renamed: "Configuration", message: "Tuist 1: CustomConfiguration is now Configuration.")
public typealias CustomConfiguration = Configuration

/// A run-script build phase (Tuist 1's name for what is now `TargetScript`).
@available(*, deprecated, renamed: "TargetScript", message: "Tuist 1: TargetAction is now TargetScript (Target's scripts:).")
public typealias TargetAction = TargetScript

/// Whether an SDK dependency is linked strongly or weakly (Tuist 1).
@available(*, deprecated, renamed: "LinkingStatus", message: "Tuist 1: SDKStatus is now LinkingStatus.")
public typealias SDKStatus = LinkingStatus

/// Debug, Release or a configuration by name (Tuist 1 scheme actions).
@available(*, deprecated, message: "Tuist 1: use ConfigurationName (.debug, .release, .configuration(_:)) instead.")
public enum PresetBuildConfiguration: Codable, Equatable, Sendable {
    case debug
    case release
    case custom(String)

    /// The configuration's name.
    var name: ConfigurationName {
        switch self {
        case .debug: .debug
        case .release: .release
        case let .custom(name): .configuration(name)
        }
    }
}

extension Configuration {
    /// A configuration's settings and xcconfig, without a name (Tuist 1): `Settings(base:debug:release:)` names it.
    @available(*, deprecated, message: "Tuist 1: use .debug(name:settings:xcconfig:) or .release(name:settings:xcconfig:) instead.")
    public init(settings: SettingsDictionary = [:], xcconfig: Path? = nil) {
        self = .debug(name: .debug, settings: settings, xcconfig: xcconfig)
    }

    /// A configuration's settings and xcconfig, without a name (Tuist 1).
    @available(*, deprecated, message: "Tuist 1: use .debug(name:settings:xcconfig:) or .release(name:settings:xcconfig:) instead.")
    public static func settings(_ settings: SettingsDictionary, xcconfig: Path? = nil) -> Configuration {
        .debug(name: .debug, settings: settings, xcconfig: xcconfig)
    }
}

extension Settings {
    /// Settings with the two standard configurations, Debug and Release, each given its settings and
    /// xcconfig by `debug` and `release` (Tuist 1).
    @available(*, deprecated, message: "Tuist 1: use .settings(base:configurations:defaultSettings:) instead.")
    public init(
        base: SettingsDictionary = [:],
        debug: Configuration? = nil,
        release: Configuration? = nil,
        defaultSettings: DefaultSettings = .recommended
    ) {
        let configurations: [Configuration] = [
            .debug(name: .debug, settings: debug?.settings ?? [:], xcconfig: debug?.xcconfig),
            .release(name: .release, settings: release?.settings ?? [:], xcconfig: release?.xcconfig),
        ]
        self = .settings(base: base, configurations: configurations, defaultSettings: defaultSettings)
    }

    /// Settings with the configurations given, in that order (Tuist 1).
    @available(*, deprecated, message: "Tuist 1: use .settings(base:configurations:defaultSettings:) instead.")
    public init(base: SettingsDictionary = [:], configurations: [Configuration], defaultSettings: DefaultSettings = .recommended) {
        self = .settings(base: base, configurations: configurations, defaultSettings: defaultSettings)
    }
}

extension TargetDependency {
    /// A system framework or library named with its extension, `ARKit.framework` or `libc++.tbd` (Tuist 1).
    @available(*, deprecated, message: "Tuist 1: use .sdk(name:type:status:condition:) with the name without extension instead.")
    public static func sdk(name: String, status: LinkingStatus = .required) -> TargetDependency {
        if name.hasSuffix(".framework") {
            return .sdk(name: String(name.dropLast(".framework".count)), type: .framework, status: status)
        }
        for suffix in [".tbd", ".dylib"] where name.hasPrefix("lib") && name.hasSuffix(suffix) {
            return .sdk(name: String(name.dropFirst(3).dropLast(suffix.count)), type: .library, status: status)
        }
        return .sdk(name: name, type: .framework, status: status)
    }
}

extension CoreDataModel {
    /// A Core Data model and, optionally, its current version (Tuist 1 and 2).
    @available(*, deprecated, message: "Tuist 1: use .coreDataModel(_:currentVersion:) instead.")
    public init(_ path: Path, currentVersion: String? = nil) {
        self = .coreDataModel(path, currentVersion: currentVersion)
    }
}

extension ExecutionAction {
    /// A script run before or after an action (Tuist 1 and 2).
    @available(*, deprecated, message: "Tuist 1: use .executionAction(title:scriptText:target:shellPath:) instead.")
    public init(title: String = "Run Script", scriptText: String, target: TargetReference? = nil) {
        self = .executionAction(title: title, scriptText: scriptText, target: target)
    }
}

extension BuildAction {
    /// A build action made with an initializer (Tuist 1 and 2).
    @available(*, deprecated, message: "Tuist 1: use .buildAction(targets:preActions:postActions:runPostActionsOnFailure:) instead.")
    public init(
        targets: [TargetReference],
        preActions: [ExecutionAction] = [],
        postActions: [ExecutionAction] = [],
        runPostActionsOnFailure: Bool = false
    ) {
        self = .buildAction(targets: targets, preActions: preActions, postActions: postActions,
                            runPostActionsOnFailure: runPostActionsOnFailure)
    }
}

extension TestableTarget {
    /// A test target of a test action made with an initializer (Tuist 1 and 2).
    @available(*, deprecated, message: "Tuist 1: use .testableTarget(target:isSkipped:parallelization:isRandomExecutionOrdering:) instead.")
    public init(target: TargetReference, skipped: Bool = false, parallelizable: Bool = false, randomExecutionOrdering: Bool = false) {
        self = .testableTarget(target: target, isSkipped: skipped, parallelization: parallelizable ? .enabled : .disabled,
                               isRandomExecutionOrdering: randomExecutionOrdering)
    }
}

extension Arguments {
    /// Environment variables (all on) and launch arguments (Tuist 2 and 3).
    @available(*, deprecated, message: "Tuist 3: use .arguments(environmentVariables:launchArguments:) instead.")
    public init(environment: [String: String] = [:], launchArguments: [LaunchArgument] = []) {
        self = .arguments(environmentVariables: environment.mapValues { .environmentVariable(value: $0, isEnabled: true) },
                          launchArguments: launchArguments)
    }

    /// Environment variables (all on) and launch arguments, each on or off (Tuist 1).
    @available(*, deprecated, message: "Tuist 1: use .arguments(environmentVariables:launchArguments:) instead.")
    public init(environment: [String: String] = [:], launchArguments: [String: Bool]) {
        let arguments = launchArguments.map { LaunchArgument.launchArgument(name: $0.key, isEnabled: $0.value) }
        self.init(environment: environment, launchArguments: arguments.sorted { $0.name < $1.name })
    }
}

extension RunAction {
    /// A run action on a preset configuration (Tuist 1 and 2).
    @available(*, deprecated, message: "Tuist 1: use .runAction(configuration:executable:arguments:options:diagnosticsOptions:) instead.")
    public init(
        config: PresetBuildConfiguration = .debug,
        executable: TargetReference? = nil,
        arguments: Arguments? = nil,
        options: RunActionOptions = .options(),
        diagnosticsOptions: [SchemeDiagnosticsOption] = []
    ) {
        self = .runAction(configuration: config.name, executable: executable, arguments: arguments, options: options,
                          diagnosticsOptions: SchemeDiagnosticsOption.options(diagnosticsOptions))
    }

    /// A run action on the configuration named `configurationName` (Tuist 1 and 2).
    @available(*, deprecated, message: "Tuist 1: use .runAction(configuration:executable:arguments:options:diagnosticsOptions:) instead.")
    public init(
        configurationName: String,
        executable: TargetReference? = nil,
        arguments: Arguments? = nil,
        options: RunActionOptions = .options(),
        diagnosticsOptions: [SchemeDiagnosticsOption] = []
    ) {
        self.init(config: .custom(configurationName), executable: executable, arguments: arguments, options: options,
                  diagnosticsOptions: diagnosticsOptions)
    }
}

extension TestAction {
    /// A test action on test targets and a preset configuration (Tuist 1 and 2).
    @available(*, deprecated, message: "Tuist 1: use .targets(_:arguments:configuration:...) instead.")
    public init(
        targets: [TestableTarget],
        arguments: Arguments? = nil,
        config: PresetBuildConfiguration = .debug,
        coverage: Bool = false,
        codeCoverageTargets: [TargetReference] = [],
        expandVariableFromTarget: TargetReference? = nil,
        preActions: [ExecutionAction] = [],
        postActions: [ExecutionAction] = [],
        diagnosticsOptions: [SchemeDiagnosticsOption] = [.mainThreadChecker],
        language: String? = nil,
        region: String? = nil
    ) {
        let options = TestActionOptions.options(language: language.map(SchemeLanguage.init(identifier:)), region: region,
                                                coverage: coverage, codeCoverageTargets: codeCoverageTargets)
        self = .targets(targets, arguments: arguments, configuration: config.name, expandVariableFromTarget: expandVariableFromTarget,
                        preActions: preActions, postActions: postActions, options: options,
                        diagnosticsOptions: SchemeDiagnosticsOption.options(diagnosticsOptions))
    }

    /// A test action on test targets and the configuration named `configurationName` (Tuist 1 and 2).
    @available(*, deprecated, message: "Tuist 1: use .targets(_:arguments:configuration:...) instead.")
    public init(
        targets: [TestableTarget],
        arguments: Arguments? = nil,
        configurationName: String,
        coverage: Bool = false,
        codeCoverageTargets: [TargetReference] = [],
        expandVariableFromTarget: TargetReference? = nil,
        preActions: [ExecutionAction] = [],
        postActions: [ExecutionAction] = [],
        diagnosticsOptions: [SchemeDiagnosticsOption] = [.mainThreadChecker],
        language: String? = nil,
        region: String? = nil
    ) {
        self.init(targets: targets, arguments: arguments, config: .custom(configurationName), coverage: coverage,
                  codeCoverageTargets: codeCoverageTargets, expandVariableFromTarget: expandVariableFromTarget, preActions: preActions,
                  postActions: postActions, diagnosticsOptions: diagnosticsOptions, language: language, region: region)
    }
}
