// A team's Intune code as Strict Mode's end-to-end check reads it (scripts/strict-team-file):
// every line that makes an integration mistake ends with `// strict: CHECK`, the check Strict
// Mode must name at that line; every other SDK call here is a correct use and must be named
// nowhere. It calls only the SDK's public names (IntuneMAMSwift is the façade re-exported).
import Foundation
import IntuneMAMSwift

final class TeamIntune: @unchecked Sendable {
    static let shared = TeamIntune()
    /// A policy kept from launch, read again by nobody: the mistake.
    private var keptPolicy: IntuneMAMPolicy?
    /// The policy the observer below reads again on every change: right.
    private var livePolicy: IntuneMAMPolicy?
    private var observer: NSObjectProtocol?

    /// Called off the main thread at launch, once the account is enrolled.
    func launch(accountId: String, upn: String) -> [String] {
        let manager = IntuneMAMPolicyManager.instance()
        var facts: [String] = []
        _ = manager.policy(forAccountId: upn) // strict: account-id-is-upn
        livePolicy = manager.policy(forAccountId: accountId)
        keptPolicy = manager.policy(forAccountIds: [accountId]) // strict: policy-cached-without-observer
        guard let policy = livePolicy else { return ["no policy"] }
        facts.append("OneDrive unknown owner: \(policy.isSaveToAllowed(for: .oneDriveForBusiness, withAccountId: nil))") // strict: location-needs-account
        facts.append("SharePoint unknown owner: \(policy.isOpenFromAllowed(for: .sharePoint, withAccountId: ""))") // strict: location-needs-account
        facts.append("OneDrive: \(policy.isSaveToAllowed(for: .oneDriveForBusiness, withAccountId: accountId))")
        facts.append("SharePoint: \(policy.isOpenFromAllowed(for: .sharePoint, withAccountId: accountId))")
        facts.append("camera roll: \(policy.isSaveToAllowed(for: .cameraRoll, withAccountId: nil))")
        facts.append("photos: \(policy.isOpenFromAllowed(for: .photos, withAccountId: nil))")
        facts.append("other: \(policy.isSaveToAllowed(for: .other, withAccountId: nil))")
        facts.append("local drive: \(policy.isSaveToAllowed(for: .localDrive, withAccountId: accountId))")
        // A single-identity app's process policy is its one account's.
        facts.append("process policy PIN: \(manager.policy()?.isPINRequired ?? false)")
        facts.append("managed: \(manager.isAccountIdManaged(accountId))")
        // Right: read the policy again when the admin changes it. The kept copy, used here
        // too, is the mistake reported at its read above.
        observer = NotificationCenter.default.addObserver(forName: .IntuneMAMPolicyDidChange, object: nil, queue: .main) { [weak self] note in
            guard let self else { return }
            let id = note.userInfo?[IntuneMAMPolicyDidChangeNotificationAccountId] as? String
            self.livePolicy = IntuneMAMPolicyManager.instance().policy(forAccountId: id)
            _ = self.keptPolicy?.isScreenCaptureAllowed
        }
        return facts
    }
}
