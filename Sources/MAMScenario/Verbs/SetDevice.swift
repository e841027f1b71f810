import MAMDevice
import MAMDeviceState
import MAMDocument
import MAMModel
import MAMPolicy

/// `setDevice`: a device fact changes during the run — the user installs (or removes)
/// Microsoft Authenticator, which app protection CA remediation needs (seed 002), or the device
/// is jailbroken, or runs another iOS version (conditional launch notices each at the next
/// launch, resume or identity switch). The contract's `setAuthenticator: {installed}` and
/// `setOSVersion: {version}` (v1.2) are this verb.
struct SetDeviceStep: StepVerb {
    static let name = "setDevice"
    static let since = "v1.2"
    static let summary = "a device fact changes: Microsoft Authenticator installed or removed, the device jailbroken, its iOS version, the MDM asset server answering or failing"
    static let example = "setDevice: {authenticator: true}"
    static let arguments: [VerbArgument] = [
        .optional("authenticator", .bool, "Microsoft Authenticator, the broker, is installed"),
        .optional("jailbroken", .bool, "the device is jailbroken"),
        .optional("osVersion", .text, "the iOS version the device runs from now on, older or newer (updateOS installs only a newer one)"),
        .optional("assetServer", .text, "available or failing (v1.5): the MDM's asset server answers the device's requests for ManagedApp secrets, or not (serverError)"),
    ]
    static let outcomes: [OutcomeForm] = [.ok, .failedBecause]

    var authenticator: Bool?
    var jailbroken: Bool?
    var osVersion: Version?
    var assetServerAvailable: Bool?

    init(_ a: VerbArgumentReader) {
        authenticator = a["authenticator"].flatMap { a.reader.bool($0, what: "authenticator") }
        jailbroken = a["jailbroken"].flatMap { a.reader.bool($0, what: "jailbroken") }
        if let x = a["osVersion"], let text = a.reader.string(x, what: "osVersion") {
            osVersion = Version(text)
            if osVersion == nil { a.reader.error(x, "osVersion must be a version such as \"18.4\", but it is \"\(text)\"") }
        }
        if let x = a["assetServer"], let text = a.reader.string(x, what: "assetServer") {
            switch text {
            case "available": assetServerAvailable = true
            case "failing": assetServerAvailable = false
            default: a.reader.error(x, "assetServer must be available or failing, but it is \"\(text)\"")
            }
        }
        if a["authenticator"] == nil, a["jailbroken"] == nil, a["osVersion"] == nil, a["assetServer"] == nil {
            a.error("say what changes: authenticator: true|false, jailbroken: true|false, osVersion: \"18.4\", assetServer: available|failing")
        }
    }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.result({ [authenticator, jailbroken, osVersion, assetServerAvailable] in
            try $0.admin.setDevice(brokerInstalled: authenticator, jailbroken: jailbroken, osVersion: osVersion, assetServerAvailable: assetServerAvailable)
        }) {
        case .success(let said): return (.ok, said, "device")
        case .failure(let e): return (.failed(e.reason), e.message, "device")
        }
    }
}
