import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `removeDeclaration`: the MDM removes one declaration by identifier.
struct RemoveDeclarationStep: StepVerb {
    static let name = "removeDeclaration"
    static let since = "v1.1"
    static let summary = "removes a declaration by its Identifier; running apps get managedConfigChanged"
    static let example = "removeDeclaration: {identifier: com.contoso.mail.config}"
    static let arguments: [VerbArgument] = [.required("identifier", .text, "the declaration's Identifier")]
    static let outcomes: [OutcomeForm] = [.ok, .blocked, .failedBecause]

    var identifier: String

    init(identifier: String) { self.identifier = identifier }
    init(_ a: VerbArgumentReader) { identifier = a.text("identifier") }

    func run(_ run: StepRun) async -> StepOutcome {
        switch await run.host.complete({ [identifier] host, done in host.admin.changeDeclarations(apply: [], remove: identifier, done) }) {
        case .success(let told): return (.ok, "removed \(identifier); \(told) running app(s) notified", "device")
        case .failure(let e): return (.failed(e.reason), e.message, "device")
        }
    }
}
