public import MAMModel
import Foundation
import MAMLoop

/// A request the device refused or could not carry out, as one sentence a person can act on,
/// with the stable reason code (RULES.md §11) the wire and reports use.
///
/// Policy outcomes that are answers rather than failures (a refused sign-in, a keychain
/// status, an identity-switch result) are returned as values; this error is thrown for
/// requests that cannot be carried out at all: an unknown app, a path outside the app's
/// containers, an owner that is not signed in, a damaged store.
///
/// One shape for the layer (as swift-subprocess's errors: a code, a sentence, and what caused
/// it): an error of the store, the file system or a library that made a request fail is kept
/// as `underlying`, so a caller can still ask what it was; two errors are equal by reason and
/// message.
public struct DeviceStateError: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: Reason
    public let message: String
    /// What made the request fail, when it was another error (SQLite's, a POSIX one…).
    public let underlying: (any Error & Sendable)?

    public init(_ reason: Reason, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.reason = reason
        self.message = message
        self.underlying = underlying
    }

    /// `error` as this layer's error: itself when it is one, else an internal failure of
    /// `doing` that keeps it as its cause.
    public static func wrapping(_ error: any Error, doing what: String) -> DeviceStateError {
        if let e = error as? DeviceStateError { return e }
        if isOutOfSpace(error) {
            return DeviceStateError(.quota, "the device's storage is full, so it could not \(what); the apps' containers and app groups hold what device.limits.storage allows", underlying: error)
        }
        return DeviceStateError(.internalError, "the device could not \(what): \(error)", underlying: error)
    }

    public var description: String { message }

    /// Whether `error` is the file system saying it has no room left (`ENOSPC`, `EDQUOT`).
    static func isOutOfSpace(_ error: any Error) -> Bool {
        let codes: Set<Int32> = [ENOSPC, EDQUOT]
        if let uv = error as? UVError { return codes.contains(-uv.code) }
        if let posix = error as? POSIXError { return codes.contains(posix.code.rawValue) }
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return codes.contains(Int32(ns.code)) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return codes.contains(Int32(underlying.code))
        }
        return ns.domain == NSCocoaErrorDomain && ns.code == NSFileWriteOutOfSpaceError
    }

    public static func == (a: DeviceStateError, b: DeviceStateError) -> Bool { a.reason == b.reason && a.message == b.message }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(reason)
        hasher.combine(message)
    }

    static func unknownApp(_ bundle: BundleID) -> DeviceStateError {
        DeviceStateError(.unknownApp, "\(bundle) is not installed on this device; install it in the fleet before using it")
    }

    static func badPath(_ path: String, app: BundleID, _ why: String) -> DeviceStateError {
        DeviceStateError(.badRequest, "\(app) named the path \"\(path)\", which is refused: \(why)")
    }
}
