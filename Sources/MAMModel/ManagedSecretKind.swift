/// The secrets Apple's ManagedApp framework provides (seed 004): passwords, certificates and
/// identities, each asked for by a string id the app chooses.
public enum ManagedSecretKind: String, Sendable, Hashable, CaseIterable {
    case password, certificate, identity

    /// `passwords`, `certificates`, `identities`.
    public var plural: String { self == .identity ? "identities" : rawValue + "s" }
}
