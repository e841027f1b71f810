import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy

/// `useSurface` (v1.4): the app's data meets an OS surface — Writing Tools, Genmoji, Image
/// Playground, "Ask Siri", picture-in-picture, screen recording, a CallKit call, a text view's
/// link menu — decided by the Graph key that governs it (RULES.md §7).
struct UseSurfaceStep: StepVerb {
    static let name = "useSurface"
    static let since = "v1.4"
    static let summary = "the app's data meets an OS surface (Writing Tools, Genmoji, Image Playground, Ask Siri, picture-in-picture, screen recording, CallKit, a text view's link menu)"
    static let example = "useSurface: {app: mail, surface: writingTools}"
    static let arguments: [VerbArgument] = [
        .app(),
        .required("surface", .choice(OSSurface.allCases.map(\.rawValue)), "the OS surface"),
        .optional("account", .account(unmanaged: true), "whose data (absent: the identity the window shows)"),
        .window,
    ]
    static let outcomes: [OutcomeForm] = [.allowed, .blocked, .failedBecause]

    var app: String
    var surface: OSSurface
    var account: Account?
    var window: String?

    init(_ a: VerbArgumentReader) {
        surface = a.choice("surface", OSSurface.self) ?? .writingTools
        (app, account, window) = (a.app(), a.optionalAccount("account"), a.optionalText("window"))
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.host.result { [app, window, account, surface] host -> Verdict in
            let spec = try host.app(app)
            let view = try host.accounts.policyView(spec, window: window ?? "", account: account)
            // Recording the screen or asking Siri about it is capturing it: the one rule the
            // `screenCapture` step is answered by, with the app's configuration.
            let (who, descriptor, configs, bundle) = (view.identity, spec.descriptor, host.state.appConfigPolicies, view.app)
            if surface == .screenRecording || surface == .askSiri {
                return PolicyReads.decision(in: view.fleet) { Enforcer.surfaceVerdict(Enforcer.screenCapture(as: who, in: descriptor, policies: configs, fleet: $0)) }
            }
            return PolicyReads.decision(in: view.fleet) { Enforcer.useSurface(surface, as: who, app: bundle, in: $0) }
        }
        switch r {
        case .success(let d): return (Observed(d, allowed: .allowed), d.explanation, "\(app): \(surface.rawValue)")
        case .failure(let e): return (.failed(e.reason), e.message, "\(app): \(surface.rawValue)")
        }
    }
}
