import MAMModel
import MAMPolicy
import Testing

/// Grant controls as Entra applies them (issue 85, item 1; Microsoft Learn, "Conditional Access:
/// Grant" — concept-conditional-access-grant.md; Graph conditionalAccessGrantControls): `block`
/// blocks; `compliantDevice` is met only by a device known compliant (Intune compliance needs an
/// enrolled device), `domainJoinedDevice` only by a hybrid-joined one (never an iPhone);
/// `mfa`, `passwordChange` and the other requirements are met by what the user does, and the
/// answer says so, never a bare "satisfied"; `operator` AND needs every control, OR one.
@Suite struct GrantControlTests {
    static func policy(_ controls: [String], and: Bool = false) -> ConditionalAccessPolicy {
        ConditionalAccessPolicy(name: "p", includeUsers: [World.alice.upn], builtInControls: controls, requiresAll: and)
    }

    func token(_ controls: [String], and: Bool = false, device: ConditionalAccessDevice, compliantApp: Bool = true) -> Verdict {
        let fleet = World.fleet()
        return Enforcer.token(for: World.alice, resource: "00000003-0000-0ff1-ce00-000000000000", app: fleet.app(World.mine)!,
                              capabilities: ["protapp"], compliant: compliantApp, policies: [Self.policy(controls, and: and)],
                              device: device, in: fleet).decision
    }

    static let unenrolled = ConditionalAccessDevice(enrolled: false)
    static let enrolledUnknown = ConditionalAccessDevice(enrolled: true)
    static let compliant = ConditionalAccessDevice(enrolled: true, compliant: true)
    static let noncompliant = ConditionalAccessDevice(enrolled: true, compliant: false)

    /// controls, AND, device → the reason (`nil`: a token) and what the answer must name.
    @Test(arguments: [
        (["block"], false, compliant, Reason.accessBlocked as Reason?, "blocks access"),
        (["block", "mfa"], false, compliant, .accessBlocked, "blocks access"),
        (["compliantDevice"], false, unenrolled, .accessBlocked, "not enrolled"),
        (["compliantDevice"], false, noncompliant, .accessBlocked, "not compliant"),
        (["compliantDevice"], false, enrolledUnknown, .accessBlocked, "not stated"),
        (["compliantDevice"], false, compliant, nil, "compliant device"),
        (["domainJoinedDevice"], false, compliant, .accessBlocked, "hybrid"),
        (["compliantDevice", "domainJoinedDevice"], false, compliant, nil, "compliant device"),
        (["compliantDevice", "domainJoinedDevice"], true, compliant, .accessBlocked, "hybrid"),
        (["mfa"], false, unenrolled, nil, "after MFA"),
        (["mfa", "compliantApplication"], true, unenrolled, nil, "after MFA"),
        (["mfa", "compliantDevice"], true, unenrolled, .accessBlocked, "not enrolled"),
        (["mfa", "compliantDevice"], false, unenrolled, nil, "after MFA"),
        (["passwordChange"], false, unenrolled, nil, "after a password change"),
        (["compliantApplication"], false, unenrolled, nil, "app protection"),
    ])
    func eachGrantIsJudgedAsEntraJudgesIt(_ controls: [String], _ and: Bool, _ device: ConditionalAccessDevice, _ reason: Reason?, _ names: String) {
        let v = token(controls, and: and, device: device)
        #expect(v.reason == reason, "\(controls) \(and ? "AND" : "OR") on \(device): \(v)")
        #expect(v.explanation.contains(names), "\(v.explanation)")
        #expect(!v.explanation.contains("satisfied"), "never a bare satisfied: \(v.explanation)")
    }
}
