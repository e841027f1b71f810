import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `openURL`: the app opens a link or custom scheme from the data it shows (RULES.md, links).
struct OpenURLStep: StepVerb {
    static let name = "openURL"
    static let since = "v1.1"
    static let summary = "the app opens a URL; the policy's link rules pick (or refuse) the app that takes it"
    static let example = "openURL: {from: mail, url: \"https://contoso.com\"}"
    static let arguments: [VerbArgument] = [.required("from", .app(extensions: true), "the app"), .required("url", .text, "the URL")]
    static let outcomes: [OutcomeForm] = [.delivered, .openedIn, .blocked, .failedBecause]

    var from: String
    var url: String

    init(from: String, url: String) { (self.from, self.url) = (from, url) }
    init(_ a: VerbArgumentReader) { self.init(from: a.app("from"), url: a.text("url")) }

    var actingApp: String? { from }

    func run(_ run: StepRun) async -> StepOutcome {
        let (d, handler) = await run.host.run(orElse: (Verdict.unanswered(.shutDown), nil)) { [from, url] host in
            do { return try host.services.openURL(url, for: host.app(from)) } catch { return (Verdict.unanswered(HostFailure(error)), nil) }
        }
        let parties = "\(from) → \(handler ?? url)"
        if d.isAllowed { return (.openedIn(handler), d.explanation + (handler.map { "; \($0) takes the link" } ?? "; iOS opens it, outside the fleet"), parties) }
        return (Observed(d), d.explanation, parties)
    }
}
