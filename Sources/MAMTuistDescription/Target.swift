// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// A target of a project; made with `.target(...)` (or `.foreignBuild(...)`).
public struct Target: Codable, Equatable, Sendable {
    public var name: String
    public var destinations: Destinations
    public var product: Product
    /// The product's name; nil means `name`.
    public var productName: String?
    public var bundleId: String
    public var deploymentTargets: DeploymentTargets?
    public var infoPlist: InfoPlist?
    public var sources: SourceFilesList?
    public var resources: ResourceFileElements?
    public var copyFiles: [CopyFilesAction]?
    public var headers: Headers?
    /// Nil when entitlements differ by configuration (set `CODE_SIGN_ENTITLEMENTS` per configuration instead).
    public var entitlements: Entitlements?
    public var scripts: [TargetScript]
    public var dependencies: [TargetDependency]
    public var settings: Settings?
    public var coreDataModels: [CoreDataModel]
    /// Used by the schemes Tuist generates for the target.
    public var environmentVariables: [String: EnvironmentVariable]
    /// Used by the schemes Tuist generates for the target.
    public var launchArguments: [LaunchArgument]
    public var additionalFiles: [FileElement]
    public var buildRules: [BuildRule]
    public var mergedBinaryType: MergedBinaryType
    public var mergeable: Bool
    public var onDemandResourcesTags: OnDemandResourcesTags?
    public var metadata: TargetMetadata
    public var buildableFolders: [BuildableFolder]
    /// Set for a target made with `.foreignBuild(...)`.
    public var foreignBuild: ForeignBuild?

    /// What a foreign build target runs and produces.
    public struct ForeignBuild: Codable, Equatable, Sendable {
        public let script: String
        public let inputs: [Input]
        public let output: ForeignBuildOutput
    }

    public static func target(
        name: String,
        destinations: Destinations,
        product: Product,
        productName: String? = nil,
        bundleId: String,
        deploymentTargets: DeploymentTargets? = nil,
        infoPlist: InfoPlist? = .default,
        sources: SourceFilesList? = nil,
        resources: ResourceFileElements? = nil,
        buildableFolders: [BuildableFolder] = [],
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
        onDemandResourcesTags: OnDemandResourcesTags? = nil,
        metadata: TargetMetadata = .default
    ) -> Self {
        Target(name: name, destinations: destinations, product: product, productName: productName, bundleId: bundleId,
               deploymentTargets: deploymentTargets, infoPlist: infoPlist, sources: sources, resources: resources,
               copyFiles: copyFiles, headers: headers, entitlements: entitlements, scripts: scripts, dependencies: dependencies,
               settings: settings, coreDataModels: coreDataModels, environmentVariables: environmentVariables,
               launchArguments: launchArguments, additionalFiles: additionalFiles, buildRules: buildRules,
               mergedBinaryType: mergedBinaryType, mergeable: mergeable, onDemandResourcesTags: onDemandResourcesTags,
               metadata: metadata, buildableFolders: buildableFolders, foreignBuild: nil)
    }

    /// A target that runs another build system's `script` and yields its `output` (an aggregate
    /// target others depend on with `.target(name:)`).
    public static func foreignBuild(
        name: String,
        destinations: Destinations,
        script: String,
        inputs: [Input] = [],
        output: ForeignBuildOutput,
        metadata: TargetMetadata = .default
    ) -> Self {
        var target = Target.target(name: name, destinations: destinations, product: .staticLibrary,
                                   bundleId: "tuist.foreign-build.\(name)", infoPlist: nil, metadata: metadata)
        target.foreignBuild = ForeignBuild(script: script, inputs: inputs, output: output)
        return target
    }
}
