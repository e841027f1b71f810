// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

// Names of Tuist 3.x (and 2.x) that Tuist 4 removed, so manifests written for Tuist 3 compile.
// Each is deprecated here; a Tuist 4 manifest never names them.

/// The minimum OS version of a single-platform target (Tuist 3), with the iOS device families.
@available(*, deprecated, message: "Tuist 3: use destinations: and DeploymentTargets (deploymentTargets:) instead.")
public enum DeploymentTarget: Codable, Hashable, Sendable {
    /// iOS `targetVersion` on `devices`; `supportsMacDesignedForIOS` lets the iPad app run on Apple silicon Macs.
    case iOS(targetVersion: String, devices: DeploymentDevice, supportsMacDesignedForIOS: Bool = true)
    case macOS(targetVersion: String)
    case watchOS(targetVersion: String)
    case tvOS(targetVersion: String)
    case visionOS(targetVersion: String)

    /// The minimum OS version.
    public var targetVersion: String {
        switch self {
        case let .iOS(version, _, _), let .macOS(version), let .watchOS(version), let .tvOS(version), let .visionOS(version):
            version
        }
    }

    /// The same minimum version as a Tuist 4 value.
    var deploymentTargets: DeploymentTargets {
        switch self {
        case let .iOS(version, _, _): .iOS(version)
        case let .macOS(version): .macOS(version)
        case let .watchOS(version): .watchOS(version)
        case let .tvOS(version): .tvOS(version)
        case let .visionOS(version): .visionOS(version)
        }
    }

    /// The destinations a Tuist 3 target on `platform` builds for. An iOS target is on iPhone and
    /// iPad unless `deploymentTarget` names its devices (`.mac` is Mac Catalyst, `.vision` the iPad
    /// app on Apple Vision); "Designed for iPad" on Mac is left out (mamsim reads device families).
    static func destinations(platform: Platform, deploymentTarget: DeploymentTarget?) -> Destinations {
        switch platform {
        case .iOS:
            guard case let .iOS(_, devices, _)? = deploymentTarget else { return [.iPhone, .iPad] }
            var destinations: Destinations = []
            if devices.contains(.iphone) { destinations.insert(.iPhone) }
            if devices.contains(.ipad) { destinations.insert(.iPad) }
            if devices.contains(.mac) { destinations.insert(.macCatalyst) }
            if devices.contains(.vision) { destinations.insert(.appleVisionWithiPadDesign) }
            return destinations.isEmpty ? [.iPhone, .iPad] : destinations
        case .macOS: return [.mac]
        case .watchOS: return [.appleWatch]
        case .tvOS: return [.appleTv]
        case .visionOS: return [.appleVision]
        }
    }
}

/// The device families of an iOS deployment target (Tuist 3).
@available(*, deprecated, message: "Tuist 3: use Destinations (.iPhone, .iPad, .macCatalyst…) instead.")
public struct DeploymentDevice: OptionSet, Codable, Hashable, Sendable {
    public static let iphone = DeploymentDevice(rawValue: 1 << 0)
    public static let ipad = DeploymentDevice(rawValue: 1 << 1)
    /// Mac Catalyst.
    public static let mac = DeploymentDevice(rawValue: 1 << 2)
    /// The iPad app on Apple Vision.
    public static let vision = DeploymentDevice(rawValue: 1 << 3)

    public let rawValue: UInt

    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }
}

