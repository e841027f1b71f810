import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `remediate_compliance`: `IntuneMAMComplianceManager.remediateComplianceForAccountId`; the
/// token service runs the remediation and audits it.
enum RemediateComplianceHandler: ServiceHandler {
    static func audit(_ call: Service.RemediateCompliance) -> AuditPlan { .selfAudited(.remediateCompliance) }

    static func answer(_ call: Service.RemediateCompliance, _ c: CallContext) throws -> Answered<Void> {
        Answered(try c.desk.tokenService(for: call).startRemediation(for: c.app, account: call.account, silent: call.silent).verdict)
    }
}
