/// The most recent elements remembered, at most `capacity` of them: the oldest is forgotten
/// when a new one comes. For ids and sequence numbers that only matter while recent (a
/// re-sent delivery, a late acknowledgement), so a process that sees a million of them keeps
/// a bounded window.
public struct RecentSet<Element: Hashable>: Sendable where Element: Sendable {
    private var set: Set<Element> = []
    private var order: [Element] = []
    private var next = 0
    public let capacity: Int

    public init(capacity: Int) {
        self.capacity = capacity
        set.reserveCapacity(capacity)
        order.reserveCapacity(capacity)
    }

    public func contains(_ element: Element) -> Bool { set.contains(element) }

    /// How many elements are remembered now.
    public var count: Int { self.set.count }

    /// The remembered elements, in no order.
    public var elements: Set<Element> { self.set }

    public mutating func remember(_ element: Element) {
        guard set.insert(element).inserted else { return }
        if order.count < capacity {
            order.append(element)
        } else {
            set.remove(order[next])
            order[next] = element
            next = (next + 1) % capacity
        }
    }

    /// Forgets `element` now; `false` if it was not remembered. (Its slot in the window is
    /// reused in turn: an element remembered again after `forget` may be forgotten early.)
    @discardableResult
    public mutating func forget(_ element: Element) -> Bool { set.remove(element) != nil }
}
