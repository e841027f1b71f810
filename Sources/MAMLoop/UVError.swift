internal import CLibUV

/// A libuv error code (a negative errno), described with libuv's own name, e.g. `EPIPE`.
public struct UVError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: Int32

    public init(_ code: Int32) { self.code = code }

    /// libuv's short name (`uv_err_name`), e.g. `ECONNRESET`.
    public var name: String { String(cString: uv_err_name(code)) }

    public var description: String { "\(name): \(String(cString: uv_strerror(code)))" }

    /// True for the errors that mean the peer went away (a disconnect, not a bug).
    public var isDisconnect: Bool {
        code == UV_EOF.rawValue || code == UV_EPIPE.rawValue || code == UV_ECONNRESET.rawValue
            || code == UV_ENOTCONN.rawValue || code == UV_ECANCELED.rawValue
    }

    public static let endOfFile = UVError(UV_EOF.rawValue)

    /// Throws when a libuv call returned a negative status.
    @discardableResult
    static func check(_ status: Int32) throws(UVError) -> Int32 {
        if status < 0 { throw UVError(status) }
        return status
    }
}
