public import Foundation
import MAMKit
import MAMManagedApp
import MAMModel
import MAMWire

/// What the framework's calls throw.
public enum ManagedAppError: Error, Hashable, Sendable, LocalizedError {
    /// No secret with this identifier is provisioned for the app now.
    case invalidIdentifier
    /// The system failed.
    case internalError
    /// The asset server did not give the secret.
    case serverError

    public var errorDescription: String? {
        switch self {
        case .invalidIdentifier: "no secret with this identifier is provisioned for the app"
        case .internalError: "the device could not answer"
        case .serverError: "the asset server did not give the secret"
        }
    }

    /// The device's refusal as the framework throws it.
    init(_ verdict: Verdict) {
        switch verdict {
        case .failed(let reason, _) where reason == .invalidIdentifier: self = .invalidIdentifier
        // The device did not get the secret in time: its server is what did not answer.
        case .failed(let reason, _) where reason == .timeout: self = .serverError
        default: self = .internalError
        }
    }
}

/// The identifiers of one kind of secret: the list when iteration starts, then again whenever
/// the list changes or the value of one of them does; `[]` when none is provisioned.
func identifierSequence(_ kind: ManagedSecretKind, _ app: MAMApp) async -> some AsyncSequence<[String], Never> {
    let channel = Rendezvous<[String]>()
    let last = Fingerprints()
    let token = app.observeNotifications { n in
        guard n.kind == .managedConfigChanged else { return }
        let now = await Fingerprints.of(kind, app)
        if await last.changed(now) { await channel.send(now.ids) }
    }
    channel.onLeave { app.removeObserver(token) }
    let first = await Fingerprints.of(kind, app)
    _ = await last.changed(first)
    channel.preload(first.ids)
    return channel
}

/// The list and the values it was last yielded with: a value that changes under the same
/// identifier is a change too (a rotated password).
actor Fingerprints {
    struct Seen: Equatable, Sendable {
        var ids: [String]
        var values: [String: Int]
    }
    private var last: Seen?

    /// A value the device could not fetch (its asset server failing) is taken as unchanged.
    func changed(_ fetched: Seen) -> Bool {
        var now = fetched
        for id in now.ids where now.values[id] == nil { now.values[id] = last?.values[id] }
        defer { last = now }
        return now != last
    }

    static func of(_ kind: ManagedSecretKind, _ app: MAMApp) async -> Seen {
        let ids = await ManagedAppProviders.ids(kind, app)
        var values: [String: Int] = [:]
        for id in ids {
            if let v = await app.call(Service.ManagedSecret(kind: kind, id: id)).allowedAnswer { values[id] = v.hashValue }
        }
        return Seen(ids: ids, values: values)
    }
}

func secret(_ kind: ManagedSecretKind, _ id: String, _ app: MAMApp) async throws(ManagedAppError) -> ManagedSecretValue {
    let r = await app.call(Service.ManagedSecret(kind: kind, id: id))
    guard let v = r.allowedAnswer else { throw ManagedAppError(r.verdict) }
    return v
}

/// Passwords an administrator provisions for the app.
public final class ManagedAppPasswordsProvider: Sendable {
    let app: MAMApp

    public init() { app = ManagedAppFacade.app }

    public var identifiers: some AsyncSequence<[String], Never> {
        get async { await identifierSequence(.password, app) }
    }

    /// The password; `invalidIdentifier` when the identifier is not listed now (it may have
    /// been removed since the app read the list).
    public func password(withIdentifier identifier: String) async throws(ManagedAppError) -> String {
        guard case .password(_, let password) = try await secret(.password, identifier, app) else { throw .internalError }
        return password
    }
}

/// Certificates an administrator provisions for the app.
public final class ManagedAppCertificatesProvider: Sendable {
    let app: MAMApp

    public init() { app = ManagedAppFacade.app }

    public var identifiers: some AsyncSequence<[String], Never> {
        get async { await identifierSequence(.certificate, app) }
    }

    public func certificate(withIdentifier identifier: String) async throws(ManagedAppError) -> SecCertificate {
        guard case .certificate(let der) = try await secret(.certificate, identifier, app) else { throw .internalError }
        return SecCertificate(der: der)
    }
}

/// Identities (a certificate and its private key) an administrator provisions for the app.
/// The key stays in the device: signing with it asks the device.
public final class ManagedAppIdentitiesProvider: Sendable {
    let app: MAMApp

    public init() { app = ManagedAppFacade.app }

    public var identifiers: some AsyncSequence<[String], Never> {
        get async { await identifierSequence(.identity, app) }
    }

    public func identity(withIdentifier identifier: String) async throws(ManagedAppError) -> SecIdentity {
        guard case .identity(let der) = try await secret(.identity, identifier, app) else { throw .internalError }
        return SecIdentity(id: identifier, certificate: SecCertificate(der: der), app: app)
    }
}
