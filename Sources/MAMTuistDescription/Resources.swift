// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// A resource: a glob of files, or a folder kept as a folder reference; either may carry
/// on-demand-resource tags.
public enum ResourceFileElement: Codable, Equatable, Sendable, Hashable {
    case glob(pattern: Path, excluding: [Path] = [], tags: [String] = [], inclusionCondition: PlatformCondition? = nil)
    case folderReference(path: Path, tags: [String] = [], inclusionCondition: PlatformCondition? = nil)
}

extension ResourceFileElement: ExpressibleByStringInterpolation {
    public init(stringLiteral value: String) {
        self = .glob(pattern: .path(value))
    }
}

/// A target's resources, and its privacy manifest if it has one.
public struct ResourceFileElements: Codable, Equatable, Sendable, ExpressibleByStringInterpolation,
    ExpressibleByArrayLiteral
{
    public var resources: [ResourceFileElement]
    /// The `PrivacyInfo.xcprivacy` Tuist writes.
    public var privacyManifest: PrivacyManifest?

    public static func resources(_ resources: [ResourceFileElement], privacyManifest: PrivacyManifest? = nil) -> Self {
        self.init(resources: resources, privacyManifest: privacyManifest)
    }
}

extension ResourceFileElements {
    public init(stringLiteral value: String) {
        self.init(resources: [.glob(pattern: .path(value))])
    }

    public init(arrayLiteral elements: ResourceFileElement...) {
        self.init(resources: elements)
    }
}

/// The content of a privacy manifest (`PrivacyInfo.xcprivacy`).
public struct PrivacyManifest: Codable, Equatable, Sendable {
    /// `NSPrivacyTracking`.
    public var tracking: Bool
    /// `NSPrivacyTrackingDomains`.
    public var trackingDomains: [String]
    /// `NSPrivacyCollectedDataTypes`.
    public var collectedDataTypes: [[String: Plist.Value]]
    /// `NSPrivacyAccessedAPITypes`.
    public var accessedApiTypes: [[String: Plist.Value]]

    public static func privacyManifest(
        tracking: Bool,
        trackingDomains: [String],
        collectedDataTypes: [[String: Plist.Value]],
        accessedApiTypes: [[String: Plist.Value]]
    ) -> Self {
        PrivacyManifest(tracking: tracking, trackingDomains: trackingDomains, collectedDataTypes: collectedDataTypes,
                        accessedApiTypes: accessedApiTypes)
    }
}

/// On-demand-resource tags in the Initial Install and Prefetch Order categories.
public struct OnDemandResourcesTags: Codable, Equatable, Sendable {
    public let initialInstall: [String]?
    public let prefetchOrder: [String]?

    public static func tags(initialInstall: [String]?, prefetchOrder: [String]?) -> Self {
        OnDemandResourcesTags(initialInstall: initialInstall, prefetchOrder: prefetchOrder)
    }
}
