public import MAMModel

// The Swift types of the wire are generated from the .proto (Generated/Wire.swift). What is
// here is written by hand: the Swift values some messages stand for (a verdict, a secret), the
// constants and helpers around them, and how items are batched.

extension Hello {
    public static let currentProtocolVersion: UInt32 = 2
}

/// An Intune SDK or ManagedApp notification (SCENARIOS.md v1.1 `expectState.notifications`
/// names them by `rawValue`).
extension SDKNotification {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case policyChanged, appConfigChanged, managedConfigChanged, restartApplication, complianceStatus, blockAccount
        case enrollmentStatus, unenrollmentStatus, policyStatus
    }
}

/// `IntuneMAMIdentitySwitchReason`'s raw values, as `identitySwitchRequired` carries them.
public enum IdentitySwitchCause {
    public static let openURL: UInt32 = 0
    public static let cancelConditionalLaunch: UInt32 = 1
    /// An item shared in (the host asks for a switch only to import one).
    public static let documentImport: UInt32 = 2
}

extension ServiceContext {
    /// The main window, no thread identity.
    public static let main = ServiceContext()
}

extension ServiceResult {
    public init(_ verdict: Verdict, _ value: ServiceValue = .none) {
        self.init(verdict: verdict, value: value)
    }

    public var isAllowed: Bool { verdict.isAllowed }
}

/// What the data protection header says of some data.
public struct ProtectionSummary: Sendable, Hashable {
    public var owner: String
    public var encrypted: Bool
    public init(owner: String, encrypted: Bool) {
        self.owner = owner
        self.encrypted = encrypted
    }
}

/// A ManagedApp secret as an app receives it: an identity comes as its certificate only.
public enum ManagedSecretValue: Sendable, Hashable {
    case password(userName: String, password: String)
    /// DER.
    case certificate([UInt8])
    /// The identity's certificate (DER); the key stays in the host.
    case identity(certificate: [UInt8])
}

/// Splits items into consecutive batches of at most `maximumCount` items and about
/// `maximumBytes` (an item heavier than that travels alone): a batch must stay far below the
/// peer's maximum frame size, however large the items, and small enough that the peer starts
/// on it while the next one is encoded.
/// Inlinable: specialised where it is called, `weight` reads each item where it lies (through
/// the generic entry point, each item was copied out for it).
@inlinable
public func batchRanges<T>(_ items: [T], maximumCount: Int = 16, maximumBytes: Int = 256 << 10, weight: (T) -> Int) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    var start = 0
    var bytes = 0
    // By index: enumerating would copy every element.
    for i in items.indices {
        let w = weight(items[i])
        if i > start, i - start >= maximumCount || bytes + w > maximumBytes {
            ranges.append(start..<i)
            start = i
            bytes = 0
        }
        bytes += w
    }
    if start < items.count { ranges.append(start..<items.count) }
    return ranges
}

extension Item {
    /// About how many bytes the item takes in a frame (for batching, not for limits).
    public var approximateWireSize: Int {
        let payloadSize = filePath?.utf8.count ?? inlineByteCount
        return payloadSize + id.utf8.count + fileName.utf8.count + typeIdentifiers.reduce(0) { $0 + $1.utf8.count + 2 } + 96
    }
}

/// The seqs to look up when a cumulative range `range` is answered against `outstanding`
/// (what is waiting, by seq) and `alsoWaiting` (other seqs the caller also looks for, such as
/// deliveries answered after their deadline): the range itself when it is short next to what
/// is waiting, else the waiting seqs inside it, in order — a range as long as 2^64 costs what
/// is waiting, not its length.
@inlinable
public func seqs<Value>(
    in range: ClosedRange<UInt64>, among outstanding: [UInt64: Value], alsoWaiting: RecentSet<UInt64>? = nil
) -> [UInt64] {
    Array(lookups(in: range, among: outstanding, alsoWaiting: alsoWaiting))
}

/// The same against a `SeqTable`.
@inlinable
public func seqs<Value>(
    in range: ClosedRange<UInt64>, among outstanding: SeqTable<Value>, alsoWaiting: RecentSet<UInt64>? = nil
) -> [UInt64] {
    Array(lookups(in: range, among: outstanding, alsoWaiting: alsoWaiting))
}

