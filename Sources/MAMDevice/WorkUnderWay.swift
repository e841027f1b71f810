/// The check-ins, enrollments and unenrollments under way on a device, and who waits for none
/// to be left (`EnrollmentDesk.whenSettled`): a step that launched an app, or during which an
/// app enrolled itself, ends once every status it brought was told.
///
/// Its operations hand the waiters back instead of running them: a waiter may start more work,
/// which comes back here while an operation of this value would still be under way.
struct WorkUnderWay {
    private var count = 0
    private var waiters: [() -> Void] = []

    /// Nothing is under way.
    var isSettled: Bool { count == 0 }

    /// One more call is under way.
    mutating func begin() { count += 1 }

    /// One call is over: the waiters to run now that none is left (each handed back once),
    /// else none.
    mutating func end() -> [() -> Void] {
        count -= 1
        guard count == 0 else { return [] }
        defer { waiters = [] }
        return waiters
    }

    /// `waiter` runs when the work under way now and started before it is over is over.
    mutating func wait(_ waiter: @escaping () -> Void) { waiters.append(waiter) }
}
