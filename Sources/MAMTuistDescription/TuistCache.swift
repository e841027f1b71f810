// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

extension Tuist {
    /// The backend of the remote module cache.
    public enum RemoteCacheBackend: Codable, Equatable, Sendable {
        case regional
        case legacy
    }

    /// Where cached binaries are kept.
    public enum CacheStorageOption: Codable, Equatable, Sendable {
        case local
        case remote
    }

    /// Options of binary caching.
    public struct CacheOptions: Codable, Equatable, Sendable {
        public var keepSourceTargets: Bool
        public var profiles: CacheProfiles
        public var storages: [CacheStorageOption]
        public var remoteCacheBackend: RemoteCacheBackend

        public static func options(
            keepSourceTargets: Bool = false,
            profiles: CacheProfiles = [:],
            storages: [CacheStorageOption] = [.local, .remote],
            remoteCacheBackend: RemoteCacheBackend = .regional
        ) -> Self {
            Self(keepSourceTargets: keepSourceTargets, profiles: profiles, storages: storages, remoteCacheBackend: remoteCacheBackend)
        }
    }
}

/// Which cache profile applies.
public enum CacheProfileType: Codable, Equatable, Sendable, ExpressibleByStringLiteral {
    case onlyExternal
    case allPossible
    case none
    /// A profile of `CacheProfiles` by name.
    case custom(String)

    public init(stringLiteral value: String) {
        self = .custom(value)
    }
}

/// What a profile replaces with cached binaries, before its own additions.
public enum BaseCacheProfile: String, Codable, Equatable, Sendable {
    case onlyExternal
    case allPossible
    case none
}

/// A cache profile: a base, targets added, targets excepted.
public struct CacheProfile: Codable, Equatable, Sendable {
    public let base: BaseCacheProfile
    public let targetQueries: [TargetQuery]
    public let exceptTargetQueries: [TargetQuery]

    public static func profile(
        _ base: BaseCacheProfile = .onlyExternal,
        and targetQueries: [TargetQuery] = [],
        except exceptTargetQueries: [TargetQuery] = []
    ) -> Self {
        CacheProfile(base: base, targetQueries: targetQueries, exceptTargetQueries: exceptTargetQueries)
    }
}

/// Named cache profiles and the default one.
public struct CacheProfiles: Codable, Equatable, Sendable, ExpressibleByDictionaryLiteral {
    public let profileByName: [String: CacheProfile]
    public let defaultProfile: CacheProfileType

    private init(profileByName: [String: CacheProfile], defaultProfile: CacheProfileType) {
        self.profileByName = profileByName
        self.defaultProfile = defaultProfile
    }

    public static func profiles(_ profileByName: [String: CacheProfile] = [:], default defaultProfile: CacheProfileType = .onlyExternal) -> Self {
        CacheProfiles(profileByName: profileByName, defaultProfile: defaultProfile)
    }

    public init(dictionaryLiteral elements: (String, CacheProfile)...) {
        self.init(profileByName: Dictionary(uniqueKeysWithValues: elements), defaultProfile: .onlyExternal)
    }
}

/// Targets by name, or by metadata tag (`"tag:Name"` as a string literal).
public enum TargetQuery: Codable, Equatable, Sendable, ExpressibleByStringLiteral {
    case named(String)
    case tagged(String)

    public init(stringLiteral value: String) {
        self = value.hasPrefix("tag:") ? .tagged(String(value.dropFirst(4))) : .named(value)
    }
}
