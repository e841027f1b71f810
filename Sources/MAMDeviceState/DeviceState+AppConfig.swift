import Foundation
import GRDB
public import MAMModel
public import MAMPolicy

/// Intune targeted app configuration on the device (RULES.md §9): the policies in force, set
/// at start from the scenario and changed at run time (`setAppConfig`). A change is stored, so
/// a host restarted on the device directory delivers what the admin last set.
extension DeviceState {
    /// Loads the policies in force: what a previous run stored, else `initial`.
    public func loadAppConfigPolicies(initial: [AppConfigPolicy]) throws {
        if let text = try readStore({ db in try Self.setting(db, "app_configs") }) {
            appConfigPolicies = try JSONDecoder().decode([StoredAppConfig].self, from: Data(text.utf8)).map(\.policy)
        } else {
            appConfigPolicies = initial
        }
    }

    /// Replaces the policies in force (stored before it returns).
    public func setAppConfigPolicies(_ policies: [AppConfigPolicy]) throws {
        let text = String(decoding: try JSONEncoder().encode(policies.map(StoredAppConfig.init)), as: UTF8.self)
        try writeStore { db in try Self.setSetting(db, "app_configs", text) }
        appConfigPolicies = policies
    }

    /// The configuration `account` receives in `app` (`nil` or unmanaged: none).
    public func appConfig(app bundle: BundleID, account: Account?) throws -> AppConfig {
        let (app, policies) = (try descriptor(bundle), appConfigPolicies)
        return PolicyReads.decision(in: fleet) { Enforcer.appConfig(for: account, in: app, policies: policies, fleet: $0) }
    }
}

/// An app configuration policy as the store keeps it.
struct StoredAppConfig: Codable {
    var name: String
    var displayName: String
    var settings: [[String]]
    var apps: [String]
    var accounts: [String]?
    var isDefault: Bool

    init(_ p: AppConfigPolicy) {
        name = p.name
        displayName = p.displayName
        settings = p.settings.map { [$0.name, $0.value] }
        apps = p.apps.map(\.rawValue)
        accounts = p.accounts
        isDefault = p.isDefault
    }

    var policy: AppConfigPolicy {
        AppConfigPolicy(name: name, displayName: displayName,
                        settings: settings.compactMap { $0.count == 2 ? KeyValuePair(name: $0[0], value: $0[1]) : nil },
                        apps: apps.map { BundleID($0) }, accounts: accounts, isDefault: isDefault)
    }
}
