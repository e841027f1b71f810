// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// How a dependency is linked.
public enum LinkingStatus: String, Codable, Hashable, Sendable {
    case required
    /// Weakly linked.
    case optional
    /// Not linked.
    case none
}

/// The signature an XCFramework is expected to carry.
public enum XCFrameworkSignature: Equatable, Hashable, Codable, Sendable {
    case unsigned
    case signedWithAppleCertificate(teamIdentifier: String, teamName: String)
    case selfSigned(fingerprint: String)
}

/// The kind of SDK a `.sdk` dependency names.
public enum SDKType: String, Codable, Hashable, Sendable {
    /// A library in the SDK's `usr/lib`.
    case library
    /// A Swift library in the SDK's `usr/lib/swift`.
    case swiftLibrary
    case framework
}

/// What a target depends on.
public enum TargetDependency: Codable, Hashable, Sendable {
    /// How an Xcode-integrated Swift package product is used.
    public enum PackageType: Codable, Hashable, Sendable {
        case runtime
        case runtimeEmbedded
        case plugin
        case macro
    }

    /// A target of the same project.
    case target(name: String, status: LinkingStatus = .required, condition: PlatformCondition? = nil)
    /// A macro target of the same project.
    case macro(name: String)
    /// A target of the project in the folder `path`.
    case project(target: String, path: Path, status: LinkingStatus = .required, condition: PlatformCondition? = nil)
    /// A prebuilt framework.
    case framework(path: Path, status: LinkingStatus = .required, condition: PlatformCondition? = nil)
    /// A prebuilt library with its headers and, optionally, Swift module map.
    case library(path: Path, publicHeaders: Path, swiftModuleMap: Path?, condition: PlatformCondition? = nil)
    /// A product of a Swift package integrated by Xcode (`Project.packages`).
    case package(product: String, type: PackageType = .runtime, condition: PlatformCondition? = nil)
    /// A system library or framework, named without its extension.
    case sdk(name: String, type: SDKType, status: LinkingStatus, condition: PlatformCondition? = nil)
    /// A prebuilt XCFramework.
    case xcframework(
        path: Path,
        expectedSignature: XCFrameworkSignature? = nil,
        status: LinkingStatus = .required,
        condition: PlatformCondition? = nil
    )
    /// XCTest.
    case xctest
    /// A dependency of `Tuist/Package.swift`.
    case external(name: String, condition: PlatformCondition? = nil)

    /// A required system library or framework.
    public static func sdk(name: String, type: SDKType, condition: PlatformCondition? = nil) -> TargetDependency {
        .sdk(name: name, type: type, status: .required, condition: condition)
    }

    /// The target `target` of the same project.
    public static func target(_ target: Target, condition: PlatformCondition? = nil) -> TargetDependency {
        .target(name: target.name, condition: condition)
    }

    /// The case's name.
    public var typeName: String {
        switch self {
        case .target: "target"
        case .macro: "macro"
        case .project: "project"
        case .framework: "framework"
        case .library: "library"
        case .package: "package"
        case .sdk: "sdk"
        case .xcframework: "xcframework"
        case .xctest: "xctest"
        case .external: "external"
        }
    }
}
