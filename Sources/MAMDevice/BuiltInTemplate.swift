import MAMLoop

/// The built-in runtime's template (`Zygote`) as the supervisor keeps it: started with the
/// first built-in app, and for good out of use once it failed (apps are exec'd then).
struct BuiltInTemplate {
    private var zygote: Zygote?
    private(set) var failed = false

    /// The template, while it runs.
    var running: Zygote? {
        guard let zygote, zygote.isOpen else { return nil }
        return zygote
    }

    /// Whether a template may be started: built-in apps are forked where the system allows
    /// it, the configuration asks for it, and no template failed before.
    func mayStart(forkBuiltInApps: Bool) -> Bool { forkBuiltInApps && !failed && Zygote.isSupported }

    mutating func started(_ template: Zygote) { zygote = template }

    /// It failed (`why`): closed, and not started again. `true` the first time only (the
    /// failure is told once).
    mutating func fail() -> Bool {
        guard !failed else { return false }
        failed = true
        close()
        return true
    }

    /// It ends with the last child.
    mutating func close() {
        zygote?.close()
        zygote = nil
    }
}
