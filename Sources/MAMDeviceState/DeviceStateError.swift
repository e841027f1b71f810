public import MAMModel

/// A request the device refused or could not carry out, as one sentence a person can act on,
/// with the stable reason code (RULES.md §11) the wire and reports use.
///
/// Policy outcomes that are answers rather than failures (a refused sign-in, a keychain
/// status, an identity-switch result) are returned as values; this error is thrown for
/// requests that cannot be carried out at all: an unknown app, a path outside the app's
/// containers, an owner that is not signed in, a damaged store.
public struct DeviceStateError: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: Reason
    public let message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }

    static func unknownApp(_ bundle: BundleID) -> DeviceStateError {
        DeviceStateError(.unknownApp, "\(bundle) is not installed on this device; install it in the fleet before using it")
    }

    static func badPath(_ path: String, app: BundleID, _ why: String) -> DeviceStateError {
        DeviceStateError(.badRequest, "\(app) named the path \"\(path)\", which is refused: \(why)")
    }
}
