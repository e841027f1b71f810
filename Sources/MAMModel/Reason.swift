/// A stable reason code for a decision or an outcome (RULES.md §11).
///
/// Scenario files and reports use the raw values; existing codes never change meaning.
public enum Reason: String, Sendable, CaseIterable, Hashable, CustomStringConvertible {
    case outboundPolicy = "outbound-policy"
    case inboundPolicy = "inbound-policy"
    case notExempt = "not-exempt"
    case clipboardPolicy = "clipboard-policy"
    case saveLocation = "save-location"
    case openLocation = "open-location"
    case accountNotAllowed = "account-not-allowed"
    case secondManagedAccount = "second-managed-account"
    case notSignedIn = "not-signed-in"
    case keychainEntitlement = "keychain-entitlement"
    case appGroupEntitlement = "app-group-entitlement"
    case notActivated = "not-activated"
    case extensionMisconfigured = "extension-misconfigured"
    case identitySwitchCanceled = "identity-switch-canceled"
    case identitySwitchNotAllowed = "identity-switch-not-allowed"
    case conditionalLaunch = "conditional-launch"
    case printBlocked = "print-blocked"
    case notificationBlocked = "notification-blocked"
    case protectionPolicyRequired = "protection-policy-required"
    case unknownApp = "unknown-app"
    case unknownAccount = "unknown-account"
    case appNotRunning = "app-not-running"
    case badRequest = "bad-request"
    /// The destination took too long to acknowledge a delivery (our addition).
    case timeout = "timeout"
    /// The device itself failed (storage, I/O): never a policy answer.
    case internalError = "internal"
    case screenCaptureBlocked = "screen-capture-blocked"
    case appProtectionUnsupported = "app-protection-unsupported"
    case brokerRequired = "broker-required"
    case invalidIdentifier = "invalid-identifier"
    /// An `IntuneMAMPolicy` feature switch (contact sync, widgets, Spotlight, Siri, backup…)
    /// is off for the identity, or a requirement (file encryption) is on.
    case featureRestricted = "feature-restricted"
    /// The sender has as many bytes of shares in flight (not yet answered) as the host holds
    /// for one app: answered at once, while its other traffic flows (our addition).
    case busy = "busy"
    /// The device's storage is full: its containers and app groups together hold what
    /// `device.limits.storage` allows (our addition).
    case quota = "quota"
    /// A conditional access policy's grant that no remediation of the app meets: `block`, or a
    /// device control (`compliantDevice`, `domainJoinedDevice`) the device does not meet
    /// (Entra's AADSTS53003 / 53000). Only the admin's policy or the device changes it.
    case accessBlocked = "access-blocked"

    public var description: String { rawValue }
}
