import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `enroll`: IntuneMAMEnrollmentManager's registerAndEnrollAccountId (the app holds the account's
/// token) or loginAndEnrollAccount (the SDK signs the user in first): the status the enrollment
/// delegate receives, decided by the enrollment desk. The desk audits it and tells the delegate;
/// the answer is the status's number (`EnrollmentStatus`).
enum EnrollHandler: ServiceHandler {
    static func audit(_ call: Service.Enroll) -> AuditPlan { .selfAudited(.enroll) }

    static func answer(_ call: Service.Enroll, _ c: CallContext) throws -> Answered<UInt32> {
        let desk = try c.desk.enrollmentDesk(for: call)
        // The app asks for a sign-in; the user answers, and the user is the scenario, never the
        // child: it signs in an account the scenario signed in to the app (or its MSAL holds,
        // `msalAccounts`) and cancels any other. What the child says of the user is not read.
        let userCancels = call.interactive ? try !desk.userSignsIn(c.app, account: call.account) : false
        let status = desk.enroll(c.app, account: call.account, interactive: call.interactive, userCancels: userCancels, fromApp: true)
        // The call is answered either way: the status says how it went, as the delegate hears it.
        return Answered(.allowed(status.described), status.rawValue)
    }
}
