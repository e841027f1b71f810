import Foundation
public import MAMKit
public import MAMModel
import MAMWire

/// The ManagedApp framework's providers (seed 004), over the device's services (a library of
/// its own: it needs Foundation's property-list decoder, which MAMKit, linked into every
/// child, does without): the app's
/// configuration as an `AsyncSequence` of a `Decodable` type, and its passwords, certificates
/// and identities by id. An identity's private key never reaches the app: it asks the device
/// to sign.
public enum ManagedAppError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No secret of that kind has this id (or the app is not managed).
    case invalidIdentifier(String)
    /// The device could not answer.
    case unavailable(String)

    public var description: String {
        switch self {
        case .invalidIdentifier(let why): "invalid identifier: \(why)"
        case .unavailable(let why): why
        }
    }
}

public struct ManagedAppConfigurationProvider: Sendable {
    let app: MAMApp

    public init(app: MAMApp) { self.app = app }

    /// The current configuration decoded as `T`, then again on every update, without end.
    /// `nil` when the app is unmanaged, unconfigured, or when decoding fails (unknown keys are
    /// ignored by `Decodable`'s rules).
    public func configurations<T: Decodable & Sendable>(_ type: T.Type) -> AsyncStream<T?> {
        let (stream, input) = AsyncStream.makeStream(of: T?.self)
        let app = self.app
        let token = app.observeNotifications { n in
            guard n.kind == .managedConfigChanged else { return }
            input.yield(await Self.current(T.self, from: app))
        }
        input.onTermination = { _ in app.removeObserver(token) }
        Task { input.yield(await Self.current(T.self, from: app)) }
        return stream
    }

    /// The configuration now, decoded as `T` (`nil` as for `configurations`).
    public func current<T: Decodable & Sendable>(_ type: T.Type) async -> T? { await Self.current(type, from: app) }

    /// The legacy managed app configuration (`UserDefaults`' `com.apple.configuration.managed`
    /// dictionary), decoded as `T`: what an app reads while it moves to ManagedApp, giving
    /// ManagedApp's configuration priority. `nil` when there is none or decoding fails.
    public func legacy<T: Decodable & Sendable>(_ type: T.Type) async -> T? {
        guard let plist = await app.call(Service.ManagedConfig(legacy: true)).allowedAnswer else { return nil }
        return try? PropertyListDecoder().decode(T.self, from: Data(plist))
    }

    /// A configuration the decoder refuses is `nil` for the app, and the decoder's error goes
    /// to the device for the administrator (the errors an app's spec documents, seed 004), in
    /// the words `report` gives it.
    public static func current<T: Decodable>(_ type: T.Type, from app: MAMApp,
                                             report: (any Error) -> String = describe) async -> T? {
        guard let plist = await app.call(Service.ManagedConfig(legacy: false)).allowedAnswer else { return nil }
        do {
            return try decode(T.self, from: plist)
        } catch {
            _ = await app.call(Service.ManagedConfigUndecodable(error: report(error)))
            return nil
        }
    }

    /// The configuration as Apple's framework hands it to the app's type: a property list,
    /// through a property-list decoder (developer.apple.com, ManagedAppConfigurationProvider:
    /// "the framework ingests the configuration in the form of a property list … and passes it
    /// to your type as a Decoder"). So a `Date` is a `<date>`, and a `URL` is not a `<string>`:
    /// Foundation's `URL` decodes from a string only in `JSONDecoder` — here it needs its keyed
    /// form, or the type reads a `String` and makes the URL (docs/MANAGEDAPP.md).
    public static func decode<T: Decodable>(_ type: T.Type, from plist: [UInt8]) throws -> T {
        try PropertyListDecoder().decode(T.self, from: Data(plist))
    }

