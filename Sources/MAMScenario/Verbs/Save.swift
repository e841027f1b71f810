import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `save`: may the app save to a location (`isSaveToAllowedForLocation`, RULES.md §4)?
struct SaveStep: StepVerb {
    static let name = "save"
    static let since = "v1"
    static let summary = "asks whether the app may save its data to a location"
    static let example = "save: {app: mail, location: oneDriveForBusiness, account: alice@contoso.com}"
    static let arguments: [VerbArgument] = [
        .app(extensions: false),
        .required("location", .choice(SaveLocation.allCases.map(\.rawValue)), "the SDK's save location"),
        .optional("account", .account(unmanaged: true), "the location's account (absent: none)"),
    ]
    static let outcomes: [OutcomeForm] = [.allowed, .blocked]

    var app: String
    var location: SaveLocation
    var account: Account?

    init(app: String, location: SaveLocation, account: Account?) { (self.app, self.location, self.account) = (app, location, account) }
    init(_ a: VerbArgumentReader) {
        let location = a.choice("location", SaveLocation.self)
        self.init(app: a.app(extensions: false), location: location ?? .other, account: a.locationAccount("account"))
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.service(app, .canSave(location, account: account.map(StepRun.identity) ?? ""))
        return (Observed(r.verdict, allowed: .allowed), r.verdict.explanation, "\(app) → \(location)\(account.map { " (\($0))" } ?? "")")
    }
}
