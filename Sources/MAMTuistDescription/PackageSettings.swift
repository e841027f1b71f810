// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// How Tuist integrates the dependencies of `Tuist/Package.swift` (declared inside `#if TUIST`).
public struct PackageSettings: Codable, Equatable, Sendable {
    /// Product types by package product name (the default is a static framework).
    public var productTypes: [String: Product]
    /// Destinations by product name, for products that do not support them all.
    public var productDestinations: [String: Destinations]
    public var baseSettings: Settings
    public var targetSettings: [String: Settings]
    public var projectOptions: [String: Project.Options]

    public init(
        productTypes: [String: Product] = [:],
        productDestinations: [String: Destinations] = [:],
        baseSettings: Settings = .settings(),
        targetSettings: [String: Settings] = [:],
        projectOptions: [String: Project.Options] = [:]
    ) {
        self.productTypes = productTypes
        self.productDestinations = productDestinations
        self.baseSettings = baseSettings
        self.targetSettings = targetSettings
        self.projectOptions = projectOptions
    }

    @available(*, deprecated, renamed: "init(productTypes:productDestinations:baseSettings:targetSettings:projectOptions:)",
               message: "Consider using the 'Settings' type for parameter 'targetSettings' instead of 'SettingsDictionary'.")
    public init(
        productTypes: [String: Product] = [:],
        productDestinations: [String: Destinations] = [:],
        baseSettings: Settings = .settings(),
        targetSettings: [String: SettingsDictionary],
        projectOptions: [String: Project.Options] = [:]
    ) {
        self.init(productTypes: productTypes, productDestinations: productDestinations, baseSettings: baseSettings,
                  targetSettings: targetSettings.mapValues { Settings.settings(base: $0) }, projectOptions: projectOptions)
    }
}
