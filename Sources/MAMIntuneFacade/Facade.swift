public import MAMKit
import MAMModel
import MAMWire
import Synchronization

// UNOFFICIAL. This module re-declares, for tests, the names and shapes of the public Swift
// interface of the Intune App SDK for iOS (21.7.1), so that an app's own code that calls the
// SDK runs in a mamsim fleet: every call is answered by the mamsim host, under the tenant's
// policies of the scenario. It is not Microsoft's SDK, holds none of its code or text, and is
// named neutrally; a team re-exports it under the SDK's module name in its own test package
// (`@_exported import MAMIntuneFacade`). docs/FACADE.md says what it covers.

/// The mamsim app whose host answers the façade's calls.
public enum MAMIntuneFacade {
    private static let bound = Mutex<MAMApp?>(nil)

    /// Binds the façade to `app` (once its channel is open: `MAMApp.connect`), and routes the
    /// host's enrollment statuses to `IntuneMAMEnrollmentManager.instance().delegate`.
    public static func connect(_ app: MAMApp) {
        bound.withLock { $0 = app }
        app.observeNotifications { n in IntuneMAMEnrollmentManager.instance().deliver(n) }
    }

    /// The bound app; a façade call without one is a mistake of the test's set-up, said so.
    static var app: MAMApp {
        guard let app = bound.withLock({ $0 }) else {
            fatalError("MAMIntuneFacade: call MAMIntuneFacade.connect(app) with the app's MAMApp before using the Intune-shaped API")
        }
        return app
    }

    /// A synchronous getter's call (the SDK's getters answer at once): made blocking, as
    /// `account`'s when one is named (the policy of that account), else with the calling
    /// thread's identity. A host that does not answer is a failed call: `nil`.
    static func blocking<Call: ServiceCall>(_ call: Call, as account: String?) -> Reply<Call.Answer>? {
        let app = app
        return ThreadIdentity.withAccountId(account ?? ThreadIdentity.accountId) { try? app.callBlocking(call) }
    }
}
