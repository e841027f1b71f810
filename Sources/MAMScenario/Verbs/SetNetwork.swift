import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `setNetwork`: the device goes online or offline (check-ins need the network).
struct SetNetworkStep: StepVerb {
    static let name = "setNetwork"
    static let since = "v1.1"
    static let summary = "the device goes online or offline; apps check in only online"
    static let example = "setNetwork: {online: false}"
    static let arguments: [VerbArgument] = [.required("online", .bool, "true: online, false: offline")]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    var online: Bool

    init(online: Bool) { self.online = online }
    init(_ a: VerbArgumentReader) { online = a.bool("online", default: true) }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.result({ [online] in try $0.admin.setNetwork(online: online) }) {
        case .success:
            return (.ok, online ? "the device is online: apps check in when they launch, resume or switch identity" : "the device is offline: no check-ins", "device")
        case .failure(let e): return (.failed(e.reason), e.message, "device")
        }
    }
}
