import Foundation
import MAMBundle

/// Which configuration and platform a project's target is read for.
extension ProjectLinter {
    /// The configuration lint reads `target` in: `--configuration` where it exists, else the
    /// target's default.
    static func configuration(of target: XcodeProject.Target, in project: XcodeProject, options: Options) -> String {
        options.configuration.flatMap { name in target.configuration(named: name) != nil || project.configurations.contains { $0.name == name } ? name : nil }
            ?? target.defaultConfiguration ?? project.defaultConfiguration ?? target.configurations.first?.name ?? "Release"
    }

    /// Platforms by their SDK names, for the skipped targets' reports.
    static let platformNames = ["macosx": "macOS", "watchos": "watchOS", "watchsimulator": "watchOS", "appletvos": "tvOS",
                                "appletvsimulator": "tvOS", "xros": "visionOS", "xrsimulator": "visionOS", "driverkit": "DriverKit"]

    /// `nil` for a target built for iOS or iPadOS (`SUPPORTED_PLATFORMS` naming iphoneos, else
    /// `SDKROOT` iphoneos or unset); otherwise what it is built for, e.g. "a watchOS target
    /// (SDKROOT = watchos)": the Intune App SDK for iOS has nothing to check there.
    static func platform(of target: XcodeProject.Target, in project: XcodeProject, root: URL, options: Options) -> String? {
        var ignored: [XCConfig.LoadProblem] = []
        let values = project.settings(for: target, configuration: configuration(of: target, in: project, options: options), root: root, problems: &ignored)
        let settings = BuildSettings(values).overlaid(with: options.buildSettings)
        var unresolved: [UnresolvedBuildSetting] = []
        func value(_ name: String) -> String? {
            settings.variables[name].map { settings.expand($0, keyPath: name, unresolved: &unresolved).lowercased() }
        }
        if let supported = value("SUPPORTED_PLATFORMS"), !supported.isEmpty, !supported.contains("$(") {
            let list = supported.split(separator: " ").map(String.init)
            if list.contains(where: { $0.hasPrefix("iphone") }) { return nil }
            let names = Set(list.compactMap { platformNames[$0] }).sorted()
            return "a \(names.isEmpty ? supported : names.joined(separator: "/")) target (SUPPORTED_PLATFORMS = \(supported))"
        }
        guard let sdk = value("SDKROOT"), !sdk.isEmpty, !sdk.hasPrefix("iphone"), sdk != "auto" else { return nil }
        let base = String(sdk.prefix { $0.isLetter })
        guard let name = platformNames[base] else { return nil }
        return "a \(name) target (SDKROOT = \(sdk))"
    }
}
