import Dispatch
import MAMModel
import Synchronization
public import MAMPolicy

extension WhatIf {
    /// `diff` of a tenant's worth of personas, a batch at a time: each batch judged under both
    /// policy sets (its halves on two threads, each with its own shape caches kept across
    /// batches and emptied past `shapesKept`), its changes handed to `each` in the personas'
    /// order. No result is kept past its batch: memory stays bounded whatever the count.
    public static func diff(_ personas: [WhatIfPersona], old: WhatIfPolicies, new: WhatIfPolicies, now: Instant = Instant(secondsSince1970: 0),
                            batch: Int = 512, shapesKept: Int = 512, each: ([WhatIfChange]) throws -> Void) rethrows {
        let workers = 2
        let caches = (0..<workers).map { _ in (ShapeCache(), ShapeCache()) }
        var start = 0
        while start < personas.count {
            let end = min(start + batch, personas.count)
            let slice = Array(personas[start..<end])
            let halves = Mutex<[Int: [WhatIfChange]]>([:])
            let size = (slice.count + workers - 1) / workers
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                let part = Array(slice[min(w * size, slice.count)..<min((w + 1) * size, slice.count)])
                func judge(_ cache: ShapeCache, _ policies: WhatIfPolicies) -> [WhatIfPersonaResult] {
                    cache.shapes.withLock { c in
                        if c.0.count > shapesKept { c.0.removeAll(keepingCapacity: true) }
                        if c.1.count > shapesKept { c.1.removeAll(keepingCapacity: true) }
                        return evaluate(part, policies, now: now, shapes: &c.0, grids: &c.1)
                    }
                }
                let changes = diff(judge(caches[w].0, old), judge(caches[w].1, new), oldPolicies: old, newPolicies: new)
                halves.withLock { $0[w] = changes }
            }
            try each(halves.withLock { h in (0..<workers).flatMap { h[$0] ?? [] } })
            start = end
        }
    }
}
