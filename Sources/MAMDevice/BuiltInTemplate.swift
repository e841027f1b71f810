import MAMLoop

/// The built-in runtime's template (`Zygote`) as the supervisor keeps it: started with the
/// first built-in app, and for good out of use once it failed (apps are exec'd then).
///
/// Its operations hand back the template to close instead of closing it: closing one runs its
/// exit handler, which tells the supervisor the template failed, and so comes back here — while
/// a mutating operation of this value would still be under way (an overlapping access).
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

    /// It failed: not started again. `first`: the first time only (the failure is told once);
    /// `closing`: the template, for the caller to close.
    mutating func fail() -> (first: Bool, closing: Zygote?) {
        guard !failed else { return (false, nil) }
        failed = true
        return (true, take())
    }

    /// The template, taken to be closed (it ends with the last child).
    mutating func take() -> Zygote? {
        defer { zygote = nil }
        return zygote
    }
}
