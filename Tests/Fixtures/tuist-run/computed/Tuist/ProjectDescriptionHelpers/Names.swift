import ProjectDescription

/// The apps of the workspace, as a helper module names them.
public enum Flavour: String, CaseIterable {
    case stable
    case beta

    /// The suffix of the app's name and bundle id.
    public var suffix: String { self == .stable ? "" : "Beta" }
}

public let organisation = "com.example"

public func bundleId(_ name: String) -> String {
    "\(organisation).\(name.lowercased())"
}
