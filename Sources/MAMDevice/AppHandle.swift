import MAMModel

/// The key of an installed app or extension: its scenario handle, compared without case.
///
/// Handles are how scenarios, the host's tables and the audit log name an app. Folding case
/// happens here once, so no table is keyed by a hand-lowercased string.
public struct AppHandle: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The handle as the scenario declared it (shown in logs and the audit).
    public let name: String
    private let key: String

    public init(_ name: String) {
        self.name = name
        key = name.caseFolded
    }

    public init(stringLiteral value: String) { self.init(value) }

    public static func == (a: AppHandle, b: AppHandle) -> Bool { a.key == b.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }
    public var description: String { name }
}

/// Every app and extension installed on the device, in declaration order: the one list the
/// host's parts look apps up in.
final class AppRegistry {
    let specs: [AppSpec]
    private let byHandle: [AppHandle: AppSpec]
    private let byBundle: [BundleID: AppSpec]

    init(_ specs: [AppSpec]) throws(HostError) {
        var byHandle: [AppHandle: AppSpec] = [:]
        var byBundle: [BundleID: AppSpec] = [:]
        for spec in specs {
            guard byHandle[spec.key] == nil else { throw .duplicateApp(spec.handle) }
            byHandle[spec.key] = spec
            if byBundle[spec.bundleID] == nil { byBundle[spec.bundleID] = spec }
        }
        self.specs = specs
        self.byHandle = byHandle
        self.byBundle = byBundle
    }

    /// The last name resolved and what it named: a stream of shares names the same
    /// destination item after item (the tables never change, so it stays true).
    private var lastResolved: (name: String, spec: AppSpec?)?

    /// The app named by a handle (any case) or a bundle id.
    func resolve(_ name: String) -> AppSpec? {
        if let last = lastResolved, last.name == name { return last.spec }
        let spec = byHandle[AppHandle(name)] ?? byBundle[BundleID(name)]
        lastResolved = (name, spec)
        return spec
    }

    func app(withBundle bundle: BundleID) -> AppSpec? { byBundle[bundle] }

    /// The app named by a handle or bundle id, or the error a caller reports.
    func require(_ name: String) throws(HostError) -> AppSpec {
        guard let spec = resolve(name) else { throw .unknownApp(name) }
        return spec
    }
}
