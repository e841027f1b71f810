/// A dotted version number (`14.8`, `17.7.1`) as conditional launch compares them.
///
/// Missing components count as zero, so `15` equals `15.0.0`.
public struct Version: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let components: [Int]
    public let text: String

    /// `nil` unless the text is one or more dot-separated non-negative integers.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        var comps: [Int] = []
        for p in parts {
            guard let n = Int(p), n >= 0 else { return nil }
            comps.append(n)
        }
        guard !comps.isEmpty else { return nil }
        self.components = comps
        self.text = text
    }

    public static func < (a: Version, b: Version) -> Bool {
        let n = max(a.components.count, b.components.count)
        for i in 0..<n {
            let x = i < a.components.count ? a.components[i] : 0
            let y = i < b.components.count ? b.components[i] : 0
            if x != y { return x < y }
        }
        return false
    }

    public static func == (a: Version, b: Version) -> Bool { !(a < b) && !(b < a) }

    public func hash(into hasher: inout Hasher) {
        var c = components
        while c.count > 1, c.last == 0 { c.removeLast() }
        hasher.combine(c)
    }

    public var description: String { text }
}
