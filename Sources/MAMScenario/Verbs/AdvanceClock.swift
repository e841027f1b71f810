import MAMDevice
import MAMDeviceState
import MAMDocument
import MAMModel
import MAMPolicy
import MAMWire

/// `advanceClock`: the device's clock moves forward (offline grace periods, token lifetimes).
struct AdvanceClockStep: StepVerb {
    static let name = "advanceClock"
    static let since = "v1"
    static let summary = "moves the device clock forward by an ISO-8601 duration"
    static let example = "advanceClock: {by: PT13H}"
    static let arguments: [VerbArgument] = [.required("by", .duration, "a non-negative ISO-8601 duration, e.g. PT13H or P2D")]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    var by: ISODuration

    init(by: ISODuration) { self.by = by }

    init(_ a: VerbArgumentReader) {
        let x = a["by"]!
        by = ISODuration(seconds: 0)
        if let s = a.reader.string(x, what: "by") {
            if let d = ISODuration(s), d.seconds >= 0 { by = d } else {
                a.reader.error(x, "by must be a non-negative ISO-8601 duration such as \"PT13H\" or \"P2D\", but it is \(x.shape)")
            }
        }
    }

    func run(_ run: StepRun) async -> StepOutcome {
        // Apps running in the foreground check in on the service's cadence as the time passes.
        let moved: Result<Instant, DeviceStateError> = await run.host.complete { [by] host, done in
            let now = try host.admin.advanceClock(by: by)
            host.enrollment.advanced(from: Instant(secondsSince1970: now.secondsSince1970 - by.seconds)) { done(.success(now)) }
        }
        switch moved {
        case .success(let now): return (.ok, "the device clock reads \(now)", "\(by)")
        case .failure(let e): return (.failed(e.reason), e.message, "\(by)")
        }
    }
}
