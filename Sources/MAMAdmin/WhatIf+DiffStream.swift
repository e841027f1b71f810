import MAMModel
public import MAMPolicy

extension WhatIf {
    /// `diff` of a tenant's worth of personas, a batch at a time: each batch judged under both
    /// policy sets (its halves on two threads, each with its own shape caches kept across
    /// batches and emptied past `shapesKept`), its changes handed to `each` in the personas'
    /// order. No result is kept past its batch: memory stays bounded whatever the count.
    public static func diff(_ personas: [WhatIfPersona], old: WhatIfPolicies, new: WhatIfPolicies, now: Instant = Instant(secondsSince1970: 0),
                            batch: Int = 512, shapesKept: Int = 512, each: ([WhatIfChange]) throws -> Void) rethrows {
        let caches = (0..<2).map { _ in (old: ShapeCache(), new: ShapeCache()) }
        try inHalves(personas, batch: batch) { part, w in
            diff(caches[w].old.judge(part, old, now: now, shapesKept: shapesKept), caches[w].new.judge(part, new, now: now, shapesKept: shapesKept),
                 oldPolicies: old, newPolicies: new)
        } each: { try each($0) }
    }
}
