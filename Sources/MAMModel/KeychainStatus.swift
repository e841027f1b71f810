/// A keychain call's result code, as iOS returns it (`OSStatus`).
public enum KeychainStatus: Int32, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case success = 0
    /// `errSecMissingEntitlement`: the group is not in `keychain-access-groups`.
    case missingEntitlement = -34018
    /// `errSecItemNotFound`.
    case itemNotFound = -25300

    public var description: String {
        switch self {
        case .success: "errSecSuccess (0)"
        case .missingEntitlement: "errSecMissingEntitlement (-34018)"
        case .itemNotFound: "errSecItemNotFound (-25300)"
        }
    }
}