    /// A decoding error as an administrator reads it: what was wrong, and where.
    public static func describe(_ error: any Error) -> String {
        guard let e = error as? DecodingError else { return "\(error)" }
        func path(_ c: DecodingError.Context) -> String {
            c.codingPath.isEmpty ? "" : " at " + c.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch e {
        case .dataCorrupted(let c): return c.debugDescription + path(c)
        case .keyNotFound(let key, let c): return "missing key \(key.stringValue)" + path(c)
        case .typeMismatch(let type, let c): return "expected \(type)" + path(c) + ": " + c.debugDescription
        case .valueNotFound(let type, let c): return "no \(type) value" + path(c)
        @unknown default: return "\(error)"
        }
    }
}

/// A user name and password the administrator provisioned.
public struct ManagedPassword: Sendable, Hashable {
    public let userName: String
    public let password: String
}

/// An identity: its certificate, and signing with its key, which stays in the device.
public struct ManagedIdentity: Sendable {
    public let id: String
    /// DER.
    public let certificate: [UInt8]
    let app: MAMApp

    /// Signs `data` with the identity's private key (ECDSA DER or RSA PKCS #1 v1.5, SHA-256).
    public func sign(_ data: [UInt8]) async throws(ManagedAppError) -> [UInt8] {
        let r = await app.call(Service.SignWithIdentity(id: id, data: data))
        guard let signature = r.allowedAnswer else { throw ManagedAppProviders.error(r.verdict) }
        return signature
    }
}

/// `ManagedAppPasswordsProvider`, `…CertificatesProvider`, `…IdentitiesProvider` in one place:
/// each kind's ids (now and on every change) and lookup by id.
public struct ManagedAppProviders: Sendable {
    let app: MAMApp

    public init(app: MAMApp) { self.app = app }

    /// The provisioned ids of `kind`: the array at start, then again each time it changes (seed
    /// 004: the sequence tells the app of changes to the secrets available; an update that
    /// leaves this kind's ids as they were yields nothing).
    public func identifiers(_ kind: ManagedSecretKind) -> AsyncStream<[String]> {
        let (stream, input) = AsyncStream.makeStream(of: [String].self)
        let app = self.app
        let last = LastYield()
        let token = app.observeNotifications { n in
            guard n.kind == .managedConfigChanged else { return }
            if let ids = await last.changed(await Self.ids(kind, app)) { input.yield(ids) }
        }
        input.onTermination = { _ in app.removeObserver(token) }
        Task { if let ids = await last.changed(await Self.ids(kind, app)) { input.yield(ids) } }
        return stream
    }

    /// The array the sequence yielded last: a new one is yielded only when it differs.
    private actor LastYield {
        var ids: [String]?
        func changed(_ new: [String]) -> [String]? {
            guard new != ids else { return nil }
            ids = new
            return new
        }
    }

    /// The provisioned ids of `kind` now (`[]` when none, or when the app is not managed).
    public static func ids(_ kind: ManagedSecretKind, _ app: MAMApp) async -> [String] {
        await app.call(Service.ManagedSecretIds(kind: kind)).allowedAnswer ?? []
    }

    public func password(withIdentifier id: String) async throws(ManagedAppError) -> ManagedPassword {
        guard case .password(let user, let password) = try await secret(.password, id) else { throw .unavailable("not a password") }
        return ManagedPassword(userName: user, password: password)
    }

    /// The certificate's DER bytes.
    public func certificate(withIdentifier id: String) async throws(ManagedAppError) -> [UInt8] {
        guard case .certificate(let der) = try await secret(.certificate, id) else { throw .unavailable("not a certificate") }
        return der
    }

    public func identity(withIdentifier id: String) async throws(ManagedAppError) -> ManagedIdentity {
        guard case .identity(let der) = try await secret(.identity, id) else { throw .unavailable("not an identity") }
        return ManagedIdentity(id: id, certificate: der, app: app)
    }

    func secret(_ kind: ManagedSecretKind, _ id: String) async throws(ManagedAppError) -> ManagedSecretValue {
        let r = await app.call(Service.ManagedSecret(kind: kind, id: id))
        guard let v = r.allowedAnswer else { throw Self.error(r.verdict) }
        return v
    }

    static func error(_ verdict: Verdict) -> ManagedAppError {
        if case .failed(let reason, let why) = verdict, reason == .invalidIdentifier { return .invalidIdentifier(why) }
        return .unavailable(verdict.explanation)
    }
}
