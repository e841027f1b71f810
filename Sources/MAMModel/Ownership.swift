/// The owner tag the host stamps on every item it routes (DESIGN.md "Wire").
///
/// A child never writes this tag itself: the host derives it from the sender's signed-in
/// account and its own policy state. An empty `upn` means the data is unmanaged/personal.
///
/// Held in one immutable box, as `Item` is: the host stamps the same tag on a stream of
/// deliveries and keeps it in each one's audit record, and a copy of the box is one retain
/// where a copy of its strings was four.
public struct Ownership: Sendable, Hashable {
    @usableFromInline
    final class Fields: Sendable {
        @usableFromInline let upn: String
        @usableFromInline let oid: String
        @usableFromInline let tenant: String
        @usableFromInline let managed: Bool
        @usableFromInline let sourceBundle: BundleID

        @usableFromInline
        init(upn: String, oid: String, tenant: String, managed: Bool, sourceBundle: BundleID) {
            self.upn = upn
            self.oid = oid
            self.tenant = tenant
            self.managed = managed
            self.sourceBundle = sourceBundle
        }

        /// These fields with some changed.
        @usableFromInline
        func with(upn: String? = nil, oid: String? = nil, tenant: String? = nil, managed: Bool? = nil, sourceBundle: BundleID? = nil) -> Fields {
            Fields(upn: upn ?? self.upn, oid: oid ?? self.oid, tenant: tenant ?? self.tenant, managed: managed ?? self.managed,
                   sourceBundle: sourceBundle ?? self.sourceBundle)
        }
    }

    @usableFromInline
    var fields: Fields

    public init(upn: String, oid: String, tenant: String = "", managed: Bool, sourceBundle: BundleID) {
        fields = Fields(upn: upn, oid: oid, tenant: tenant, managed: managed, sourceBundle: sourceBundle)
    }

    @inlinable
    public var upn: String {
        _read { yield fields.upn }
        set { fields = fields.with(upn: newValue) }
    }

    @inlinable
    public var oid: String {
        _read { yield fields.oid }
        set { fields = fields.with(oid: newValue) }
    }

    @inlinable
    public var tenant: String {
        _read { yield fields.tenant }
        set { fields = fields.with(tenant: newValue) }
    }

    @inlinable
    public var managed: Bool {
        get { fields.managed }
        set { fields = fields.with(managed: newValue) }
    }

    @inlinable
    public var sourceBundle: BundleID {
        _read { yield fields.sourceBundle }
        set { fields = fields.with(sourceBundle: newValue) }
    }

    /// Data with no owner (the unmanaged identity `""`).
    public static func unowned(from source: BundleID) -> Ownership {
        Ownership(upn: "", oid: "", managed: false, sourceBundle: source)
    }

    public var isUnowned: Bool { upn.isEmpty && oid.isEmpty }

    /// Whether both are the one value stamped or read once and passed on: then they are equal
    /// and write the same bytes, which an encoder of a batch that repeats an owner copies
    /// instead of writing its strings again. `false` says nothing (compare with `==`).
    @inlinable
    public func isTriviallyIdentical(to other: Ownership) -> Bool { fields === other.fields }

    public static func == (a: Ownership, b: Ownership) -> Bool {
        a.fields === b.fields
            || (a.upn == b.upn && a.oid == b.oid && a.tenant == b.tenant && a.managed == b.managed && a.sourceBundle == b.sourceBundle)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(upn)
        hasher.combine(oid)
        hasher.combine(tenant)
        hasher.combine(managed)
        hasher.combine(sourceBundle)
    }
}

extension Ownership: CustomDebugStringConvertible {
    /// The fields, as a struct of them would print.
    public var debugDescription: String {
        "Ownership(upn: \(upn.debugDescription), oid: \(oid.debugDescription), tenant: \(tenant.debugDescription), managed: \(managed), sourceBundle: \(String(reflecting: sourceBundle)))"
    }
}
