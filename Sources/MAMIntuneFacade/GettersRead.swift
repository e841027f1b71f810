import MAMKit
import MAMModel
import MAMWire
import Synchronization

/// Which of the policy object's getters the app's own code read, told to the host once per
/// getter and account (`policy_getters_read`). `mamsim mutate` needs it to tell a setting the
/// app consults, and whose answer then goes unchecked, from one the app never asks about.
enum GettersRead {
    private static let told = Mutex<Set<String>>([])

    /// Forgets what was told: a new connection is a new process of the app.
    static func reset() { told.withLock { $0.removeAll() } }

    /// `getter` of `account`'s policy ("" = the unmanaged identity's) was read. Sent without
    /// waiting, before whatever the app does with the answer, on the channel that carries it.
    static func read(_ getter: PolicyGetter, account: String) {
        guard told.withLock({ $0.insert("\(getter.rawValue) \(account)").inserted }) else { return }
        MAMIntuneFacade.send(Service.PolicyGettersRead(getters: [getter.rawValue], account: account, configKeys: []))
    }

    /// `key` of `account`'s app configuration was read (`IntuneMAMAppConfig`'s getters): told
    /// once per key and account, like a getter. A key longer than the host keeps is not told.
    static func readKey(_ key: String, account: String) {
        guard key.utf8.count <= maxKeyBytes, told.withLock({ $0.insert("config \(key)\u{0} \(account)").inserted }) else { return }
        MAMIntuneFacade.send(Service.PolicyGettersRead(getters: [], account: account, configKeys: [key]))
    }

    /// The longest app configuration key told (the host refuses longer ones).
    static let maxKeyBytes = 256
}
