import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `open`: may the app open data from a location (`isOpenFromAllowedForLocation`, RULES.md §4)?
struct OpenStep: StepVerb {
    static let name = "open"
    static let since = "v1"
    static let summary = "asks whether the app may open data from a location"
    static let example = "open: {app: mail, location: photos}"
    static let arguments: [VerbArgument] = [
        .app(extensions: false),
        .required("location", .choice(OpenLocation.allCases.map(\.rawValue)), "the SDK's open location"),
        .optional("account", .account(unmanaged: true), "the location's account (absent: none)"),
        .optional("as", .account(unmanaged: true), "the identity the data is opened into"),
    ]
    static let outcomes: [OutcomeForm] = [.allowed, .blocked]

    var app: String
    var location: OpenLocation
    var account: Account?
    var `as`: Account?

    init(app: String, location: OpenLocation, account: Account?, as receiver: Account?) {
        (self.app, self.location, self.account, self.as) = (app, location, account, receiver)
    }

    init(_ a: VerbArgumentReader) {
        let location = a.choice("location", OpenLocation.self)
        self.init(app: a.app(extensions: false), location: location ?? .other, account: a.locationAccount("account"), as: a.optionalAccount("as"))
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.service(app, .canOpen(location, account: account.map(StepRun.identity) ?? "", as: self.as.map(StepRun.identity)))
        return (Observed(r.verdict, allowed: .allowed), r.verdict.explanation, "\(location)\(account.map { " (\($0))" } ?? "") → \(app)")
    }
}
