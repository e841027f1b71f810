import Crypto
public import Foundation
import GRDB
public import MAMModel
import MAMPolicy

/// A container path resolved for one app: where it is on disk and how the store names it.
struct ResolvedPath {
    let url: URL
    /// The container's root and the path's components inside it, for `ContainerIO`.
    let root: URL
    let parts: [String]
    /// Relative to the device directory (`containers/<bundle>/…`, `groups/<group>/…`): the
    /// `file_owner` key.
    let storeKey: String
    /// `sandbox` or `group`.
    let kind: String
    /// The folded bundle id, or the group id.
    let containerID: String
}

extension DeviceState {
    // MARK: Containers

    /// The sandbox directory of `app`, created on first use.
    public func sandboxURL(app bundle: BundleID) throws -> URL {
        let app = try descriptor(bundle)
        return try containerRoot(kind: "sandbox", id: app.bundleID.rawValue, app: app)
    }

    /// The app group directory `group`, created on first use, for an app entitled to it.
    public func appGroupURL(_ group: String, app bundle: BundleID) throws -> URL {
        let app = try descriptor(bundle)
        let access = Enforcer.appGroupAccess(group, by: app)
        guard access.isAllowed else { throw DeviceStateError(.appGroupEntitlement, access.explanation) }
        return try containerRoot(kind: "group", id: group, app: app)
    }

