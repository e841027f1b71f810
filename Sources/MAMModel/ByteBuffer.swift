extension Array where Element == UInt8 {
    /// Appends `count` bytes that `write` writes in place, given where the first goes: a frame
    /// or record measured first, then written straight into the array's new space.
    ///
    /// `Array` has no way to grow into uninitialised space, and filling it with zeros first
    /// (from a page of zeros) was a second pass over every byte: 2–3 % of the host's and of a
    /// sending app's samples in a flood. `append(contentsOf:)` hands a sequence the space
    /// itself (`_copyContents`), after growing geometrically; `write` runs there.
    /// `write` must write exactly `count` bytes.
    @inlinable
    package mutating func append(count: Int, writing write: (UnsafeMutablePointer<UInt8>) -> Void) {
        guard count > 0 else { return }
        withoutActuallyEscaping(write) { write in
            append(contentsOf: BytesWrittenInPlace(count: count, write: write))
        }
    }
}

/// `count` bytes made by a function that writes them from a pointer: appended to an array,
/// they are written in its storage; iterated, they are written into an array of their own.
@usableFromInline
struct BytesWrittenInPlace: Sequence {
    @usableFromInline let count: Int
    @usableFromInline let write: (UnsafeMutablePointer<UInt8>) -> Void

    @inlinable
    init(count: Int, write: @escaping (UnsafeMutablePointer<UInt8>) -> Void) {
        self.count = count
        self.write = write
    }

    @inlinable
    var underestimatedCount: Int { count }

    @inlinable
    func makeIterator() -> IndexingIterator<[UInt8]> {
        guard count > 0 else { return [UInt8]().makeIterator() }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            write(buffer.baseAddress!)
            initialized = count
        }.makeIterator()
    }

    @inlinable
    __consuming func _copyContents(initializing buffer: UnsafeMutableBufferPointer<UInt8>) -> (IndexingIterator<[UInt8]>, Int) {
        // `append(contentsOf:)` offers at least `underestimatedCount` (its precondition);
        // another caller offering less gets the bytes through the iterator instead.
        guard buffer.count >= count, let base = buffer.baseAddress else { return (makeIterator(), 0) }
        write(base)
        return ([UInt8]().makeIterator(), count)
    }
}
