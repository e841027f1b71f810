import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `managedSecretIds`: the identifiers of the app's ManagedApp secrets of one kind.
struct ManagedSecretIdsStep: StepVerb {
    static let name = "managedSecretIds"
    static let since = "v1.1"
    static let summary = "the identifiers of the app's ManagedApp passwords, certificates or identities"
    static let example = "managedSecretIds: {app: mail, kind: identity}"
    static let arguments: [VerbArgument] = [.app(), .required("kind", .choice(ManagedSecretKind.allCases.map(\.rawValue)), "which secrets")]
    static let outcomes: [OutcomeForm] = [.ids]

    var app: String
    var kind: ManagedSecretKind

    init(app: String, kind: ManagedSecretKind) { (self.app, self.kind) = (app, kind) }
    init(_ a: VerbArgumentReader) {
        let app = a.app()
        self.init(app: app, kind: a.choice("kind", ManagedSecretKind.self) ?? .password)
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.call(app, Service.ManagedSecretIds(kind: kind))
        guard let ids = r.allowedAnswer else { return (Observed(r.verdict, allowed: .ids([])), r.verdict.explanation, app) }
        return (.ids(ids), r.verdict.explanation, "\(app): \(kind.plural)")
    }
}
