// The fleet app around mattermost-mobile's Intune code: its delegates are set as the app sets
// them, the account (an OID, as the app gets it from MSAL) is enrolled, and once its enrollment
// delegate has sent IntuneEnrollmentChanged, IntunePolicyProvider.getPolicy(forAccountId:) —
// compiled unchanged — is written to Documents/policy.json (keys sorted) and the events its
// delegates sent to Documents/events.txt. Written for scripts/conformance-thirdparty.
//   arguments: OID
import Foundation
import IntuneMAMSwift
import MAMKit

MAMIntuneFacade.run(runtime: "MattermostIntune/1", finishesLaunching: true) { app in
    let oid = CommandLine.arguments.dropFirst().first ?? ""
    IntuneMAMEnrollmentManager.instance().delegate = IntuneDelegateHandler.shared
    IntuneMAMPolicyManager.instance().delegate = IntuneDelegateHandler.shared
    IntuneMAMEnrollmentManager.instance().registerAndEnrollAccountId(oid)
    let enrolled = await IntuneEnrollmentManager.shared.first(.IntuneEnrollmentChanged)
    let account = enrolled["oid"] as? String ?? oid
    let policy = await Task.detached { IntunePolicyProvider().getPolicy(forAccountId: account) }.value
    let json = (try? JSONSerialization.data(withJSONObject: policy ?? [:], options: [.sortedKeys])) ?? Data("null".utf8)
    _ = await app.writeFile("Documents/policy.json", Array(json) + [10], owner: "")
    _ = await app.writeFile("Documents/events.txt", Array(IntuneEnrollmentManager.shared.log.utf8), owner: "")
    app.finishedLaunching()
    for await _ in app.deliveries {}
    app.close()
}
