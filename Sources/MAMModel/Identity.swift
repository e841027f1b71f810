/// The three identity layers of a process and how they resolve (RULES.md §1, seeds 001/003).
///
/// Each layer holds an account id (UPN or OID) or `nil` when unset; `""` is the explicit
/// "no user / personal" identity. The thread layer is the innermost and wins while set;
/// the UI layer is per window and only matters for UI tasks, because the SDK never lets a
/// window's identity change who owns a file.
public struct IdentityLayers: Sendable, Hashable {
    /// App-wide identity; the enrolled account for single-identity apps, `nil` at launch for
    /// multi-identity apps.
    public var process: String?
    /// The identity of the window (scene) a UI task runs in; `nil` falls back to `process`.
    public var ui: String?
    /// The identity of the current thread or scoped task; overrides the others while set.
    public var thread: String?

    public init(process: String? = nil, ui: String? = nil, thread: String? = nil) {
        self.process = process
        self.ui = ui
        self.thread = thread
    }

    /// thread ?? UI(window) ?? process.
    public var effectiveForUI: String? { thread ?? ui ?? process }

    /// thread ?? process: the UI identity never decides who owns a file.
    public var effectiveForFile: String? { thread ?? process }

    /// Whether an effective identity is the unmanaged one: `nil` and `""` both mean
    /// "no account", so no policy can apply.
    public static func isUnmanaged(_ identity: String?) -> Bool {
        identity?.isEmpty ?? true
    }
}

/// Which kind of work asks for the effective identity.
public enum TaskKind: Sendable, Hashable {
    /// Work that shows or shares data in a window.
    case ui
    /// Work that reads or writes files.
    case file
}

extension IdentityLayers {
    /// The effective identity for `task`.
    public func effective(for task: TaskKind) -> String? {
        switch task {
        case .ui: effectiveForUI
        case .file: effectiveForFile
        }
    }
}
