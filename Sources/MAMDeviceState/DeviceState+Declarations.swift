import Crypto
import Foundation
import GRDB
public import MAMDeclarations
public import MAMModel
import MAMPolicy
import SwiftASN1
import X509

/// A secret the ManagedApp framework hands an app: a password, or a certificate (of a
/// certificate asset or of an identity: the identity's private key stays in the host).
public enum ManagedSecret: Sendable, Hashable {
    case password(userName: String, password: String)
    /// DER bytes.
    case certificate([UInt8])
    case identity(certificate: [UInt8])
}

/// Why the ManagedApp framework gives an app nothing (RULES.md §9).
public enum ManagedAppUnavailable: Error, Sendable, Hashable, CustomStringConvertible {
    case deviceNotEnrolled
    case osTooOld(String)
    case appNotManaged(BundleID)
    case noConfiguration(BundleID)
    case extensionNotNamed(String)
    case legacyForExtension(BundleID)
    case keyboardWithoutFullAccess(BundleID)

    public var description: String {
        switch self {
        case .deviceNotEnrolled: "the device is not MDM-enrolled: the ManagedApp framework needs declarative device management"
        case .osTooOld(let v): "iOS \(v) has no ManagedApp framework (iOS 18.4 or later)"
        case .appNotManaged(let b): "\(b) is not an MDM-managed app"
        case .noConfiguration(let b): "no com.apple.configuration.app.managed declaration names \(b)"
        case .extensionNotNamed(let key): "the containing app's declaration has no ExtensionConfigs entry \"\(key)\""
        case .keyboardWithoutFullAccess(let b): "\(b) is a keyboard without full access: ManagedApp serves a keyboard only when the user granted it full access"
        case .legacyForExtension(let b): "\(b) is an extension: the legacy managed configuration is an app's (an extension's comes from ManagedApp)"
        }
    }
}

/// Apple's ManagedApp framework on the device (RULES.md §9, seed 004): the declarations an MDM
/// server sent, kept sealed in the store, and what they give each app and extension.
extension DeviceState {
    /// Loads the stored declarations (after a restart).
    public func loadDeclarations() throws {
        let rows = try readStore { db in try Row.fetchAll(db, sql: "SELECT identifier, body FROM declaration ORDER BY identifier") }
        var entries: [DeclarationSet.Entry] = []
        for row in rows {
            let id: String = row["identifier"]
            let plain = try storeKey.open(row["body"], row: "declaration:\(id)")
            entries.append(try JSONDecoder().decode(DeclarationSet.Entry.self, from: plain))
        }
        declarations = try DeclarationSet().applying(entries)
    }

    /// Applies a batch of declarations (a declaration with a known Identifier replaces it):
    /// checked as a whole, stored, then in force. Returns the identifiers applied.
    public func applyDeclarations(_ entries: [DeclarationSet.Entry]) throws -> [String] {
        let next = try declarations.applying(entries)
        try writeStore { db in
            for e in entries {
                let id = e.declaration.identifier
                let body = try storeKey.seal(try JSONEncoder().encode(e), row: "declaration:\(id)")
                try db.execute(sql: "INSERT OR REPLACE INTO declaration (identifier, body) VALUES (?, ?)", arguments: [id, body])
                // A replaced enrollment gets a new identity.
                try db.execute(sql: "DELETE FROM generated_identity WHERE asset = ?", arguments: [id])
            }
        }
        declarations = next
        return entries.map(\.declaration.identifier)
    }

    public func removeDeclaration(_ identifier: String) throws {
        let next = try declarations.removing(identifier)
        try writeStore { db in
            try db.execute(sql: "DELETE FROM declaration WHERE identifier = ?", arguments: [identifier])
            try db.execute(sql: "DELETE FROM generated_identity WHERE asset = ?", arguments: [identifier])
        }
        declarations = next
    }

