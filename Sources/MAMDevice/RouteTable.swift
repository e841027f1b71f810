import MAMModel
import MAMWire

/// The allowed routes of inline shares between two apps, by who shares as whom to whom as
/// whom: a stream of shares between two apps is decided once. Everything the decision read is
/// device state or the fleet, so the table holds for one `DeviceState.generation` and is
/// emptied when it moves (a sign-in, an identity switch, a wipe, a policy change, a clock step
/// that blocks an app). Extensions (activation rules read the item) and files (owned by the
/// file's owner) are decided every time, and never kept here.
///
/// Its own state, changed only by its operations: the broker asks for a route, keeps one, and
/// makes room; nothing else reads the table's fields. Tuned with the broker against
/// Benchmarks/Thresholds: a stream repeats its last route, which is compared before hashing.
struct RouteTable {
    struct Key: Hashable {
        let sender: AppHandle
        let identity: String
        let target: AppHandle
        let receiveAs: String
    }

    final class Route {
        let key: Key
        let plan: SharePlan
        /// Who shares to whom as whom, owned by whom, as every record of the route says it:
        /// each record refers to these.
        let parties: ShareRecord.Parties

        init(key: Key, plan: SharePlan, parties: ShareRecord.Parties) {
            self.key = key
            self.plan = plan
            self.parties = parties
        }

        /// Whether a share from `sender` as `identity` to `target` as `receiveAs` takes this
        /// route, compared field by field where they lie: a key built for the comparison
        /// retains four strings.
        @inline(__always)
        func isTaken(sender: AppHandle, identity: String, target: AppHandle, receiveAs: String) -> Bool {
            key.identity == identity && key.receiveAs == receiveAs && key.sender == sender && key.target == target
        }

        @inline(__always)
        func isTaken(by sender: ChildConnection, _ request: ShareRequest, to target: AppRegistry.Entry) -> Bool {
            isTaken(sender: sender.spec.key, identity: request.identity, target: target.spec.key, receiveAs: request.receiveAs)
        }
    }

    /// A child naming the same account in ever new spellings cannot grow the table past this.
    static let maximum = 1024

    private var routes: [Key: Route] = [:]
    /// The route the last share took: a stream repeats it, and comparing four strings costs
    /// less than hashing them.
    private var last: Route?
    /// `last`, lent to the share that takes it without a retain and a release per share:
    /// `last` and `routes` hold it, and only this table's operations change them. A share
    /// reads its route (the parties and the plan) only until its item is stamped, before any
    /// answer or event could lead to another share.
    private(set) var lastLent: Unmanaged<Route>?
    /// The device state's generation the routes were decided under.
    private var generation: UInt64 = .max

    /// How many routes are kept.
    var count: Int { routes.count }

    /// Forgets every route when the device's state moved on from the one they were decided under.
    @inline(__always)
    mutating func hold(at generation: UInt64) {
        guard generation != self.generation else { return }
        forget()
        self.generation = generation
    }

    /// The route kept under `key`, which becomes the last route; nil when none is (a miss:
    /// the share is decided from the rules).
    @inline(__always)
    mutating func route(for key: Key) -> Route? {
        guard let known = routes[key] else { return nil }
        setLast(known)
        return known
    }

    /// Keeps `route` for the shares after it (call `makeRoom` first).
    mutating func keep(_ route: Route) {
        routes[route.key] = route
    }

    /// Empties a table at its bound, before a share with a key is decided.
    mutating func makeRoom() {
        if routes.count >= Self.maximum { forget() }
    }

    private mutating func forget() {
        routes.removeAll(keepingCapacity: true)
        setLast(nil)
    }

    private mutating func setLast(_ route: Route?) {
        last = route
        lastLent = route.map(Unmanaged.passUnretained)
    }
}