/// The seqs `seqs(in:among:alsoWaiting:)` lists, without making their list when the range is
/// short, as an acknowledgement of one batch is: a list per acknowledgement was a block larger
/// than glibc's small ones (1,520 bytes for 186 seqs), and each such request first merges the
/// small blocks freed into glibc's fast bins. Made before the tables are changed, as a list is.
@frozen
public enum SeqLookups: Sequence {
    case every(ClosedRange<UInt64>)
    case listed([UInt64])

    @inlinable
    public func makeIterator() -> Iterator {
        switch self {
        case .every(let range): Iterator(range: range.makeIterator(), list: nil)
        case .listed(let list): Iterator(range: nil, list: list.makeIterator())
        }
    }

    @frozen
    public struct Iterator: IteratorProtocol {
        @usableFromInline var range: ClosedRange<UInt64>.Iterator?
        @usableFromInline var list: IndexingIterator<[UInt64]>?

        @inlinable
        init(range: ClosedRange<UInt64>.Iterator?, list: IndexingIterator<[UInt64]>?) {
            self.range = range
            self.list = list
        }

        @inlinable
        public mutating func next() -> UInt64? {
            range != nil ? range!.next() : list!.next()
        }
    }
}

/// The same as `seqs(in:among:alsoWaiting:)`, as `SeqLookups`.
@inlinable
public func lookups<Value>(
    in range: ClosedRange<UInt64>, among outstanding: [UInt64: Value], alsoWaiting: RecentSet<UInt64>? = nil
) -> SeqLookups {
    lookups(in: range, waiting: outstanding.count, alsoWaiting: alsoWaiting) { outstanding.keys.filter { range.contains($0) } }
}

/// The same as `seqs(in:among:alsoWaiting:)`, as `SeqLookups`.
@inlinable
public func lookups<Value>(
    in range: ClosedRange<UInt64>, among outstanding: SeqTable<Value>, alsoWaiting: RecentSet<UInt64>? = nil
) -> SeqLookups {
    lookups(in: range, waiting: outstanding.count, alsoWaiting: alsoWaiting) { outstanding.seqs(in: range) }
}

/// `waiting` values are outstanding, `inside` lists those in `range`: the range itself when
/// it is short next to them and `alsoWaiting`, else those and the `alsoWaiting` inside it, in
/// order.
@inlinable
func lookups(in range: ClosedRange<UInt64>, waiting: Int, alsoWaiting: RecentSet<UInt64>?, inside: () -> [UInt64]) -> SeqLookups {
    if range.upperBound - range.lowerBound < UInt64(waiting + (alsoWaiting?.count ?? 0)) * 2 + 64 { return .every(range) }
    var found = inside()
    if let alsoWaiting { found += alsoWaiting.elements.filter { range.contains($0) } }
    return .listed(found.sorted())
}

/// Folds answers into cumulative ranges: `answered` (seq → answer, any order) become runs of
/// consecutive answered seqs with no seq `inFlight` between them (a range must never cover
/// an item still unanswered). Seqs neither answered nor in flight inside a run are other
/// frames, which a range may span; a gap wider than `maximumGap` starts a new run, so the
/// check stays cheap whatever the numbering. Each run's answers are a slice of the sorted
/// answers (no array and no copy of each answer per run).
@inlinable
public func cumulativeRuns<Answer>(_ answered: [(UInt64, Answer)], inFlight: (UInt64) -> Bool, maximumGap: UInt64 = 64)
    -> [(first: UInt64, last: UInt64, answers: ArraySlice<(UInt64, Answer)>)] {
    // Answers come in the order their shares did, nearly always: sorting a copy was a tenth
    // of the host's cost of answering a batched share.
    let inOrder = answered.indices.dropFirst().allSatisfy { answered[$0 - 1].0 <= answered[$0].0 }
    let sorted = inOrder ? answered : answered.sorted { $0.0 < $1.0 }
    var runs: [(first: UInt64, last: UInt64, answers: ArraySlice<(UInt64, Answer)>)] = []
    guard !sorted.isEmpty else { return runs }
    var first = 0
    for i in sorted.indices.dropFirst() {
        let previous = sorted[i - 1].0, seq = sorted[i].0
        if seq > previous, seq - previous <= maximumGap, !(previous + 1..<seq).contains(where: inFlight) { continue }
        runs.append((sorted[first].0, previous, sorted[first..<i]))
        first = i
    }
    runs.append((sorted[first].0, sorted[sorted.count - 1].0, sorted[first...]))
    return runs
}

