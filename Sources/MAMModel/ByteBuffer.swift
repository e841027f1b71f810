extension Array where Element == UInt8 {
    /// Appends `count` zero bytes, to be written over in place: a frame or record measured
    /// first, then written into the space. `append(contentsOf: repeatElement(0, count:))`
    /// stores them one at a time (3 % of a sending app's samples in a flood); copying them
    /// from a page of zeros is a `memcpy`.
    public mutating func appendZeros(_ count: Int) {
        // (No `reserveCapacity`: it grows to exactly what is asked, so frames appended one
        // after another would copy the whole buffer each time; `append` grows geometrically.)
        var left = count
        while left > 0 {
            let n = Swift.min(left, zeroPage.count)
            append(contentsOf: UnsafeBufferPointer(rebasing: zeroPage[0..<n]))
            left -= n
        }
    }
}

/// 4 KiB of zeros, never written after they are made (a larger page showed in every app's
/// resident memory: 64 KiB of them was 1 % of an idle app).
nonisolated(unsafe) private let zeroPage: UnsafeBufferPointer<UInt8> = {
    let page = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 4 << 10)
    page.initialize(repeating: 0)
    return UnsafeBufferPointer(page)
}()