    /// What the ManagedApp framework has for `app`, or why it has nothing: an MDM-enrolled
    /// device on iOS 18.4 or later, an MDM-managed app its declaration names; an extension gets
    /// its own `ExtensionConfigs` entry only.
    public func managedAppContent(app bundle: BundleID) throws -> Result<ManagedAppContent, ManagedAppUnavailable> {
        let app = try descriptor(bundle)
        guard fleet.device.mdmEnrolled else { return .failure(.deviceNotEnrolled) }
        guard fleet.device.osVersion >= Self.managedAppMinimumOS else { return .failure(.osTooOld(fleet.device.osVersion.text)) }
        let owner = app.containingApp.flatMap { fleet.app($0) } ?? app
        guard owner.mdmManaged else { return .failure(.appNotManaged(owner.bundleID)) }
        // Seed 004: a keyboard extension uses ManagedApp only with full access.
        if app.kind == .keyboard, !app.keyboardFullAccess { return .failure(.keyboardWithoutFullAccess(app.bundleID)) }
        if app.isExtension {
            let key = "\(app.bundleID) (\(app.teamId ?? "no team id"))"
            guard declarations.appDeclaration(forBundle: owner.bundleID.rawValue) != nil else { return .failure(.noConfiguration(owner.bundleID)) }
            guard let team = app.teamId,
                  let c = declarations.content(forExtension: app.bundleID.rawValue, team: team, container: owner.bundleID.rawValue) else {
                return .failure(.extensionNotNamed(key))
            }
            return .success(c)
        }
        guard let c = declarations.content(forApp: app.bundleID.rawValue) else { return .failure(.noConfiguration(app.bundleID)) }
        return .success(c)
    }

    static let managedAppMinimumOS = Version("18.4")!

    /// The legacy managed app configuration of `bundle` — what came before ManagedApp, read by
    /// the app from UserDefaults (`com.apple.configuration.managed`) — which the device installs
    /// from its declaration's `LegacyAppConfigAssetReference`. It is no part of the ManagedApp
    /// framework, so no minimum iOS beyond the declaration's; extensions have none. `nil`
    /// content: the declaration names no legacy configuration.
    public func legacyManagedConfiguration(app bundle: BundleID) throws -> Result<[UInt8]?, ManagedAppUnavailable> {
        let app = try descriptor(bundle)
        guard fleet.device.mdmEnrolled else { return .failure(.deviceNotEnrolled) }
        guard !app.isExtension else { return .failure(.legacyForExtension(bundle)) }
        guard app.mdmManaged else { return .failure(.appNotManaged(bundle)) }
        guard let d = declarations.appDeclaration(forBundle: bundle.rawValue) else { return .failure(.noConfiguration(bundle)) }
        return .success(d.payload["LegacyAppConfigAssetReference"]?.string.flatMap { declarations.assetData[$0] })
    }

    /// The secret `app` asks for by `id`; `invalid-identifier` when none is provisioned.
    public func managedSecret(app bundle: BundleID, kind: ManagedAppContent.SecretKind, id: String) throws -> ManagedSecret {
        let content: ManagedAppContent
        switch try managedAppContent(app: bundle) {
        case .success(let c): content = c
        case .failure(let why): throw DeviceStateError(.invalidIdentifier, "no \(kind) \"\(id)\" for \(bundle): \(why)")
        }
        guard let asset = content.assets(of: kind)[id], let bytes = declarations.assetData[asset],
              let declaration = declarations.declarations[asset] else {
            let known = content.assets(of: kind).keys.sorted()
            throw DeviceStateError(.invalidIdentifier, "\(bundle) has no \(kind) \"\(id)\"; the provisioned \(kind) ids are \(known.isEmpty ? "none" : known.joined(separator: ", "))")
        }
        // The secret is listed (the declarations say so) but its data comes from the asset
        // server when asked for, which does not answer.
        guard fleet.device.assetServerAvailable else {
            throw DeviceStateError(.timeout, "the asset server did not answer the device's request for \(kind) \"\(id)\" of \(bundle) (asset \(asset)); ManagedApp's serverError. The secret is still listed; ask again once the server answers")
        }
        let file = declaration.source
        switch kind {
        case .password:
            let p = try Credentials.userPassword(bytes, file: file, path: "")
            return .password(userName: p.userName, password: p.password)
        case .certificate:
            return .certificate(try derBytes(Credentials.certificate(bytes, file: file, path: "")))
        case .identity:
            return .identity(certificate: try derBytes(identity(asset: asset, declaration: declaration, bytes: bytes).certificate))
        }
    }

