import MAMDevice
import MAMDeviceState
import MAMModel

/// `manageApp`: the MDM server takes an app already installed under management (or releases
/// it). ManagedApp works « dès l'installation de l'app ou lorsqu'il prend en charge la gestion
/// d'une app déjà installée » (seed 004): from now on the app and its extensions get their
/// configuration and secrets, and a running one is told.
struct ManageAppStep: StepVerb {
    static let name = "manageApp"
    static let since = "v1.2"
    static let summary = "the MDM server takes an installed app under management (or releases it); ManagedApp serves it from then on"
    static let example = "manageApp: {app: mail}"
    static let arguments: [VerbArgument] = [
        .app(extensions: false),
        .optional("managed", .bool, "false: the MDM server releases the app (default true)"),
    ]
    static let outcomes: [OutcomeForm] = [.ok, .failedBecause]

    var app: String
    var managed: Bool

    init(_ a: VerbArgumentReader) { (app, managed) = (a.app(extensions: false), a.bool("managed", default: true)) }

    func run(_ run: StepRun) async -> StepOutcome {
        let r: Result<Int, DeviceStateError> = await run.host.complete { [app, managed] host, done in
            host.admin.manageApp(try host.app(app), managed: managed, done)
        }
        switch r {
        case .success(let told):
            let what = managed ? "the MDM server manages \(app)" : "the MDM server no longer manages \(app)"
            return (.ok, what + (told == 0 ? "" : "; \(told) running app(s) or extension(s) told"), app)
        case .failure(let e): return (.failed(e.reason), e.message, app)
        }
    }
}
