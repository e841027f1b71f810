import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `checkIn`: The SDK's policy request for the app's enrolled account: what the service holds for
/// it now (a new policy, none, a wipe). The desk audits it and tells the delegate; the answer is
/// the status's number (`EnrollmentStatus`).
enum CheckInHandler: ServiceHandler {
    static func audit(_ call: Service.CheckIn) -> AuditPlan { .selfAudited(.checkIn) }

    static func answer(_ call: Service.CheckIn, _ c: CallContext) throws -> Answered<UInt32> {
        let status = try c.desk.enrollmentDesk(for: call).checkIn(c.app, account: call.account)
        // The call is answered either way: the status says how it went, as the delegate hears it.
        return Answered(.allowed(status.described), status.rawValue)
    }
}
