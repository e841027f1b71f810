extension Array {
    /// Calls `body` with each element, in order, where it lies.
    ///
    /// A for-in loop, a subscript, `withUnsafeBufferPointer`'s subscript and a span all hand a
    /// callee a copy, because the compiler cannot prove the memory stays put during the call:
    /// for a batch's share or delivery that is a dozen retains and as many releases, in the
    /// hottest loops of the host and of a receiving app. Here each element is moved out of its
    /// slot into a local for the call and moved back after, so the slot's bytes and every
    /// reference count are as they were; only `body` sees the element meanwhile, and it cannot
    /// reach this array's storage, which the caller holds.
    @inlinable
    public func forEachInPlace(_ body: (borrowing Element) throws -> Void) rethrows {
        try withUnsafeBufferPointer { elements in
            guard let first = elements.baseAddress else { return }
            let slots = UnsafeMutablePointer(mutating: first)
            for i in 0..<elements.count {
                let element = (slots + i).move()
                defer { (slots + i).initialize(to: element) }
                try body(element)
            }
        }
    }
}
