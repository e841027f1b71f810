import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `remediation_in_progress`: whether a compliance remediation for the account is under way.
enum RemediationInProgressHandler: ServiceHandler {
    static func audit(_ call: Service.RemediationInProgress) -> AuditPlan { .selfAudited(.remediationInProgress) }

    static func answer(_ call: Service.RemediationInProgress, _ c: CallContext) throws -> Answered<Bool> {
        let r = try c.desk.tokenService(for: call).remediationInProgressResult(for: c.app, account: call.account)
        return Answered(r.verdict, Service.RemediationInProgress.answer(from: r.value))
    }
}
