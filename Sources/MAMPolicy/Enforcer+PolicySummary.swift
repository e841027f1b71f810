public import MAMModel

/// One account's `IntuneMAMPolicy` as an app reads it: every getter, each the answer the
/// single query would give (`policyQuery`, `save`, `open`, `screenCapture`).
public struct PolicyReading: Sendable, Hashable {
    public var managed = false
    public var pinRequired = false
    public var managedBrowserRequired = false
    public var notificationRestriction: NotificationRestriction = .allow
    /// The settings the policy restricts (for the two encryption settings: requires).
    public var restricted: Set<PolicySetting> = []
    /// The locations `isSaveTo/OpenFromAllowed` allows with the location's account being the
    /// policy's own.
    public var saveTo: Set<SaveLocation> = []
    public var openFrom: Set<OpenLocation> = []

    public init() {}

    /// `getSaveToLocations`'s bits: `other` is 0 and adds no bit, as in the SDK's mask.
    public var saveToMask: Int { saveTo.reduce(0) { $0 | $1.sdkValue } }
    public var openFromMask: Int { openFrom.reduce(0) { $0 | $1.sdkValue } }
}

extension Enforcer {
    /// `identity`'s policy in `app`, read whole (`policyForAccountId`). Unmanaged data
    /// restricts nothing and every location is allowed, as each query answers alone;
    /// `signedIn` as `policyQuery`'s (third-party keyboards).
    public static func policyReading(as identity: Account?, app: BundleID, in fleet: Fleet, signedIn: [Account] = []) -> PolicyReading {
        var v = PolicyReading()
        v.restricted = Set(PolicySetting.allCases.filter { !policyQuery($0, as: identity, app: app, in: fleet, signedIn: signedIn).isAllowed })
        v.saveTo = Set(SaveLocation.allCases.filter { save(owner: identity, to: $0, locationAccount: identity, app: app, in: fleet).isAllowed })
        v.openFrom = Set(OpenLocation.allCases.filter { open(from: $0, locationAccount: identity, as: identity, app: app, in: fleet).isAllowed })
        guard let p = fleet.managedEntry(identity, in: app)?.policy else { return v }
        v.managed = true
        v.pinRequired = p.pinRequired
        v.managedBrowserRequired = p.managedBrowserToOpenLinksRequired
        v.notificationRestriction = p.notificationRestriction
        return v
    }
}
