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
        if userCancels, status == .loginCanceled {
            // The run's own decision: said where the user sees it, with the key that changes it.
            let who = call.account.isEmpty ? "an account" : UntrustedText.escaped(UntrustedText.prefix(call.account, utf8Bytes: 256))
            c.desk.onEvent(.said(handle: c.app.handle, "its loginAndEnrollAccount for \(who) was cancelled by the scenario's user (loginCanceled): the account is neither signed in to \(c.app.handle) nor in its apps[].msalAccounts; list it there (or sign it in with a signIn step) and the user completes the login"))
        }
        // The call is answered either way: the status says how it went, as the delegate hears it.
        return Answered(.allowed(status.described), status.rawValue)
    }
}
