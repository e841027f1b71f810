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

    /// The keys Xcode's generated Info.plist takes from an `INFOPLIST_KEY_` setting (Xcode's
    /// build settings reference, "Info.plist Values").
    static let generatedKeys: Set<String> = [
        "CFBundleDisplayName", "LSApplicationCategoryType", "NSCameraUsageDescription", "NSContactsUsageDescription",
        "NSFaceIDUsageDescription", "NSLocationWhenInUseUsageDescription", "NSMicrophoneUsageDescription",
        "NSPhotoLibraryUsageDescription", "NSHumanReadableCopyright", "UILaunchScreen_Generation", "UIRequiredDeviceCapabilities",
        "UISupportedInterfaceOrientations", "UIApplicationSceneManifest_Generation", "ITSAppUsesNonExemptEncryption",
    ]

    /// Findings on the Info.plist Xcode generates (`GENERATE_INFOPLIST_FILE`, no file of its
    /// own) located where it comes from: the project file, whose build settings make it. A key
    /// an `INFOPLIST_KEY_` setting can write is fixed there; any other (IntuneMAMSettings, URL
    /// types) needs an Info.plist file of the target's, which Xcode merges with the generated keys.
    static func locatedAtTheBuildSettings(_ findings: [LintFinding], generated label: String, project: String, target: String) -> [LintFinding] {
        findings.map { f in
            guard f.file == label else { return f }
            let key = String(f.keyPath.split(separator: ".").first ?? "")
            let fix = generatedKeys.contains(key)
                ? "set INFOPLIST_KEY_\(key) in target \(target)'s build settings (Xcode writes it into the Info.plist it generates)"
                : "give target \(target) an Info.plist file (INFOPLIST_FILE) with \(key.isEmpty ? "it" : key); Xcode merges it with the keys it generates" + (f.fix.isEmpty ? "" : ": " + f.fix)
            return LintFinding(f.severity, rule: f.rule, file: project, line: nil, keyPath: f.keyPath,
                               problem: "(target \(target), the Info.plist Xcode generates: GENERATE_INFOPLIST_FILE) \(f.problem)", fix: fix)
        }
    }
}
