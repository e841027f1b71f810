import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `unenroll`: `deRegisterAndUnenrollAccountId(_:withWipe:)`: the account leaves the app's
/// enrollment; with a wipe, the app's wipe delegate is asked afterwards. The desk audits it and
/// tells the delegate; the answer is the status's number (`EnrollmentStatus`).
enum UnenrollHandler: ServiceHandler {
    static func audit(_ call: Service.Unenroll) -> AuditPlan { .selfAudited(.unenroll) }

    static func answer(_ call: Service.Unenroll, _ c: CallContext) throws -> Answered<UInt32> {
        let status = try c.desk.enrollmentDesk(for: call).unenroll(c.app, account: call.account, wipe: call.wipe)
        // The call is answered either way: the status says how it went, as the delegate hears it.
        return Answered(.allowed(status.described), status.rawValue)
    }
}
