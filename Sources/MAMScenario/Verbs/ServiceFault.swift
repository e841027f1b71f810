import MAMDevice
import MAMDeviceState
import MAMDocument
import MAMModel
import MAMPolicy
import MAMWire

/// `serviceFault`: the Intune service fails the next calls of one kind with a status (a
/// network failure, an internal error…): what a device's own state never produces.
struct ServiceFaultStep: StepVerb {
    static let name = "serviceFault"
    static let since = "v1.3"
    static let summary = "the next N enroll, checkIn, unenroll or token calls answer a failure status"
    static let example = "serviceFault: {call: enroll, status: networkFailure, times: 1}"
    static let calls = ["enroll", "checkIn", "unenroll", "token"]
    static let arguments: [VerbArgument] = [
        .required("call", .choice(calls), "which calls fail"),
        .required("status", .text, "an enrollment status name or number, or networkFailure (enrollmentEndPointNetworkFailure on enroll, policyEndPointNetworkFailure on checkIn)"),
        .optional("times", .text, "how many calls (default 1)"),
    ]
    static let outcomes: [OutcomeForm] = [.ok, .failedBecause]

    var call: String
    var status: EnrollmentStatus
    var times: Int

    init(_ a: VerbArgumentReader) {
        call = a.text("call")
        if !Self.calls.contains(call) {
            a.error("call must be one of \(Self.calls.joined(separator: ", ")), but it is \"\(call)\"", at: "call")
        }
        let text = a.text("status")
        if text == "networkFailure" {
            status = call == "enroll" ? .enrollmentEndPointNetworkFailure : .policyEndPointNetworkFailure
        } else if let s = EnrollmentStatus(named: text) {
            status = s
        } else {
            status = .internalError
            let hint = Suggestion.closest(to: text, among: EnrollmentStatus.allCases.map(\.name) + ["networkFailure"]).map { " (did you mean \"\($0)\"?)" } ?? ""
            a.error("status \"\(text)\" is not an enrollment status\(hint); docs/LIFECYCLE.md lists them", at: "status")
        }
        times = 1
        if a.has("times") {
            let t = a.text("times")
            if let n = Int(t), n > 0 { times = n } else { a.error("times must be a positive whole number, but it is \"\(t)\"", at: "times") }
        }
    }

    func run(_ run: StepRun) async -> StepOutcome {
        let what = "the next \(times) \(call) call\(times == 1 ? "" : "s") answer \(status.described)"
        switch await run.host.result({ [call, status, times] host in try host.enrollment.addFault(call: call, status: status, times: times) }) {
        case .success: return (.ok, what, "service")
        case .failure(let e): return (.failed(e.reason), e.message, "service")
        }
    }
}
