import Foundation
import GRDB
public import MAMModel
import MAMPolicy

/// The answer to a keychain call: the status iOS would return (`errSecSuccess`,
/// `errSecMissingEntitlement` -34018, `errSecItemNotFound` -25300), the decision with its
/// sentence, the access group the call resolved to and, for a successful read, the value.
public struct KeychainResult: Sendable, Hashable, CustomStringConvertible {
    public let status: KeychainStatus
    public let decision: Verdict
    public let group: String?
    public let value: [UInt8]?

    public var description: String { "\(status): \(decision.explanation)" }
}

extension DeviceState {
    /// Adds or replaces the item `key` in `group` (`nil` = the app's default group, its first
    /// `keychain-access-groups` entry), owned by `owner` (`nil`/`""` = unowned; otherwise an
    /// account signed in to the app). Access is `Enforcer.keychainAccess` (RULES.md §6).
    public func keychainSet(app bundle: BundleID, group: String? = nil, key: String, value: [UInt8],
                            owner: String? = nil) throws -> KeychainResult {
        let app = try descriptor(bundle)
        let access = Enforcer.keychainAccess(group: group, by: app, itemExists: true)
        guard access.status == .success, let resolved = access.group else {
            return KeychainResult(status: access.status, decision: access.decision, group: access.group, value: nil)
        }
        let ownerName = canonicalIdentity(owner) ?? ""
        if !ownerName.isEmpty, try !isSignedIn(ownerName, app: accountScope(app)) {
            throw DeviceStateError(.notSignedIn, "\(app.bundleID) cannot store keychain item \"\(key)\" as \(ownerName): that account is not signed in to \(accountScope(app)); sign it in first")
        }
        try writeStore { db in
            try db.execute(sql: "INSERT OR REPLACE INTO keychain_item (access_group, key, value, owner, owner_key, writer) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [resolved, key, try storeKey.seal(Data(value), row: "keychain:\(resolved)/\(key)"), ownerName,
                                       identityKey(ownerName), accountScope(app).folded])
        }
        return KeychainResult(status: .success, decision: access.decision, group: resolved, value: nil)
    }

    /// Reads the item `key` from `group`; with no group, from the first of the app's
    /// `keychain-access-groups` that holds it (as `SecItemCopyMatching` searches the groups the
    /// app may use, in order).
    public func keychainGet(app bundle: BundleID, group: String? = nil, key: String) throws -> KeychainResult {
        let app = try descriptor(bundle)
        if group == nil, let first = Enforcer.defaultKeychainGroup(app) {
            let holding = try readStore { db in
                try String.fetchAll(db, sql: "SELECT access_group FROM keychain_item WHERE key = ?", arguments: [key])
            }
            return try keychainGet(app: bundle, group: Enforcer.keychainGroups(app).first { holding.contains($0) } ?? first, key: key)
        }
        let probe = Enforcer.keychainAccess(group: group, by: app, itemExists: true)
        guard probe.status == .success, let resolved = probe.group else {
            return KeychainResult(status: probe.status, decision: probe.decision, group: probe.group, value: nil)
        }
        let value = try readStore { db in
            try Data.fetchOne(db, sql: "SELECT value FROM keychain_item WHERE access_group = ? AND key = ?", arguments: [resolved, key])
        }.map { stored in try storeKey.open(stored, row: "keychain:\(resolved)/\(key)") }
        let access = Enforcer.keychainAccess(group: resolved, by: app, itemExists: value != nil)
        return KeychainResult(status: access.status, decision: access.decision, group: resolved, value: value.map { Array($0) })
    }

    /// Deletes the item `key` from `group` (`nil` = the default group).
    public func keychainDelete(app bundle: BundleID, group: String? = nil, key: String) throws -> KeychainResult {
        let app = try descriptor(bundle)
        let probe = Enforcer.keychainAccess(group: group, by: app, itemExists: true)
        guard probe.status == .success, let resolved = probe.group else {
            return KeychainResult(status: probe.status, decision: probe.decision, group: probe.group, value: nil)
        }
        let deleted = try writeStore { db -> Bool in
            try db.execute(sql: "DELETE FROM keychain_item WHERE access_group = ? AND key = ?", arguments: [resolved, key])
            return db.changesCount > 0
        }
        let access = Enforcer.keychainAccess(group: resolved, by: app, itemExists: deleted)
        return KeychainResult(status: access.status, decision: access.decision, group: resolved, value: nil)
    }

    /// The owner recorded for a keychain item, `nil` when there is no such item.
    public func keychainOwner(group: String, key: String) throws -> String? {
        try readStore { db in
            try String.fetchOne(db, sql: "SELECT owner FROM keychain_item WHERE access_group = ? AND key = ?",
                                arguments: [Enforcer.normalizedGroup(group), key])
        }
    }
}
