/// The most recent elements remembered, at most `capacity` of them: the oldest is forgotten
/// when a new one comes. For ids and sequence numbers that only matter while recent (a
/// re-sent delivery, a late acknowledgement), so a process that sees a million of them keeps
/// a bounded window.
///
/// Inlinable: every user specialises it for its own element type (a generic `Set` across a
/// module boundary hashed and compared through witness tables, a quarter of an app's time in a
/// flood of deliveries).
public struct RecentSet<Element: Hashable>: Sendable where Element: Sendable {
    @usableFromInline var set: Set<Element> = []
    @usableFromInline var order: [Element] = []
    @usableFromInline var next = 0
    public let capacity: Int

    /// Nothing is reserved up front: most windows never fill (every app and every child
    /// connection has one, and a fleet would otherwise fault in ~200 KiB per app at start).
    @inlinable
    public init(capacity: Int) {
        self.capacity = capacity
    }

    @inlinable
    public func contains(_ element: Element) -> Bool { set.contains(element) }

    /// How many elements are remembered now.
    @inlinable
    public var count: Int { self.set.count }

    /// The remembered elements, in no order.
    @inlinable
    public var elements: Set<Element> { self.set }

    /// Remembers `element`; `false` if it was remembered already.
    @inlinable @discardableResult
    public mutating func remember(_ element: Element) -> Bool {
        guard set.insert(element).inserted else { return false }
        if order.count < capacity {
            order.append(element)
        } else {
            set.remove(order[next])
            order[next] = element
            next = (next + 1) % capacity
        }
        return true
    }

    /// Forgets `element` now; `false` if it was not remembered. (Its slot in the window is
    /// reused in turn: an element remembered again after `forget` may be forgotten early.)
    @inlinable @discardableResult
    public mutating func forget(_ element: Element) -> Bool { set.remove(element) != nil }
}