extension Target {
    /// A single-platform target (Tuist 3; Tuist 1's `actions:` are run as scripts before `scripts:`).
    @available(*, deprecated, message: "Tuist 3: use .target(name:destinations:product:bundleId:deploymentTargets:...) instead.")
    public init(
        name: String,
        platform: Platform,
        product: Product,
        productName: String? = nil,
        bundleId: String,
        deploymentTarget: DeploymentTarget? = nil,
        infoPlist: InfoPlist? = .default,
        sources: SourceFilesList? = nil,
        resources: ResourceFileElements? = nil,
        copyFiles: [CopyFilesAction]? = nil,
        headers: Headers? = nil,
        entitlements: Entitlements? = nil,
        actions: [TargetScript] = [],
        scripts: [TargetScript] = [],
        dependencies: [TargetDependency] = [],
        settings: Settings? = nil,
        coreDataModels: [CoreDataModel] = [],
        environmentVariables: [String: EnvironmentVariable] = [:],
        launchArguments: [LaunchArgument] = [],
        additionalFiles: [FileElement] = [],
        buildRules: [BuildRule] = [],
        mergedBinaryType: MergedBinaryType = .disabled,
        mergeable: Bool = false
    ) {
        self = .target(name: name, destinations: DeploymentTarget.destinations(platform: platform, deploymentTarget: deploymentTarget),
                       product: product, productName: productName, bundleId: bundleId,
                       deploymentTargets: deploymentTarget?.deploymentTargets, infoPlist: infoPlist, sources: sources,
                       resources: resources, copyFiles: copyFiles, headers: headers, entitlements: entitlements,
                       scripts: actions + scripts, dependencies: dependencies, settings: settings, coreDataModels: coreDataModels,
                       environmentVariables: environmentVariables, launchArguments: launchArguments, additionalFiles: additionalFiles,
                       buildRules: buildRules, mergedBinaryType: mergedBinaryType, mergeable: mergeable)
    }

    /// A single-platform target whose environment variables are plain strings (Tuist 1 to 3).
    @available(*, deprecated, message: "Tuist 3: use .target(...) with environmentVariables: instead.")
    public init(
        name: String,
        platform: Platform,
        product: Product,
        productName: String? = nil,
        bundleId: String,
        deploymentTarget: DeploymentTarget? = nil,
        infoPlist: InfoPlist? = .default,
        sources: SourceFilesList? = nil,
        resources: ResourceFileElements? = nil,
        copyFiles: [CopyFilesAction]? = nil,
        headers: Headers? = nil,
        entitlements: Entitlements? = nil,
        actions: [TargetScript] = [],
        scripts: [TargetScript] = [],
        dependencies: [TargetDependency] = [],
        settings: Settings? = nil,
        coreDataModels: [CoreDataModel] = [],
        environment: [String: String],
        launchArguments: [LaunchArgument] = [],
        additionalFiles: [FileElement] = [],
        buildRules: [BuildRule] = [],
        mergedBinaryType: MergedBinaryType = .disabled,
        mergeable: Bool = false
    ) {
        self.init(name: name, platform: platform, product: product, productName: productName, bundleId: bundleId,
                  deploymentTarget: deploymentTarget, infoPlist: infoPlist, sources: sources, resources: resources,
                  copyFiles: copyFiles, headers: headers, entitlements: entitlements, actions: actions, scripts: scripts,
                  dependencies: dependencies, settings: settings, coreDataModels: coreDataModels,
                  environmentVariables: environment.mapValues { .environmentVariable(value: $0, isEnabled: true) },
                  launchArguments: launchArguments, additionalFiles: additionalFiles, buildRules: buildRules,
                  mergedBinaryType: mergedBinaryType, mergeable: mergeable)
    }