    /// Signs `data` with the identity `id` of `app`: the private key never leaves the device.
    public func signWithIdentity(app bundle: BundleID, id: String, data: [UInt8]) throws -> (signature: [UInt8], certificate: [UInt8]) {
        guard case .identity = try managedSecret(app: bundle, kind: .identity, id: id),
              case .success(let content) = try managedAppContent(app: bundle), let asset = content.identities[id],
              let declaration = declarations.declarations[asset], let bytes = declarations.assetData[asset] else {
            throw DeviceStateError(.invalidIdentifier, "\(bundle) has no identity \"\(id)\"")
        }
        let identity = try identity(asset: asset, declaration: declaration, bytes: bytes)
        return (try identity.key.sign(data), try derBytes(identity.certificate))
    }

    /// The identity of an asset: a PKCS #12 file's, or the one the device enrolled for (key
    /// made here, certificate from the simulated CA), kept so it stays the same identity.
    func identity(asset: String, declaration: Declaration, bytes: [UInt8]) throws -> (certificate: Certificate, key: SigningKey) {
        if declaration.type == DeclarationType.identity {
            let key = asset + "\u{0}" + SHA256Digest.hex(bytes)
            if let opened = openedIdentities[key] { return opened }
            let p12 = try Credentials.identity(bytes, file: declaration.source, path: "")
            if openedIdentities.count >= 256 { openedIdentities.removeAll() }
            openedIdentities[key] = (p12.certificate, p12.privateKey)
            return (p12.certificate, p12.privateKey)
        }
        if let row = try readStore({ db in try Row.fetchOne(db, sql: "SELECT key, certificate FROM generated_identity WHERE asset = ?", arguments: [asset]) }) {
            let keyDER = try storeKey.open(row["key"], row: "generated_identity:\(asset)")
            guard let key = SigningKey(pkcs8: Array(keyDER)) else { throw DeviceStateError(.internalError, "the stored key of \(asset) is damaged") }
            return (try Certificate(derEncoded: Array(row["certificate"] as Data)), key)
        }
        let enrollment = try Credentials.enrollment(bytes, type: declaration.type, file: declaration.source, path: "")
        let key = try SigningKey.generate(for: enrollment)
        let certificate = try simulatedCA().issue(enrollment, key: key)
        let der = try derBytes(certificate)
        try writeStore { db in
            try db.execute(sql: "INSERT OR REPLACE INTO generated_identity (asset, key, certificate) VALUES (?, ?, ?)",
                           arguments: [asset, try storeKey.seal(Data(key.derRepresentation), row: "generated_identity:\(asset)"), Data(der)])
        }
        return (certificate, key)
    }

    /// The device's simulated CA, made once and kept (row `""` of generated_identity).
    func simulatedCA() throws -> SimulatedCA {
        if let row = try readStore({ db in try Row.fetchOne(db, sql: "SELECT key FROM generated_identity WHERE asset = ''") }) {
            return try SimulatedCA(keyDER: Array(try storeKey.open(row["key"], row: "generated_identity:")))
        }
        let keyDER = Array(P256.Signing.PrivateKey().derRepresentation)
        let ca = try SimulatedCA(keyDER: keyDER)
        try writeStore { db in
            try db.execute(sql: "INSERT INTO generated_identity (asset, key, certificate) VALUES ('', ?, ?)",
                           arguments: [try storeKey.seal(Data(keyDER), row: "generated_identity:"), Data(try derBytes(ca.certificate))])
        }
        return ca
    }

    func derBytes(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
