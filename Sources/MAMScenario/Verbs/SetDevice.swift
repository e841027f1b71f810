import MAMDevice
import MAMDeviceState
import MAMModel

/// `setDevice`: a device fact changes during the run — the user installs (or removes)
/// Microsoft Authenticator, which app protection CA remediation needs (seed 002), or the device
/// is jailbroken (conditional launch notices at the next launch, resume or identity switch).
struct SetDeviceStep: StepVerb {
    static let name = "setDevice"
    static let since = "v1.2"
    static let summary = "a device fact changes: Microsoft Authenticator installed or removed, the device jailbroken"
    static let example = "setDevice: {authenticator: true}"
    static let arguments: [VerbArgument] = [
        .optional("authenticator", .bool, "Microsoft Authenticator, the broker, is installed"),
        .optional("jailbroken", .bool, "the device is jailbroken"),
    ]
    static let outcomes: [OutcomeForm] = [.ok, .failedBecause]

    var authenticator: Bool?
    var jailbroken: Bool?

    init(_ a: VerbArgumentReader) {
        authenticator = a["authenticator"].flatMap { a.reader.bool($0, what: "authenticator") }
        jailbroken = a["jailbroken"].flatMap { a.reader.bool($0, what: "jailbroken") }
        if authenticator == nil, jailbroken == nil, a["authenticator"] == nil, a["jailbroken"] == nil {
            a.error("say what changes: authenticator: true|false, jailbroken: true|false")
        }
    }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.result({ [authenticator, jailbroken] in try $0.admin.setDevice(brokerInstalled: authenticator, jailbroken: jailbroken) }) {
        case .success(let said): return (.ok, said, "device")
        case .failure(let e): return (.failed(e.reason), e.message, "device")
        }
    }
}
