/// Why a policy document could not be imported: a sentence naming the file, the object, the
/// property and the offending value, and what to do.
public struct PolicyImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The source name given to the importer (usually a file path).
    public let source: String
    /// The Graph property at fault, when one is.
    public let property: String?
    /// The offending value as JSON text, when one is.
    public let value: String?
    public let message: String

    public init(source: String, property: String?, value: String?, message: String) {
        self.source = source
        self.property = property
        self.value = value
        self.message = message
    }

    public var description: String { message }
}

/// Something in a policy document the importer accepted but a person should know about
/// (an unknown property, a placeholder version string).
public struct PolicyImportWarning: Sendable, Hashable, CustomStringConvertible {
    /// What a warning is about, for readers that keep some and leave others: never its text.
    public enum Kind: Sendable, Hashable {
        case remark
        /// Conditional access names users by group or role, which a scenario judges only for the
        /// accounts that declare groups or roles; What If judges every persona's membership.
        case membershipNeedsDeclaredAccounts
        /// A condition a scenario's device cannot know and judges as if matched, which What If
        /// judges from what a persona says (or answers "depends on" it).
        case judgedByWhatIf
    }

    public let source: String
    public let property: String
    public let message: String
    public var kind: Kind = .remark

    public var description: String { message }
}

/// An object of a collection that is not an iOS app protection policy (an Android policy,
/// an app configuration), left out of the import.
public struct SkippedPolicyObject: Sendable, Hashable, CustomStringConvertible {
    /// Position in the collection, from 0.
    public let index: Int
    /// Its `@odata.type`, e.g. `#microsoft.graph.androidManagedAppProtection`.
    public let odataType: String
    public let displayName: String

    public var description: String {
        let name = displayName.isEmpty ? "" : " \"\(displayName)\""
        return "object \(index)\(name) skipped: it is a \(odataType), not an iOS app protection policy"
    }
}

/// What an import produced.
public struct PolicyImportResult: Sendable {
    public var policies: [IosManagedAppProtection]
    public var warnings: [PolicyImportWarning]
    public var skipped: [SkippedPolicyObject]
}
