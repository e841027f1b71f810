extension Array where Element == UInt8 {
    /// Appends `count` bytes that `write` writes in place, given where the first goes: a frame
    /// or record measured first, then written straight into the array's new space.
    ///
    /// `Array` has no way to grow into uninitialised space, and filling it with zeros first
    /// (from a page of zeros) was a second pass over every byte of every frame the host and a
    /// sending app write. `append(contentsOf:)` hands a sequence the space
    /// itself (`_copyContents`), after growing geometrically; `SpaceToWrite` claims it as is,
    /// and `write` then runs there.
    ///
    /// `write` is not carried into the sequence: a closure stored in one must be escaping,
    /// and its captures then went into a context allocated, retained and freed for every
    /// frame and every audit record. Called here, it stays a non-escaping closure the optimizer
    /// inlines. `write` must write exactly `count` bytes.
    @inlinable
    package mutating func append(count: Int, writing write: (UnsafeMutablePointer<UInt8>) -> Void) {
        guard count > 0 else { return }
        let start = self.count
        append(contentsOf: SpaceToWrite(count: count))
        withUnsafeMutableBufferPointer { write($0.baseAddress! + start) }
    }
}

/// `count` bytes of space at the end of an array, claimed by `append(contentsOf:)` without
/// being written: `append(count:writing:)` writes them right after. `UInt8` is a trivial type,
/// so what the space held before is overwritten, never read. Iterated (or offered less space
/// than `count`), it is `count` zeros.
@usableFromInline
struct SpaceToWrite: Sequence {
    @usableFromInline let count: Int

    @inlinable
    init(count: Int) { self.count = count }

    @inlinable
    var underestimatedCount: Int { count }

    @inlinable
    func makeIterator() -> Repeated<UInt8>.Iterator { repeatElement(0, count: count).makeIterator() }

    @inlinable
    __consuming func _copyContents(initializing buffer: UnsafeMutableBufferPointer<UInt8>) -> (Repeated<UInt8>.Iterator, Int) {
        // `append(contentsOf:)` offers at least `underestimatedCount` (its precondition);
        // another caller offering less gets zeros through the iterator instead.
        guard buffer.count >= count else { return (makeIterator(), 0) }
        return (repeatElement(0, count: 0).makeIterator(), count)
    }
}
