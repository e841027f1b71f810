import Foundation
public import MAMModel
import Synchronization

/// Whether a run's policy reads are being recorded (`PolicyReads.recording(_:)`). Read on every
/// access to a policy's setting, so a plain flag: it is set before the recorded run starts
/// and cleared after it ends, while nothing else runs. Unchecked: the runtime's exclusivity
/// check of a global variable costs more than the decision that reads it.
@exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var policyReadsRecording = false

/// A setting of `IosManagedAppProtection`: its value, and which of the policy's properties
/// it is, so that a read can be recorded (`PolicyReads`). A read is its getter, its `==` or
/// its hash; a write is not a read.
@propertyWrapper
public struct PolicyValue<Value: Hashable & Sendable>: Hashable, Sendable {
    @usableFromInline var value: Value
    @usableFromInline let field: PolicyField

    public init(wrappedValue: Value, _ field: PolicyField) {
        value = wrappedValue
        self.field = field
    }

    @inlinable public var wrappedValue: Value {
        get {
            if policyReadsRecording { PolicyReads.note(field) }
            return value
        }
        set { value = newValue }
    }

    public static func == (a: Self, b: Self) -> Bool {
        if policyReadsRecording { PolicyReads.note(a.field) }
        return a.value == b.value
    }

    public func hash(into hasher: inout Hasher) {
        if policyReadsRecording { PolicyReads.note(field) }
        hasher.combine(field)
        hasher.combine(value)
    }
}

/// What one run's decisions read of the fleet's policies (`mamsim mutate`'s base run), so a
/// mutant of a setting is judged without running it when the run cannot differ:
///
/// - `unreplayable`: the settings read anywhere but inside a replayable decision;
/// - `decisions`: each replayable decision — a pure function of the fleet and the inputs it
///   captured — with the settings it read, the fleet it was made in, and a check that asks it
///   again under another fleet and says whether it answers the same.
///
/// A mutant that changes no setting in `unreplayable`, and under which every decision that
/// read one of its settings answers the same, runs exactly as the base run: every input of
/// every decision is the same, step by step.
public final class PolicyReads: Sendable {
    public struct Decision: Sendable {
        public let fields: PolicyFields
        public let fleet: Fleet
        /// Whether the decision answers as it did, asked again in this fleet.
        public let answersTheSame: @Sendable (Fleet) -> Bool
    }

    struct State {
        var unreplayable = PolicyFields()
        var decisions: [Decision] = []
        /// Per thread, the settings each decision under way has read so far (innermost last).
        var frames: [UInt: [PolicyFields]] = [:]

        /// The decision under way on `thread` ends: its reads are its own, or its outer
        /// decision's (a decision inside another is part of it), or — one that cannot be asked
        /// again (`replay` nil) — read outside any.
        mutating func end(_ thread: UInt, in fleet: Fleet, replay: (@Sendable (Fleet) -> Bool)?) {
            let fields = frames[thread]?.popLast() ?? PolicyFields()
            if frames[thread]?.isEmpty == true { frames[thread] = nil }
            if var outer = frames[thread]?.popLast() {
                outer.formUnion(fields)
                frames[thread]?.append(outer)
            } else if let replay {
                if !fields.isEmpty { decisions.append(Decision(fields: fields, fleet: fleet, answersTheSame: replay)) }
            } else {
                unreplayable.formUnion(fields)
            }
        }
    }

    let state = Mutex(State())
    static let active = Mutex<PolicyReads?>(nil)

    public init() {}

    /// Whether a recording is under way.
    public static var isRecording: Bool { policyReadsRecording }

    public var unreplayable: PolicyFields { state.withLock { $0.unreplayable } }
    public var decisions: [Decision] { state.withLock { $0.decisions } }

    /// Records what `body` reads of any policy, on any thread. One recording at a time: the
    /// reads are the process's own.
    public func recording<T>(_ body: () async throws -> T) async rethrows -> T {
        Self.active.withLock { $0 = self }
        policyReadsRecording = true
        defer {
            policyReadsRecording = false
            Self.active.withLock { $0 = nil }
        }
        return try await body()
    }

    /// A decision replayable from `fleet` alone: `decide` must read nothing of the device but
    /// what it captured. Outside a recording it is just asked.
    @inlinable
    public static func decision<T: Hashable & Sendable>(in fleet: Fleet, _ decide: @escaping @Sendable (Fleet) -> T) -> T {
        guard policyReadsRecording else { return decide(fleet) }
        return recorded(in: fleet, decide)
    }

    @usableFromInline
    static func recorded<T: Hashable & Sendable>(in fleet: Fleet, _ decide: @escaping @Sendable (Fleet) -> T) -> T {
        guard let log = active.withLock({ $0 }) else { return decide(fleet) }
        return log.record(in: fleet, decide)
    }

    func record<T: Hashable & Sendable>(in fleet: Fleet, _ decide: @escaping @Sendable (Fleet) -> T) -> T {
        record(in: fleet, live: { decide(fleet) }, again: decide)
    }

    /// A decision made `live` (with the device's answers as it goes), and asked `again` in
    /// another fleet with the answers it was given (`nil`: it asks what it was not asked, so it
    /// cannot be asked again). A decision that throws is not replayable: its reads count as
    /// read outside one.
    public static func decision<T: Hashable & Sendable>(in fleet: Fleet, live: () throws -> T, again: @escaping @Sendable (Fleet) -> T?) rethrows -> T {
        guard policyReadsRecording, let log = active.withLock({ $0 }) else { return try live() }
        return try log.record(in: fleet, live: live, again: again)
    }

    func record<T: Hashable & Sendable>(in fleet: Fleet, live: () throws -> T, again: @escaping @Sendable (Fleet) -> T?) rethrows -> T {
        let thread = Self.thread
        state.withLock { $0.frames[thread, default: []].append(PolicyFields()) }
        let answer: T
        do {
            answer = try live()
        } catch {
            state.withLock { s in s.end(thread, in: fleet, replay: nil) }
            throw error
        }
        state.withLock { s in s.end(thread, in: fleet, replay: { again($0) == answer }) }
        return answer
    }

    @usableFromInline
    static func note(_ field: PolicyField) {
        guard let log = active.withLock({ $0 }) else { return }
        let thread = thread
        log.state.withLock { s in
            if var top = s.frames[thread]?.popLast() {
                top.insert(field)
                s.frames[thread]?.append(top)
            } else {
                s.unreplayable.insert(field)
            }
        }
    }

    /// Several settings read at once.
    @usableFromInline
    static func note(_ fields: PolicyFields) {
        for field in fields.members { note(field) }
    }

    static var thread: UInt { UInt(pthread_self()) }
}
