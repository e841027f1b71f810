// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// An SDK platform.
public enum Platform: String, Codable, Equatable, CaseIterable, Sendable {
    case iOS = "ios"
    case macOS = "macos"
    case watchOS = "watchos"
    case tvOS = "tvos"
    case visionOS = "visionos"
}

/// A set of deployment destinations.
public typealias Destinations = Set<Destination>

extension Destinations {
    /// Apple Watch.
    public static var watchOS: Destinations { [.appleWatch] }
    /// iPhone, iPad and Macs running the iPad app ("Designed for iPad").
    public static var iOS: Destinations { [.iPhone, .iPad, .macWithiPadDesign] }
    /// Native macOS.
    public static var macOS: Destinations { [.mac] }
    /// Apple TV.
    public static var tvOS: Destinations { [.appleTv] }
    /// Apple Vision.
    public static var visionOS: Destinations { [.appleVision] }

    /// The SDK platforms these destinations build for.
    public var platforms: Set<Platform> {
        Set<Platform>(map(\.platform))
    }
}

/// A device family a target can be deployed to.
public enum Destination: String, Codable, Equatable, CaseIterable, Sendable {
    case iPhone
    case iPad
    case mac
    case macWithiPadDesign
    case macCatalyst
    case appleWatch
    case appleTv
    case appleVision
    case appleVisionWithiPadDesign

    /// The SDK platform this destination builds with.
    public var platform: Platform {
        switch self {
        case .iPhone, .iPad, .macCatalyst, .macWithiPadDesign, .appleVisionWithiPadDesign: .iOS
        case .mac: .macOS
        case .appleTv: .tvOS
        case .appleWatch: .watchOS
        case .appleVision: .visionOS
        }
    }
}

/// The minimum OS version for each platform a target supports.
public struct DeploymentTargets: Hashable, Codable, Sendable {
    public var iOS: String?
    public var macOS: String?
    public var watchOS: String?
    public var tvOS: String?
    public var visionOS: String?

    /// Minimum versions for several platforms at once.
    public static func multiplatform(
        iOS: String? = nil,
        macOS: String? = nil,
        watchOS: String? = nil,
        tvOS: String? = nil,
        visionOS: String? = nil
    ) -> Self {
        DeploymentTargets(iOS: iOS, macOS: macOS, watchOS: watchOS, tvOS: tvOS, visionOS: visionOS)
    }

    /// The minimum version for `platform`, if one is set.
    public subscript(platform: Platform) -> String? {
        switch platform {
        case .iOS: iOS
        case .macOS: macOS
        case .watchOS: watchOS
        case .tvOS: tvOS
        case .visionOS: visionOS
        }
    }

    public static func iOS(_ version: String) -> DeploymentTargets { DeploymentTargets(iOS: version) }
    public static func macOS(_ version: String) -> DeploymentTargets { DeploymentTargets(macOS: version) }
    public static func watchOS(_ version: String) -> DeploymentTargets { DeploymentTargets(watchOS: version) }
    public static func tvOS(_ version: String) -> DeploymentTargets { DeploymentTargets(tvOS: version) }
    public static func visionOS(_ version: String) -> DeploymentTargets { DeploymentTargets(visionOS: version) }
}

/// A set of platform filters.
public typealias PlatformFilters = Set<PlatformFilter>

extension PlatformFilters {
    /// Every platform filter.
    public static var all: PlatformFilters { Set(PlatformFilter.allCases) }
}

/// A platform a dependency, file or setting can be limited to.
public enum PlatformFilter: Comparable, Hashable, Codable, CaseIterable, Sendable {
    case ios
    case macos
    case tvos
    case catalyst
    case driverkit
    case watchos
    case visionos
}

/// A condition limiting something to some platforms; made with `.when(_:)`.
public struct PlatformCondition: Codable, Hashable, Equatable, Sendable {
    public let platformFilters: Set<PlatformFilter>

    private init(platformFilters: Set<PlatformFilter>) {
        self.platformFilters = platformFilters
    }

    /// A condition on `platformFilters`, or nil when the set is empty.
    public static func when(_ platformFilters: Set<PlatformFilter>) -> PlatformCondition? {
        platformFilters.isEmpty ? nil : PlatformCondition(platformFilters: platformFilters)
    }
}
