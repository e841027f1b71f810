public import MAMModel

extension Enforcer {
    /// Whether `account` may be signed in under the fleet's allowed-accounts list (RULES.md
    /// §5): with a list, it must match an entry by UPN or by OID, in any letter case. The
    /// explanation names both the admin's values and the entered account, so every mismatch
    /// can be logged as it is.
    public static func isAccountAllowed(_ account: Account, in fleet: Fleet) -> Verdict {
        guard let keys = fleet.allowedKeys else {
            return .allowed("no allowed-accounts list is configured")
        }
        if (!account.upnKey.isEmpty && keys.contains(account.upnKey)) || (!account.oidKey.isEmpty && keys.contains(account.oidKey)) {
            return .allowed("\(account) is in the allowed accounts list")
        }
        let admin = (fleet.allowedAccounts ?? []).joined(separator: ", ")
        let entered = account.oid.isEmpty ? account.upn : "\(account.upn) (OID \(account.oid))"
        return .blocked(.accountNotAllowed, because: "the admin allows only [\(admin)]; the entered account \(entered) matches none of them by UPN or OID")
    }

    /// Decides signing `account` in to `app` (`nil`: an SDK app) while `enrolled` accounts are
    /// signed in on the device (RULES.md §5): the allowed-accounts list, which only the Intune
    /// SDK enforces (an app without it signs in whom it likes), then the single-managed-account
    /// rule (a second managed account is refused until the first is removed).
    public static func signIn(_ account: Account, to app: AppDescriptor? = nil, enrolled: [Account], in fleet: Fleet) -> Verdict {
        if app?.sdkIntegrated ?? true {
            let allowed = isAccountAllowed(account, in: fleet)
            guard allowed.isAllowed else { return allowed }
        }
        if let incoming = fleet.managedEntry(account) {
            // Enrolling keeps the SDK's state in its own keychain group: an SDK app whose
            // declared entitlements lack it fails as on a device (errSecMissingEntitlement).
            if let app, app.sdkIntegrated, !app.keychainAccessGroups.isEmpty,
               !app.keychainAccessGroups.map(normalizedGroup).contains(intuneKeychainGroup) {
                return .blocked(.keychainEntitlement, because: "\(app.bundleID) cannot enroll \(incoming.account): the Intune SDK keeps its state in the keychain group \(intuneKeychainGroup), which is not in the app's keychain-access-groups [\(app.keychainAccessGroups.joined(separator: ", "))] (errSecMissingEntitlement, -34018); add $(AppIdentifierPrefix)\(intuneKeychainGroup)")
            }
            for other in enrolled where !other.isSame(as: account) {
                if let e = fleet.managedEntry(other) {
                    return .blocked(.secondManagedAccount, because: "\(e.account) is already signed in as the managed account (policy \"\(e.policy!.title)\"); only one managed account is supported, so \(incoming.account) can sign in only after \(e.account) is removed")
                }
            }
            if let app, let entry = fleet.appEntry(app.bundleID), !fleet.isPolicyManaged(entry, for: incoming) {
                return .allowed("\(incoming.account) signs in as the managed account; \(untargeted(incoming, entry))")
            }
            // The policy that applies in this app (an account may hold several, each in its apps).
            let here = app.flatMap { fleet.assignedPolicy(for: incoming.account, in: $0.bundleID) } ?? incoming.policy!
            return .allowed("\(incoming.account) signs in as the managed account (policy \"\(here.title)\")")
        }
        return .allowed("\(account) signs in as an unmanaged account")
    }

    /// The signed-in accounts that the current allowed-accounts list no longer allows; the
    /// host signs them out and notifies apps (`allowedAccountsDidChange`).
    /// Only SDK apps (`app` `nil` or SDK-integrated) apply the list.
    public static func accountsToSignOut(_ signedIn: [Account], of app: AppDescriptor? = nil, in fleet: Fleet) -> [Account] {
        guard app?.sdkIntegrated ?? true else { return [] }
        return signedIn.filter { !isAccountAllowed($0, in: fleet).isAllowed }
    }
}
