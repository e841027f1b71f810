/// A file a child names: a path relative to one of its containers — its own sandbox
/// (`<device-dir>/containers/<bundle id>/`) or an app group it is entitled to
/// (`<device-dir>/groups/<group id>/`).
///
/// A child never names an absolute path: the host resolves this value against the app's
/// entitlements and refuses `..`, absolute paths and symbolic links (`DeviceState`).
public struct ContainerPath: Sendable, Hashable, CustomStringConvertible {
    public enum Container: Sendable, Hashable {
        /// The app's or extension's private sandbox.
        case sandbox
        /// A shared app group container (`group.*`).
        case appGroup(String)
    }

    public let container: Container
    /// `/`-separated, relative to the container, e.g. `Documents/report.docx`.
    public let relativePath: String

    public init(_ relativePath: String, in container: Container = .sandbox) {
        self.container = container
        self.relativePath = relativePath
    }

    /// The wire form: `group:<group id>/<path>` names a file in an app group; any other text
    /// is a path in the sandbox.
    public init(parsing text: String) {
        if text.hasPrefix("group:") {
            let rest = text.dropFirst("group:".count)
            let group = rest.prefix { $0 != "/" }
            let path = rest.dropFirst(group.count).drop { $0 == "/" }
            self.init(String(path), in: .appGroup(String(group)))
        } else {
            self.init(text)
        }
    }

    public var description: String {
        switch container {
        case .sandbox: relativePath
        case .appGroup(let g): "group:\(g)/\(relativePath)"
        }
    }
}
