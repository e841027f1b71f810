import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `setConditionalAccess`: the admin enables, disables or sets a conditional access policy to report-only.
struct SetConditionalAccessStep: StepVerb {
    static let name = "setConditionalAccess"
    static let since = "v1.1"
    static let summary = "changes a conditional access policy's state"
    static let example = "setConditionalAccess: {policy: require-app-protection, state: enabled}"
    static let arguments: [VerbArgument] = [
        .required("policy", .text, "a policy declared under conditionalAccess:"),
        .required("state", .choice(["enabled", "disabled", "reportOnly", "enabledForReportingButNotEnforced"]), "the new state"),
    ]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    var policy: String
    var state: ConditionalAccessPolicy.State

    init(policy: String, state: ConditionalAccessPolicy.State) { (self.policy, self.state) = (policy, state) }

    init(_ a: VerbArgumentReader) {
        policy = a.declaredName("policy", among: a.loading.conditionalAccess.map(\.name), what: "conditional access policy",
                                plural: "policies", section: "conditionalAccess")
        state = switch a.text("state") {
        case "enabled": .enabled
        case "disabled": .disabled
        case "reportOnly", "enabledForReportingButNotEnforced": .enabledForReportingButNotEnforced
        default: { a.error("state must be enabled, disabled or reportOnly", at: "state"); return .disabled }()
        }
    }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.result({ [policy, state] in try $0.admin.setConditionalAccess(policy, state: state) }) {
        case .success: return (.ok, "conditional access policy \"\(policy)\" is \(state.rawValue)", "device")
        case .failure(let e): return (.failed(e.reason), e.message, "device")
        }
    }
}
