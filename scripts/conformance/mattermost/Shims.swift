// What mattermost-mobile's Intune delegates need of its IntuneEnrollmentManager, which itself
// needs MSAL and React Native and is not run here: the events it would send to JavaScript are
// recorded, in order, for the fleet app's main to wait on and write out. Written for mamsim's
// third-party conformance run (scripts/conformance-thirdparty).
import Foundation
import IntuneMAMSwift

/// `@unchecked Sendable`: `sent` and `waiting` are read and written under `lock` only.
public final class IntuneEnrollmentManager: @unchecked Sendable {
    public static let shared = IntuneEnrollmentManager()

    enum Event: String, CaseIterable {
        case IntuneEnrollmentChanged
        case IntunePolicyChanged
        case IntuneWipeRequested
        case IntuneAuthRequired
        case IntuneConditionalLaunchBlocked
        case IntuneIdentitySwitchRequired
    }

    private let lock = NSLock()
    private var sent: [(name: String, body: [String: Any])] = []
    private var waiting: [(name: String, continuation: CheckedContinuation<[String: Any], Never>)] = []

    func sendEvent(name: String, body: [String: Any]) {
        let resume: [CheckedContinuation<[String: Any], Never>] = lock.withLock {
            sent.append((name, body))
            let matched = waiting.filter { $0.name == name }.map(\.continuation)
            waiting.removeAll { $0.name == name }
            return matched
        }
        for c in resume { c.resume(returning: body) }
    }

    /// The first event `name` sent (now or later).
    func first(_ name: Event) async -> [String: Any] {
        await withCheckedContinuation { c in
            let already: [String: Any]? = lock.withLock {
                if let e = sent.first(where: { $0.name == name.rawValue }) { return e.body }
                waiting.append((name.rawValue, c))
                return nil
            }
            if let already { c.resume(returning: already) }
        }
    }

    /// Every event sent so far, as `name oid` lines.
    var log: String {
        lock.withLock { sent.map { "\($0.name) \($0.body["oid"] as? String ?? "")\n" }.joined() }
    }

    func getServerUrlsForOID(_ oid: String) -> [String] { ["https://chat.contoso.com"] }

    func getPolicy(forAccountId oid: String) -> [String: Any]? { IntunePolicyProvider().getPolicy(forAccountId: oid) }

    func refreshMSALToken(for oid: String) async throws {}
}
