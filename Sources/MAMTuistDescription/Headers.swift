// Unofficial re-declaration of Tuist's ProjectDescription public API (mamsim); not Tuist's code.

/// A target's public, private and project headers.
public struct Headers: Codable, Equatable, Sendable {
    /// How a header found in more than one scope is assigned.
    public enum AutomaticExclusionRule: Int, Codable, Sendable {
        /// Public first, then private, then project headers (what is left).
        case projectExcludesPrivateAndPublic
        /// Project first, then private, then public headers (what is left).
        case publicExcludesPrivateAndProject
    }

    /// An umbrella header listing the public headers.
    public var umbrellaHeader: Path?
    public var `public`: FileList?
    public var `private`: FileList?
    public var project: FileList?
    public var exclusionRule: AutomaticExclusionRule

    private init(
        public publicHeaders: FileList? = nil,
        umbrellaHeader: Path? = nil,
        private privateHeaders: FileList? = nil,
        project: FileList? = nil,
        exclusionRule: AutomaticExclusionRule
    ) {
        self.public = publicHeaders
        self.umbrellaHeader = umbrellaHeader
        self.private = privateHeaders
        self.project = project
        self.exclusionRule = exclusionRule
    }

    public static func headers(
        public: FileList? = nil,
        private: FileList? = nil,
        project: FileList? = nil,
        exclusionRule: AutomaticExclusionRule = .projectExcludesPrivateAndPublic
    ) -> Headers {
        Headers(public: `public`, private: `private`, project: project, exclusionRule: exclusionRule)
    }

    /// Headers of `list` the umbrella header names are public, those in `private` private, the rest project.
    public static func allHeaders(from list: FileList, umbrella: Path, private privateHeaders: FileList? = nil) -> Headers {
        Headers(public: list, umbrellaHeader: umbrella, private: privateHeaders, project: list,
                exclusionRule: .projectExcludesPrivateAndPublic)
    }

    /// Headers of `list` the umbrella header names are public, those in `private` private; the rest are left out.
    public static func onlyHeaders(from list: FileList, umbrella: Path, private privateHeaders: FileList? = nil) -> Headers {
        Headers(public: list, umbrellaHeader: umbrella, private: privateHeaders, project: nil,
                exclusionRule: .projectExcludesPrivateAndPublic)
    }
}
