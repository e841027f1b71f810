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
    /// An installed app, by reference: the broker looks one up for every share, and copying
    /// an `AppSpec` out of a table retains each of its fields.
    final class Entry {
        let spec: AppSpec
        init(_ spec: AppSpec) { self.spec = spec }
    }

    let specs: [AppSpec]
    private let byHandle: [AppHandle: Entry]
    private let byBundle: [BundleID: Entry]

    init(_ specs: [AppSpec]) throws(HostError) {
        var byHandle: [AppHandle: Entry] = [:]
        var byBundle: [BundleID: Entry] = [:]
        for spec in specs {
            guard byHandle[spec.key] == nil else { throw .duplicateApp(spec.handle) }
            let entry = Entry(spec)
            byHandle[spec.key] = entry
            if byBundle[spec.bundleID] == nil { byBundle[spec.bundleID] = entry }
        }
        self.specs = specs
        self.byHandle = byHandle
        self.byBundle = byBundle
    }

    /// The last name resolved and what it named: a stream of shares names the same
    /// destination item after item (the tables never change, so it stays true).
    private var lastResolved: (name: String, entry: Entry?)?

    /// The app named by a handle (any case) or a bundle id.
    func resolve(_ name: String) -> AppSpec? { entry(name)?.spec }

    /// The same, by reference.
    func entry(_ name: String) -> Entry? {
        if let last = lastResolved, last.name == name { return last.entry }
        let entry = byHandle[AppHandle(name)] ?? byBundle[BundleID(name)]
        lastResolved = (name, entry)
        return entry
    }

    func app(withBundle bundle: BundleID) -> AppSpec? { byBundle[bundle]?.spec }

    /// The app named by a handle or bundle id, or the error a caller reports.
    func require(_ name: String) throws(HostError) -> AppSpec {
        guard let spec = resolve(name) else { throw .unknownApp(name) }
        return spec
    }
}
