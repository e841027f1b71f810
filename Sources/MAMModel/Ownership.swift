/// The owner tag the host stamps on every item it routes (DESIGN.md "Wire").
///
/// A child never writes this tag itself: the host derives it from the sender's signed-in
/// account and its own policy state. An empty `upn` means the data is unmanaged/personal.
public struct Ownership: Sendable, Hashable {
    public var upn: String
    public var oid: String
    public var tenant: String
    public var managed: Bool
    public var sourceBundle: BundleID

    public init(upn: String, oid: String, tenant: String = "", managed: Bool, sourceBundle: BundleID) {
        self.upn = upn
        self.oid = oid
        self.tenant = tenant
        self.managed = managed
        self.sourceBundle = sourceBundle
    }

    /// Data with no owner (the unmanaged identity `""`).
    public static func unowned(from source: BundleID) -> Ownership {
        Ownership(upn: "", oid: "", managed: false, sourceBundle: source)
    }

    public var isUnowned: Bool { upn.isEmpty && oid.isEmpty }
}
