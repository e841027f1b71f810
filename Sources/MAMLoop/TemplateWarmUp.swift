/// What a template process that forks apps prepares once, so that no forked app pays for it.
///
/// A Swift program instantiates a generic type's metadata the first time it needs it, by
/// demangling the type's name; a forked app inherits the template's memory, so what the
/// template instantiated is already there; without it, every app demangled the same names on
/// the first iteration of its loop, a large fleet's visible share of its start.
/// Only values are built here: no libuv state, no descriptor, no thread, nothing a fork could
/// share by mistake.
package enum TemplateWarmUp {
    /// Holds what the warm-ups built, so the optimiser cannot drop the work. Unchecked: only
    /// the template's one thread touches it, before it forks.
    nonisolated(unsafe) static var kept: [Any] = []

    /// Keeps `value` (its type's metadata is then instantiated).
    package static func keep(_ value: Any) { kept.append(value) }

    /// The loop's own: its flush hooks and the pipes it flushes.
    package static func prepareLoop() {
        var hooks: [() -> Void] = []
        hooks.append {}
        // As `flushPipes` takes the pipes to flush and keeps the array's room.
        var pipes: [Pipe] = []
        pipes.reserveCapacity(4)
        let taken = pipes
        pipes.removeAll(keepingCapacity: true)
        keep(hooks)
        keep(pipes)
        keep(taken)
    }
}