    private func containerRoot(kind: String, id: String, app: AppDescriptor) throws -> URL {
        // Ids come from the fleet and entitlements, not from a child, but they still become
        // one directory name each.
        guard !id.isEmpty, id != ".", id != "..", !id.contains("/"), !id.contains("\0") else {
            throw DeviceStateError(.badRequest, "\(app.bundleID) has a \(kind == "group" ? "group id" : "bundle id") \"\(id)\" that cannot name a directory")
        }
        let url = directory.appendingPathComponent(kind == "group" ? "groups" : "containers", isDirectory: true)
            .appendingPathComponent(id, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Resolves a child-named path inside one of `app`'s entitled containers, refusing
    /// absolute paths, `..`, NUL bytes, symbolic links on the way and groups the app is not
    /// entitled to.
    func resolve(_ path: ContainerPath, for app: AppDescriptor) throws -> ResolvedPath {
        let text = path.relativePath
        if text.hasPrefix("/") {
            throw DeviceStateError.badPath(path.description, app: app.bundleID, "absolute paths are never accepted from an app; name a path relative to its container")
        }
        if text.contains("\0") {
            throw DeviceStateError.badPath(path.description, app: app.bundleID, "it contains a NUL byte")
        }
        let parts = text.split(separator: "/").filter { $0 != "." }
        if parts.contains("..") {
            throw DeviceStateError.badPath(path.description, app: app.bundleID, "\"..\" would leave the container; name a path inside it")
        }
        guard !parts.isEmpty else {
            throw DeviceStateError.badPath(path.description, app: app.bundleID, "it names no file")
        }
        let root: URL, kind: String, id: String, prefix: String
        switch path.container {
        case .sandbox:
            root = try containerRoot(kind: "sandbox", id: app.bundleID.rawValue, app: app)
            (kind, id, prefix) = ("sandbox", app.bundleID.folded, "containers/\(app.bundleID.rawValue)")
        case .appGroup(let group):
            let access = Enforcer.appGroupAccess(group, by: app)
            guard access.isAllowed else { throw DeviceStateError(.appGroupEntitlement, access.explanation) }
            root = try containerRoot(kind: "group", id: group, app: app)
            (kind, id, prefix) = ("group", group, "groups/\(group)")
        }
        // A child can make links inside its own container; following one could reach another
        // app's files, so a link anywhere on the path is refused.
        var url = root
        for part in parts {
            url.appendPathComponent(String(part))
            if let type = try? FileManager.default.attributesOfItem(atPath: url.path)[.type] as? FileAttributeType,
               type == .typeSymbolicLink {
                throw DeviceStateError.badPath(path.description, app: app.bundleID, "it passes through a symbolic link")
            }
        }
        return ResolvedPath(url: url, root: root, parts: parts.map(String.init), storeKey: prefix + "/" + parts.joined(separator: "/"),
                            kind: kind, containerID: id)
    }

    /// The app whose sign-ins an app or extension acts with: an extension uses its
    /// containing app's accounts.
    func accountScope(_ app: AppDescriptor) -> BundleID {
        app.isExtension ? (app.containingApp ?? app.bundleID) : app.bundleID
    }

    /// Throws `not-signed-in` unless `owner` (`""` = unmanaged) is signed in to `app` (an
    /// extension: to its containing app).
    func requireSignedIn(_ owner: String, to app: AppDescriptor, doing what: String) throws {
        guard !owner.isEmpty else { return }
        let scope = accountScope(app)
        guard try isSignedIn(owner, app: scope) else {
            throw DeviceStateError(.notSignedIn, "\(app.bundleID) cannot \(what) owned by \(owner): that account is not signed in to \(scope)")
        }
    }

    // MARK: Files

    /// Writes `data` to `path` in `app`'s containers and records `owner` as the file's owner
    /// (the effective file identity: thread ?? process; `nil` or `""` = unowned).
    ///
    /// The owner must be signed in to the app (a child cannot name someone else's account).
    /// When the owner is managed and its policy requires file encryption
    /// (`Enforcer.isFileEncryptionRequired`), the bytes on disk are the `protect` envelope,
    /// AES-GCM sealed with the owner's host-held key; otherwise they are the plain data.
    @discardableResult
    public func writeFile(app bundle: BundleID, path: ContainerPath, data: [UInt8], owner: String?) throws -> ProtectionInfo {
        let app = try descriptor(bundle)
        let resolved = try resolve(path, for: app)
        let ownerName = canonicalIdentity(owner) ?? ""
        let account = account(forIdentity: ownerName)
        if !ownerName.isEmpty, try !isSignedIn(ownerName, app: accountScope(app)) {
            throw DeviceStateError(.notSignedIn, "\(app.bundleID) cannot write \(path) as \(ownerName): that account is not signed in to \(accountScope(app)); sign it in first, or write as the unmanaged identity \"\"")
        }
        let encrypt = account != nil && PolicyReads.decision(in: fleet) { Enforcer.isFileEncryptionRequired(for: account, app: bundle, in: $0) }
        // Replacing another account's encrypted file (a shared app group) needs that account
        // signed in here too: an app cannot destroy or take over data it cannot read.
        let previous = try readStore { db in
            try Row.fetchOne(db, sql: "SELECT owner, encrypted FROM file_owner WHERE path = ?", arguments: [resolved.storeKey])
        }
        if let previous, let previousOwner: String = previous["owner"], (previous["encrypted"] as Bool?) == true {
            try requireSignedIn(previousOwner, to: app, doing: "replace \(path)")
        }
        try writeStore { db in
            let bytes = encrypt
                ? try ProtectedData.seal(data, owner: ownerName, key: try encryptionKey(db, owner: ownerName))
                : data
            try db.execute(sql: """
                INSERT OR REPLACE INTO file_owner (path, container_kind, container_id, writer, owner, owner_key, encrypted)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [resolved.storeKey, resolved.kind, resolved.containerID, app.bundleID.folded,
                                 ownerName, identityKey(ownerName), encrypt])
            // Written inside the transaction: if the write fails, the owner row rolls back.
            do {
                try ContainerIO.write(root: resolved.root, parts: resolved.parts, data: bytes)
            } catch ContainerIO.Failure.system(_, let e) where DeviceStateError.isOutOfSpace(e) {
                throw DeviceStateError(.quota, "the device's storage is full, so \(path) could not be written in \(app.bundleID)'s containers; they and the app groups hold what device.limits.storage allows", underlying: e)
            } catch {
                throw DeviceStateError.badPath(path.description, app: app.bundleID, "\(error)")
            }
        }
        return ProtectionInfo(owner: ownerName, isEncrypted: encrypt)
    }

    /// The plain contents of `path`, decrypted for an app entitled to its container.
    public func readFile(app bundle: BundleID, path: ContainerPath) throws -> [UInt8] {
        let app = try descriptor(bundle)
        let resolved = try resolve(path, for: app)
        let bytes: [UInt8]
        do {
            bytes = try ContainerIO.read(root: resolved.root, parts: resolved.parts)
        } catch .notFound {
            throw DeviceStateError(.badRequest, "\(app.bundleID) asked for \(path), which does not exist in its containers")
        } catch {
            throw DeviceStateError.badPath(path.description, app: app.bundleID, "\(error)")
        }
        let encrypted = try readStore { db in
            try Bool.fetchOne(db, sql: "SELECT encrypted FROM file_owner WHERE path = ?", arguments: [resolved.storeKey]) ?? false
        }
        guard encrypted else { return bytes }
        guard let parsed = ProtectedData.parse(bytes) else {
            throw DeviceStateError(.badRequest, "\(path) in \(app.bundleID)'s containers should be encrypted but its header is damaged")
        }
        // An app entitled to a shared container still reads only what its own accounts own.
        try requireSignedIn(parsed.info.owner, to: app, doing: "read \(path)")
        return try ProtectedData.open(parsed, key: try existingKey(owner: parsed.info.owner))
    }

    /// The owner of a file `app` shares (`nil` or `""`: none), read from the records without
    /// its bytes, with `readFile`'s refusals: a file that is not in the app's containers or is
    /// not a plain file, and an encrypted file whose owner is not signed in to the app.
    public func shareableFileOwner(app bundle: BundleID, path: ContainerPath) throws -> String? {
        let app = try descriptor(bundle)
        let resolved = try resolve(path, for: app)
        do {
            try ContainerIO.check(root: resolved.root, parts: resolved.parts)
        } catch .notFound {
            throw DeviceStateError(.badRequest, "\(app.bundleID) asked for \(path), which does not exist in its containers")
        } catch {
            throw DeviceStateError.badPath(path.description, app: app.bundleID, "\(error)")
        }
        let row = try readStore { db in
            try Row.fetchOne(db, sql: "SELECT owner, encrypted FROM file_owner WHERE path = ?", arguments: [resolved.storeKey])
        }
        let owner: String? = row?["owner"]
        if let owner, row?["encrypted"] ?? false { try requireSignedIn(owner, to: app, doing: "read \(path)") }
        return owner
    }

    /// The owner recorded for `path` (`""` = unowned), `nil` when the host never recorded the
    /// file (`IntuneMAMFilePolicyManager` owner lookup).
    public func fileOwner(app bundle: BundleID, path: ContainerPath) throws -> String? {
        let resolved = try resolve(path, for: try descriptor(bundle))
        return try readStore { db in
            try String.fetchOne(db, sql: "SELECT owner FROM file_owner WHERE path = ?", arguments: [resolved.storeKey])
        }
    }

    /// What the device knows of `path` for `app`: whether it exists in the container, the
    /// owner recorded for it (`nil` = none) and whether its bytes on disk are encrypted.
    public func fileStatus(app bundle: BundleID, path: ContainerPath) throws -> FileStatus {
        let resolved = try resolve(path, for: try descriptor(bundle))
        let row = try readStore { db in
            try Row.fetchOne(db, sql: "SELECT owner, encrypted FROM file_owner WHERE path = ?", arguments: [resolved.storeKey])
        }
        let onDisk: [UInt8]?
        do {
            onDisk = try ContainerIO.read(root: resolved.root, parts: resolved.parts)
        } catch .notFound {
            onDisk = nil
        } catch {
            throw DeviceStateError.badPath(path.description, app: bundle, "\(error)")
        }
        return FileStatus(exists: onDisk != nil, owner: row?["owner"],
                          encryptedOnDisk: onDisk.flatMap { ProtectedData.parse($0)?.info.isEncrypted } ?? false)
    }

    /// Changes a file's owner explicitly (`IntuneMAMFilePolicyManager`), re-protecting its
    /// bytes for the new owner.
    @discardableResult
    public func setFileOwner(app bundle: BundleID, path: ContainerPath, owner: String?) throws -> ProtectionInfo {
        let plain = try readFile(app: bundle, path: path)
        return try writeFile(app: bundle, path: path, data: plain, owner: owner)
    }

    /// Deletes `path` and its owner record.
    public func deleteFile(app bundle: BundleID, path: ContainerPath) throws {
        let resolved = try resolve(path, for: try descriptor(bundle))
        try writeStore { db in
            try db.execute(sql: "DELETE FROM file_owner WHERE path = ?", arguments: [resolved.storeKey])
            do {
                try ContainerIO.remove(root: resolved.root, parts: resolved.parts)
            } catch {
                throw DeviceStateError.badPath(path.description, app: bundle, "\(error)")
            }
        }
    }

    // MARK: Buffers (IntuneMAMDataProtectionManager)

    /// `protect(_:accountId:)`: a managed owner's data comes back encrypted in an envelope
    /// naming the owner; an unmanaged owner's data comes back plain, with the same header.
    ///
    /// `app` asks: the owner must be signed in to it (the SDK holds a key per signed-in user;
    /// an app cannot seal data as someone else).
    public func protect(app bundle: BundleID, data: [UInt8], owner: String) throws -> [UInt8] {
        let name = canonicalIdentity(owner) ?? ""
        try requireSignedIn(name, to: try descriptor(bundle), doing: "protect data")
        guard fleet.isManaged(account(forIdentity: name), in: bundle) else { return try ProtectedData.seal(data, owner: name, key: nil) }
        return try writeStore { db in try ProtectedData.seal(data, owner: name, key: try encryptionKey(db, owner: name)) }
    }

    /// `unprotect(_:)`: the data inside a `protect` envelope; data `protect` did not produce
    /// comes back unchanged. Throws when an envelope was tampered with or its key is unknown.
    ///
    /// `app` asks: encrypted data opens only for an app its owner is signed in to.
    public func unprotect(app bundle: BundleID, data: [UInt8]) throws -> [UInt8] {
        guard let parsed = ProtectedData.parse(data) else { return data }
        if parsed.info.isEncrypted {
            try requireSignedIn(parsed.info.owner, to: try descriptor(bundle), doing: "decrypt data")
        }
        return try ProtectedData.open(parsed, key: parsed.info.isEncrypted ? try existingKey(owner: parsed.info.owner) : nil)
    }

    /// `protectionInfo(_:)`: the owner of protected data, `nil` for data `protect` did not
    /// produce.
    public func protectionInfo(data: [UInt8]) -> ProtectionInfo? {
        ProtectedData.parse(data)?.info
    }

    // MARK: Keys (held by the host, never sent to a child)

    /// The owner's key, generated and stored on first use (inside the caller's transaction).
    func encryptionKey(_ db: Database, owner: String) throws -> SymmetricKey {
        let key = identityKey(owner)
        if let stored = try Data.fetchOne(db, sql: "SELECT key FROM encryption_key WHERE account_key = ?", arguments: [key]) {
            return SymmetricKey(data: try storeKey.open(stored, row: "encryption_key:\(key)"))
        }
        let fresh = SymmetricKey(size: .bits256)
        try db.execute(sql: "INSERT INTO encryption_key (account_key, key) VALUES (?, ?)",
                       arguments: [key, try storeKey.seal(fresh.withUnsafeBytes { Data($0) }, row: "encryption_key:\(key)")])
        return fresh
    }

    func existingKey(owner: String) throws -> SymmetricKey? {
        let key = identityKey(owner)
        return try readStore { db in
            try Data.fetchOne(db, sql: "SELECT key FROM encryption_key WHERE account_key = ?", arguments: [key])
        }.map { SymmetricKey(data: try storeKey.open($0, row: "encryption_key:\(key)")) }
    }
}

/// A file as the device sees it (`expectState.files`, `encrypted`, `absent`).
public struct FileStatus: Sendable, Hashable {
    public let exists: Bool
    /// The recorded owner (`""` = unowned), `nil` when the host never recorded the file.
    public let owner: String?
    /// Whether the bytes on disk are a sealed envelope, not the plain data.
    public let encryptedOnDisk: Bool
}
