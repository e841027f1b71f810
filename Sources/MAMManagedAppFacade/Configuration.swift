import Foundation
import MAMKit
import MAMManagedApp
import MAMModel
import MAMWire

/// An error the app's configuration type throws while decoding, which the device reports to
/// the administrator (the framework's protocol: a code and a message).
public protocol ManagedAppConfigurationDecodingError: Codable, Error, Sendable {
    var code: ManagedAppConfigurationDecodingErrorCode { get set }
    var message: String { get set }
}

/// The code of a decoding error: below `firstReserved` the app's own; from it up, the system's
/// (a decoder failure that is not the app's own error). Apple documents the names, not the
/// numbers: the reserved values here are mamsim's, starting at `firstReserved`.
public struct ManagedAppConfigurationDecodingErrorCode: RawRepresentable, Codable, Hashable, Sendable {
    public let rawValue: Int

    /// `nil` for a negative value (no code is).
    public init?(rawValue: Int) {
        guard rawValue >= 0 else { return nil }
        self.rawValue = rawValue
    }

    public static let firstReserved: Int = 0x10000
    public static let generic: Int = firstReserved
    public static let dataCorrupted: Int = firstReserved + 1
    public static let keyNotFound: Int = firstReserved + 2
    public static let typeMismatch: Int = firstReserved + 3
    public static let valueNotFound: Int = firstReserved + 4
}

/// The configuration an administrator provisions for the app (a declaration's data asset,
/// decoded by a type the app defines).
public final class ManagedAppConfigurationProvider: Sendable {
    let app: MAMApp

    public init() { app = ManagedAppFacade.app }

    /// The current configuration at once, then again on every change of the declaration or of
    /// its data; `nil` when the app is unmanaged or unconfigured, or when `Configuration`'s
    /// decoder throws — its error is reported to the administrator.
    public func configurations<Configuration: Decodable>(_ t: Configuration.Type) async -> some AsyncSequence<Configuration?, Never> {
        let channel = Rendezvous<Handed<Configuration?>>()
        let app = self.app
        let token = app.observeNotifications { n in
            guard n.kind == .managedConfigChanged else { return }
            await channel.send(Handed(await Self.current(Configuration.self, app)))
        }
        channel.onLeave { app.removeObserver(token) }
        // The current value first, before any update: iteration starts with it.
        channel.preload(Handed(await Self.current(Configuration.self, app)))
        return channel.map { $0.value }
    }

    /// The configuration now, decoded (`nil` as for `configurations`), a decoder's error
    /// reported with its code.
    static func current<C: Decodable>(_ type: C.Type, _ app: MAMApp) async -> C? {
        await MAMManagedApp.ManagedAppConfigurationProvider.current(C.self, from: app) { error in
            let (code, message) = report(error)
            return "code \(code): \(message)"
        }
    }

    /// The code and message the administrator sees: the app's own error as it wrote them; a
    /// decoder failure as its reserved code and where it happened.
    static func report(_ error: any Error) -> (code: Int, message: String) {
        if let own = error as? any ManagedAppConfigurationDecodingError { return (own.code.rawValue, own.message) }
        let message = MAMManagedApp.ManagedAppConfigurationProvider.describe(error)
        guard let e = error as? DecodingError else { return (ManagedAppConfigurationDecodingErrorCode.generic, message) }
        switch e {
        case .dataCorrupted: return (ManagedAppConfigurationDecodingErrorCode.dataCorrupted, message)
        case .keyNotFound: return (ManagedAppConfigurationDecodingErrorCode.keyNotFound, message)
        case .typeMismatch: return (ManagedAppConfigurationDecodingErrorCode.typeMismatch, message)
        case .valueNotFound: return (ManagedAppConfigurationDecodingErrorCode.valueNotFound, message)
        @unknown default: return (ManagedAppConfigurationDecodingErrorCode.generic, message)
        }
    }
}
