import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `managedSecret`: the app reads a password, certificate or identity ManagedApp gives it.
struct ManagedSecretStep: StepVerb {
    static let name = "managedSecret"
    static let since = "v1.1"
    static let summary = "the app reads a ManagedApp password, certificate or identity by id"
    static let example = "managedSecret: {app: mail, kind: password, id: smtp}"
    static let arguments: [VerbArgument] = [
        .app(), .required("kind", .choice(ManagedSecretKind.allCases.map(\.rawValue)), "what is read"),
        .required("id", .text, "the identifier in the declaration"),
    ]
    static let outcomes: [OutcomeForm] = [.password, .certificate, .identity, .errorCode, .none]

    var app: String
    var kind: ManagedSecretKind
    var id: String

    init(app: String, kind: ManagedSecretKind, id: String) { (self.app, self.kind, self.id) = (app, kind, id) }
    init(_ a: VerbArgumentReader) {
        let kind = a.choice("kind", ManagedSecretKind.self) ?? .password
        self.init(app: a.app(), kind: kind, id: a.text("id"))
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.call(app, Service.ManagedSecret(kind: kind, id: id))
        let parties = "\(app): \(kind) \(id)"
        guard let secret = r.allowedAnswer else {
            // The framework's errors: an identifier not provisioned, the asset server failing.
            if case .failed(let reason, _) = r.verdict, reason == .invalidIdentifier || reason == .timeout { return (.errorCode(reason), r.verdict.explanation, parties) }
            return (Observed(r.verdict, allowed: .none), r.verdict.explanation, parties)
        }
        switch secret {
        case .password(_, let password): return (.password(password), r.verdict.explanation, parties)
        case .certificate(let der), .identity(let der):
            let (subject, sha) = CertificateSummary.of(der)
            if case .identity = secret { return (.certificate(subject: subject, sha256: sha, identity: true), "\(r.verdict.explanation); subject \(subject)", parties) }
            return (.certificate(subject: subject, sha256: sha, identity: false), "\(r.verdict.explanation); subject \(subject)", parties)
        }
    }
}
