import MAMModel

/// Device facts the rules read (RULES.md §2, §8): MDM enrolment, jailbreak, OS version and
/// Apple MDM restrictions.
public struct DeviceFacts: Sendable, Hashable {
    public var mdmEnrolled: Bool
    public var jailbroken: Bool
    public var osVersion: Version
    /// Apple MDM restrictions by key, e.g. `allowOpenFromManagedToUnmanaged: false`.
    public var restrictions: [String: Bool]
    /// The device model identifier (`iPhone15,2`), for `allowedIosDeviceModels`.
    public var model: String
    /// Microsoft Authenticator, the broker app protection CA remediation needs, is installed.
    public var brokerInstalled: Bool
    /// The MDM's asset server answers the device's requests for secrets (a ManagedApp password,
    /// certificate or identity); failing, a lookup fails (ManagedApp's `serverError`).
    public var assetServerAvailable: Bool = true
    /// Intune device compliance, for conditional access's `compliantDevice`: `nil` when not
    /// said (then the control is not met, and the answer says compliance was not stated). Only
    /// an enrolled device has a compliance state.
    public var compliant: Bool?
    /// The device's platform as conditional access's platform condition names it (`iOS`,
    /// `android`, `windows`, `macOS`, `linux`, `windowsPhone`; `unknown` when Entra cannot tell):
    /// the simulated device is an iPhone; a whatif persona may say another.
    public var platform: String = "iOS"
    /// The device's object in Microsoft Entra ID, as conditional access's filter for devices
    /// reads it. Boxed: every decision passes the fleet's device along, and only conditional
    /// access reads this; one reference, not a dictionary and two strings, travels with it.
    public var entra: EntraDeviceFacts {
        get { entraBox?.facts ?? EntraDeviceFacts() }
        set { entraBox = newValue == EntraDeviceFacts() ? nil : EntraBox(newValue) }
    }
    private var entraBox: EntraBox?

    public init(mdmEnrolled: Bool = false, jailbroken: Bool = false, osVersion: Version = Version("18.4")!,
                restrictions: [String: Bool] = [:], model: String = "iPhone15,2", brokerInstalled: Bool = false) {
        self.mdmEnrolled = mdmEnrolled
        self.jailbroken = jailbroken
        self.osVersion = osVersion
        self.restrictions = restrictions
        self.model = model
        self.brokerInstalled = brokerInstalled
    }
}

/// `DeviceFacts.entra`'s storage: immutable, compared by value.
final class EntraBox: Sendable, Hashable {
    let facts: EntraDeviceFacts
    init(_ facts: EntraDeviceFacts) { self.facts = facts }
    static func == (a: EntraBox, b: EntraBox) -> Bool { a.facts == b.facts }
    func hash(into hasher: inout Hasher) { hasher.combine(facts) }
}