    /// A multi-destination target made with an initializer (late Tuist 3).
    @available(*, deprecated, message: "Tuist 3: use .target(name:destinations:...) instead.")
    public init(
        name: String,
        destinations: Destinations,
        product: Product,
        productName: String? = nil,
        bundleId: String,
        deploymentTargets: DeploymentTargets? = nil,
        infoPlist: InfoPlist? = .default,
        sources: SourceFilesList? = nil,
        resources: ResourceFileElements? = nil,
        copyFiles: [CopyFilesAction]? = nil,
        headers: Headers? = nil,
        entitlements: Entitlements? = nil,
        scripts: [TargetScript] = [],
        dependencies: [TargetDependency] = [],
        settings: Settings? = nil,
        coreDataModels: [CoreDataModel] = [],
        environmentVariables: [String: EnvironmentVariable] = [:],
        launchArguments: [LaunchArgument] = [],
        additionalFiles: [FileElement] = [],
        buildRules: [BuildRule] = [],
        mergedBinaryType: MergedBinaryType = .disabled,
        mergeable: Bool = false,
        onDemandResourcesTags: OnDemandResourcesTags? = nil
    ) {
        self = .target(name: name, destinations: destinations, product: product, productName: productName, bundleId: bundleId,
                       deploymentTargets: deploymentTargets, infoPlist: infoPlist, sources: sources, resources: resources,
                       copyFiles: copyFiles, headers: headers, entitlements: entitlements, scripts: scripts,
                       dependencies: dependencies, settings: settings, coreDataModels: coreDataModels,
                       environmentVariables: environmentVariables, launchArguments: launchArguments, additionalFiles: additionalFiles,
                       buildRules: buildRules, mergedBinaryType: mergedBinaryType, mergeable: mergeable,
                       onDemandResourcesTags: onDemandResourcesTags)
    }
}

extension Scheme {
    /// A scheme made with an initializer (Tuist 1 to 3).
    @available(*, deprecated, message: "Tuist 3: use .scheme(name:shared:hidden:buildAction:...) instead.")
    public init(
        name: String,
        shared: Bool = true,
        hidden: Bool = false,
        buildAction: BuildAction? = nil,
        testAction: TestAction? = nil,
        runAction: RunAction? = nil,
        archiveAction: ArchiveAction? = nil,
        profileAction: ProfileAction? = nil,
        analyzeAction: AnalyzeAction? = nil
    ) {
        self.init(name, shared: shared, hidden: hidden, buildAction: buildAction, testAction: testAction, runAction: runAction,
                  archiveAction: archiveAction, profileAction: profileAction, analyzeAction: analyzeAction)
    }
}

extension Path {
    /// A path relative to the manifest's folder (Tuist 3).
    @available(*, deprecated, message: "Tuist 3: use .path(_:) or a string literal instead.")
    public init(_ path: String) {
        self.init(path, type: .relativeToManifest)
    }
}

extension Headers {
    /// Public, private and project headers, project headers excluding the other two (Tuist 1 to 3).
    @available(*, deprecated, message: "Tuist 3: use .headers(public:private:project:exclusionRule:) instead.")
    public init(public: FileList? = nil, private: FileList? = nil, project: FileList? = nil) {
        self = .headers(public: `public`, private: `private`, project: project)
    }
}

extension InfoPlist {
    /// The value of an Info.plist key (Tuist 1 and 2 spelling).
    @available(*, deprecated, message: "Tuist 3: InfoPlist.Value was renamed to Plist.Value.")
    public typealias Value = Plist.Value
}

/// A diagnostics switch of a run or test action (Tuist 1 to 3), as a list instead of `SchemeDiagnosticsOptions`.
@available(*, deprecated, message: "Tuist 3: use SchemeDiagnosticsOptions (.options(...)) instead.")
public enum SchemeDiagnosticsOption: String, Equatable, Codable, Sendable {
    case enableAddressSanitizer
    case enableDetectStackUseAfterReturn
    case enableThreadSanitizer
    case mainThreadChecker
    case performanceAntipatternChecker

    /// The switches in `list` as Tuist 4 options (any switch not listed is off).
    static func options(_ list: [SchemeDiagnosticsOption]) -> SchemeDiagnosticsOptions {
        .options(addressSanitizerEnabled: list.contains(.enableAddressSanitizer),
                 detectStackUseAfterReturnEnabled: list.contains(.enableDetectStackUseAfterReturn),
                 threadSanitizerEnabled: list.contains(.enableThreadSanitizer),
                 mainThreadCheckerEnabled: list.contains(.mainThreadChecker),
                 performanceAntipatternCheckerEnabled: list.contains(.performanceAntipatternChecker))
    }
}
