// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// `SWIFT_COMPILATION_MODE` values.
public enum SwiftCompilationMode: String, Sendable {
    case singlefile
    case wholemodule
}

/// `DEBUG_INFORMATION_FORMAT` values.
public enum DebugInformationFormat: String, Sendable {
    case dwarf
    case dwarfWithDsym = "dwarf-with-dsym"
}

/// `SWIFT_OPTIMIZATION_LEVEL` values.
public enum SwiftOptimizationLevel: String, Sendable {
    case o = "-O"
    case oNone = "-Onone"
    case oSize = "-Osize"
}

extension SettingsDictionary {
    /// Adds `other`'s settings, `other` winning where both set a key.
    public mutating func merge(_ other: SettingsDictionary) {
        merge(other) { _, new in new }
    }

    /// These settings with `other`'s added, `other` winning where both set a key.
    public func merging(_ other: SettingsDictionary) -> SettingsDictionary {
        merging(other) { _, new in new }
    }

    // MARK: Signing

    /// Manual signing: `CODE_SIGN_STYLE` Manual, and the identity and profile when given.
    public func manualCodeSigning(identity: String? = nil, provisioningProfileSpecifier: String? = nil) -> SettingsDictionary {
        var signing: SettingsDictionary = ["CODE_SIGN_STYLE": "Manual"]
        if let provisioningProfileSpecifier { signing["PROVISIONING_PROFILE_SPECIFIER"] = .string(provisioningProfileSpecifier) }
        let merged = merging(signing)
        guard let identity else { return merged }
        return merged.codeSignIdentity(identity)
    }

    /// Automatic signing with the team `devTeam`.
    public func automaticCodeSigning(devTeam: String) -> SettingsDictionary {
        merging(["CODE_SIGN_STYLE": "Automatic", "DEVELOPMENT_TEAM": .string(devTeam)])
    }

    /// `CODE_SIGN_IDENTITY` "Apple Development".
    public func codeSignIdentityAppleDevelopment() -> SettingsDictionary {
        codeSignIdentity("Apple Development")
    }

    /// `CODE_SIGN_IDENTITY`.
    public func codeSignIdentity(_ identity: String) -> SettingsDictionary {
        merging(["CODE_SIGN_IDENTITY": .string(identity)])
    }

    // MARK: Versioning

    /// `CURRENT_PROJECT_VERSION`.
    public func currentProjectVersion(_ version: String) -> SettingsDictionary {
        merging(["CURRENT_PROJECT_VERSION": .string(version)])
    }

    /// `MARKETING_VERSION`.
    public func marketingVersion(_ version: String) -> SettingsDictionary {
        merging(["MARKETING_VERSION": .string(version)])
    }

    /// `VERSIONING_SYSTEM` "apple-generic".
    public func appleGenericVersioningSystem() -> SettingsDictionary {
        merging(["VERSIONING_SYSTEM": "apple-generic"])
    }

    /// `VERSION_INFO_STRING`, and `VERSION_INFO_PREFIX` / `VERSION_INFO_SUFFIX` when given.
    public func versionInfo(_ version: String, prefix: String? = nil, suffix: String? = nil) -> SettingsDictionary {
        var info: SettingsDictionary = ["VERSION_INFO_STRING": .string(version)]
        if let prefix { info["VERSION_INFO_PREFIX"] = .string(prefix) }
        if let suffix { info["VERSION_INFO_SUFFIX"] = .string(suffix) }
        return merging(info)
    }

    // MARK: Swift compiler

    /// `SWIFT_VERSION`.
    public func swiftVersion(_ version: String) -> SettingsDictionary {
        merging(["SWIFT_VERSION": .string(version)])
    }

    /// `OTHER_SWIFT_FLAGS`, the flags joined by spaces.
    public func otherSwiftFlags(_ flags: String...) -> SettingsDictionary {
        merging(["OTHER_SWIFT_FLAGS": .string(flags.joined(separator: " "))])
    }

    /// `OTHER_SWIFT_FLAGS` as a list.
    public func otherSwiftFlags(_ flags: [String]) -> SettingsDictionary {
        merging(["OTHER_SWIFT_FLAGS": .array(flags)])
    }

    /// `SWIFT_ACTIVE_COMPILATION_CONDITIONS`, the conditions joined by spaces.
    public func swiftActiveCompilationConditions(_ conditions: String...) -> SettingsDictionary {
        merging(["SWIFT_ACTIVE_COMPILATION_CONDITIONS": .string(conditions.joined(separator: " "))])
    }

    /// `SWIFT_ACTIVE_COMPILATION_CONDITIONS` as a list.
    public func swiftActiveCompilationConditions(_ conditions: [String]) -> SettingsDictionary {
        merging(["SWIFT_ACTIVE_COMPILATION_CONDITIONS": .array(conditions)])
    }

    /// `SWIFT_COMPILATION_MODE`.
    public func swiftCompilationMode(_ mode: SwiftCompilationMode) -> SettingsDictionary {
        merging(["SWIFT_COMPILATION_MODE": SettingValue(mode)])
    }

    /// `SWIFT_OPTIMIZATION_LEVEL`.
    public func swiftOptimizationLevel(_ level: SwiftOptimizationLevel) -> SettingsDictionary {
        merging(["SWIFT_OPTIMIZATION_LEVEL": SettingValue(level)])
    }

    /// `SWIFT_OPTIMIZE_OBJECT_LIFETIME` YES or NO.
    public func swiftOptimizeObjectLifetimes(_ enabled: Bool) -> SettingsDictionary {
        merging(["SWIFT_OPTIMIZE_OBJECT_LIFETIME": SettingValue(booleanLiteral: enabled)])
    }

    /// `SWIFT_OBJC_BRIDGING_HEADER`.
    public func swiftObjcBridgingHeaderPath(_ path: String) -> SettingsDictionary {
        merging(["SWIFT_OBJC_BRIDGING_HEADER": .string(path)])
    }

    @available(*, deprecated, renamed: "swiftObjcBridgingHeaderPath")
    public func swiftObjcBridingHeaderPath(_ path: String) -> SettingsDictionary {
        swiftObjcBridgingHeaderPath(path)
    }

    // MARK: Clang, linking, build options

    /// `OTHER_CFLAGS`.
    public func otherCFlags(_ flags: [String]) -> SettingsDictionary {
        merging(["OTHER_CFLAGS": .array(flags)])
    }

    /// `OTHER_LDFLAGS`.
    public func otherLinkerFlags(_ flags: [String]) -> SettingsDictionary {
        merging(["OTHER_LDFLAGS": .array(flags)])
    }

    /// `ENABLE_BITCODE` YES or NO.
    public func bitcodeEnabled(_ enabled: Bool) -> SettingsDictionary {
        merging(["ENABLE_BITCODE": SettingValue(booleanLiteral: enabled)])
    }

    /// `DEBUG_INFORMATION_FORMAT`.
    public func debugInformationFormat(_ format: DebugInformationFormat) -> SettingsDictionary {
        merging(["DEBUG_INFORMATION_FORMAT": SettingValue(format)])
    }

    // MARK: Info.plist keys

    /// `INFOPLIST_KEY_LSApplicationCategoryType`.
    public func applicationCategory(_ category: ApplicationCategory) -> SettingsDictionary {
        merging(["INFOPLIST_KEY_LSApplicationCategoryType": .string(category.rawValue)])
    }

    /// `INFOPLIST_KEY_CFBundleDisplayName`.
    public func bundleDisplayName(_ name: String) -> SettingsDictionary {
        merging(["INFOPLIST_KEY_CFBundleDisplayName": .string(name)])
    }
}
