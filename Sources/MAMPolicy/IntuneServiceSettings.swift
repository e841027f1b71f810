/// The Intune service as a party with a clock (SCENARIOS.md v1.3, `device.service`): when its
/// changes reach an app, how often an app checks in, how long a licence or an assignment takes
/// to be visible to it, how long its tokens last; and the tenant facts enrollment reads (the
/// device's MDM user, who holds no licence).
public struct IntuneServiceSettings: Sendable, Hashable {
    public enum Delivery: String, Sendable, Hashable, CaseIterable {
        /// A policy, licence or wipe set by a step reaches the apps at once (the default).
        case immediate
        /// The service's changes reach an app at its next check-in (launch, resume, its
        /// cadence while it runs, an identity switch, `checkIn`).
        case checkIn
    }

    public var delivery: Delivery = .immediate
    /// How often a running app checks in, in seconds (the service's cadence: 30 minutes).
    public var checkInEvery: Double = 1800
    /// How long, in seconds, a licence or assignment change takes to be visible to the service.
    public var propagation: Double = 0
    /// How long an access token lasts, in seconds; `nil`: until the run ends.
    public var tokenLifetime: Double?
    /// The user the device is MDM-enrolled by (`device.mdmEnrolledAs`).
    public var mdmEnrolledAs: String?
    /// The accounts without an Intune licence when the run starts (`accounts[].licensed:
    /// false`), by lowercased UPN or OID.
    public var unlicensed: Set<String> = []

    public init() {}
}
