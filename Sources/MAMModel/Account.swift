/// A work or personal account: a UPN (`alice@contoso.com`), an Entra object id (OID) and a
/// tenant.
///
/// UPN and OID compare case-insensitively (RULES.md §1): the SDK may hand back a different
/// case than was set, and an admin may type either. The folded keys are computed once here so
/// that a decision never lowercases a string on the hot path.
public struct Account: Sendable, Hashable, CustomStringConvertible {
    /// The UPN as it was entered; kept for display.
    public let upn: String
    /// The Entra object id as it was entered.
    public let oid: String
    public let tenant: String
    /// Lowercased UPN: the comparison key.
    public let upnKey: String
    /// Lowercased OID: the comparison key.
    public let oidKey: String

    public init(upn: String, oid: String = "", tenant: String = "") {
        self.upn = upn
        self.oid = oid
        self.tenant = tenant
        self.upnKey = upn.lowercased()
        self.oidKey = oid.lowercased()
    }

    /// The unmanaged, personal identity `""`.
    public var isEmpty: Bool { upnKey.isEmpty && oidKey.isEmpty }

    /// Whether `key` names this account by UPN or by OID, in any letter case.
    public func matches(_ key: String) -> Bool {
        let folded = key.lowercased()
        return matches(folded: folded)
    }

    /// `matches(_:)` for a key the caller already lowercased.
    public func matches(folded key: String) -> Bool {
        guard !key.isEmpty else { return false }
        return key == upnKey || key == oidKey
    }

    /// Whether both values name the same person: equal UPNs or equal OIDs (either is enough,
    /// because one side may only know the UPN and the other only the OID).
    public func isSame(as other: Account) -> Bool {
        (!upnKey.isEmpty && upnKey == other.upnKey) || (!oidKey.isEmpty && oidKey == other.oidKey)
    }

    public static func == (a: Account, b: Account) -> Bool {
        a.upnKey == b.upnKey && a.oidKey == b.oidKey
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(upnKey)
        hasher.combine(oidKey)
    }

    /// The UPN, or the OID when no UPN is known; `""` for the unmanaged identity.
    public var description: String { upn.isEmpty ? oid : upn }

    /// The id the SDK gives the account in what it tells an app (statuses, the UI identity):
    /// its OID since SDK 20, the UPN only where no OID is known.
    public var sdkId: String { oid.isEmpty ? upn : oid }
}
