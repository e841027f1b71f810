// Values lent where they lie.
//
// A for-in loop, a subscript, `withUnsafeBufferPointer`'s subscript and a span all hand a callee
// a copy, because the compiler cannot prove the memory stays put during the call: for a
// batch's share or delivery that is a dozen retains and as many releases, in the hottest loops
// of the host and of both apps of a stream. Here the value is moved out of its memory into a
// local for the call and moved back after, so the memory's bytes and every reference count are
// as they were. Only the callee sees the value meanwhile; it must not reach that memory itself,
// which holds for the callers here: the memory is an array its caller holds. Hence `package`:
// a caller outside the project could not be held to that.

extension UnsafePointer {
    /// Calls `body` with the pointee, lent where it lies.
    @inlinable
    package func withPointeeInPlace<Result>(_ body: (borrowing Pointee) throws -> Result) rethrows -> Result {
        let slot = UnsafeMutablePointer(mutating: self)
        let value = slot.move()
        defer { slot.initialize(to: value) }
        return try body(value)
    }
}

extension Array {
    /// Calls `body` with each element, in order, lent where it lies.
    @inlinable
    package func forEachInPlace(_ body: (borrowing Element) throws -> Void) rethrows {
        try withUnsafeBufferPointer { elements in
            guard let first = elements.baseAddress else { return }
            for i in 0..<elements.count { try (first + i).withPointeeInPlace(body) }
        }
    }
}
