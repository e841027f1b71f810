import Foundation
import GRDB
public import MAMModel
import MAMPolicy

/// What a selective wipe of one account in one app removed.
public struct WipeReport: Sendable, Hashable, CustomStringConvertible {
    public let app: BundleID
    public let account: Account
    /// The app's answer to `wipeDataForAccountId`: `true` = it deleted its files itself.
    public let appHandledWipe: Bool
    /// Files deleted by the host, relative to the device directory, sorted.
    public let deletedFiles: [String]
    /// Keychain items deleted, as `group/key`, sorted.
    public let deletedKeychainItems: [String]
    /// The account's files the app still holds although it said it wiped them itself
    /// (`appHandledWipe`), relative to the device directory, sorted: Strict Mode's
    /// `wipe-answered-with-files-left`.
    public var filesLeft: [String] = []

    public var description: String {
        let files = appHandledWipe ? "the app wiped its own files" : "\(deletedFiles.count) file(s) of \(account) deleted"
        return "\(files), \(deletedKeychainItems.count) keychain item(s) removed"
    }
}

extension DeviceState {
    /// Selective wipe of `accountID` in `app` (RULES.md §5), after the host asked the app
    /// (`wipeDataForAccountId`) and got `appHandledWipe` back.
    ///
    /// - When the app did not handle it, every file owned by the account in the app's sandbox
    ///   is deleted, and in the app groups it is entitled to, the account's files that **this
    ///   app or one of its own extensions** wrote (our reading: a shared group also holds other
    ///   apps' copies, and those apps were not asked to wipe; they may still have the account
    ///   signed in; an extension acts with its containing app's accounts, RULES.md §2, so what
    ///   it wrote for the account is the app's data).
    /// - The account's keychain items in the app's `keychain-access-groups` are deleted in
    ///   either case: the keychain is the host's, and RULES.md §5 removes them with the account.
    /// - Other accounts' files and items, and all policy state, are untouched.
    /// The account stays signed in; `signOut` signs out and wipes in one step.
    public func wipe(app bundle: BundleID, account accountID: String, appHandledWipe: Bool) throws -> WipeReport {
        let app = try descriptor(bundle)
        guard let account = fleet.account(named: accountID) else { throw Self.unknownAccount(accountID) }
        return try writeStore { db in try wipeData(db, app: app, account: account, appHandledWipe: appHandledWipe) }
    }

    /// `wipe` inside the caller's transaction.
    func wipeData(_ db: Database, app: AppDescriptor, account: Account, appHandledWipe: Bool) throws -> WipeReport {
        let key = Self.key(of: account)
        let bundle = app.bundleID.folded
        // The writers whose data this wipe takes: the app and the extensions it contains.
        let family = Set([bundle] + fleet.apps.values.filter { $0.containingApp == app.bundleID }.map(\.bundleID.folded))
        var files: [String] = []
        var left: [String] = []
        let rows = try Row.fetchAll(db, sql: "SELECT path, container_kind, container_id, writer FROM file_owner WHERE owner_key = ?",
                                    arguments: [key])
        for row in rows {
            let kind: String = row["container_kind"], id: String = row["container_id"], writer: String = row["writer"]
            let mine = kind == "sandbox" ? id == bundle : (app.appGroups.contains(id) && family.contains(writer))
            guard mine else { continue }
            let path: String = row["path"]
            if appHandledWipe {
                // The app said it wiped them: what is still there (lstat: a link is not followed)
                // is what it left.
                var status = stat()
                if lstat(directory.appendingPathComponent(path).path, &status) == 0 { left.append(path) }
                continue
            }
            // The same link-proof removal as every container write: the wiped app may have
            // swapped a folder of the path for a link to another app's container.
            let parts = path.split(separator: "/").map(String.init)
            guard parts.count > 2 else { continue }
            do {
                try ContainerIO.remove(root: directory.appendingPathComponent(parts[0]).appendingPathComponent(parts[1]),
                                       parts: Array(parts.dropFirst(2)))
            } catch {
                throw DeviceStateError.wrapping(error, doing: "delete \(path) while wiping")
            }
            try db.execute(sql: "DELETE FROM file_owner WHERE path = ?", arguments: [path])
            files.append(path)
        }
        var items: [String] = []
        for group in Set(app.keychainAccessGroups.map(Enforcer.normalizedGroup)) {
            // Only what this app (or its extensions) wrote: another app keeps the same
            // account's items in a group they share, and that account may still be signed in there.
            let writers = family.sorted()
            let mine = "access_group = ? AND owner_key = ? AND (writer IN (\(writers.map { _ in "?" }.joined(separator: ", "))) OR writer = '')"
            let arguments = StatementArguments([group, key] + writers)
            let keys = try String.fetchAll(db, sql: "SELECT key FROM keychain_item WHERE \(mine)", arguments: arguments)
            try db.execute(sql: "DELETE FROM keychain_item WHERE \(mine)", arguments: arguments)
            items += keys.map { "\(group)/\($0)" }
        }
        var report = WipeReport(app: app.bundleID, account: account, appHandledWipe: appHandledWipe,
                                deletedFiles: files.sorted(), deletedKeychainItems: items.sorted())
        report.filesLeft = left.sorted()
        return report
    }
}
