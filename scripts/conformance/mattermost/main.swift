// The fleet app around mattermost-mobile's Intune code: its delegates are set as the app sets
// them and the account (an OID, as the app gets it from MSAL) is enrolled, as at its login. Once
// its enrollment delegate has sent IntuneEnrollmentChanged, the events its delegates sent go to
// Documents/events.txt. The first policy restarts the app (the SDK's restartApplication): the
// process launched again finds the account enrolled — as Mattermost's launch does, it does not
// enroll again (the SDK would answer 208, alreadyEnrolled) — and writes
// IntunePolicyProvider.getPolicy(forAccountId:), compiled unchanged, to Documents/policy.json
// (keys sorted). Written for scripts/conformance-thirdparty.
//   arguments: OID
import Foundation
import IntuneMAMSwift
import MAMKit

MAMIntuneFacade.run(runtime: "MattermostIntune/1", finishesLaunching: true) { app in
    let oid = CommandLine.arguments.dropFirst().first ?? ""
    IntuneMAMEnrollmentManager.instance().delegate = IntuneDelegateHandler.shared
    IntuneMAMPolicyManager.instance().delegate = IntuneDelegateHandler.shared
    var account = IntuneMAMEnrollmentManager.instance().enrolledAccountId() ?? ""
    if account.isEmpty {
        IntuneMAMEnrollmentManager.instance().registerAndEnrollAccountId(oid)
        let enrolled = await IntuneEnrollmentManager.shared.first(.IntuneEnrollmentChanged)
        _ = await app.writeFile("Documents/events.txt", Array(IntuneEnrollmentManager.shared.log.utf8), owner: "")
        account = enrolled["oid"] as? String ?? oid
    }
    let policy = await Task.detached { IntunePolicyProvider().getPolicy(forAccountId: account) }.value
    let json = (try? JSONSerialization.data(withJSONObject: policy ?? [:], options: [.sortedKeys])) ?? Data("null".utf8)
    _ = await app.writeFile("Documents/policy.json", Array(json) + [10], owner: "")
    app.finishedLaunching()
    for await _ in app.deliveries {}
    app.close()
}
