import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `shareTargets`: what the sender's share sheet lists for an item.
struct ShareTargetsStep: StepVerb {
    static let name = "shareTargets"
    static let since = "v1"
    static let summary = "lists the apps and extensions the share sheet offers for an item (activation rules and policy)"
    static let example = "shareTargets: {from: mail, item: {type: public.url, text: \"https://contoso.com\"}}"
    static let arguments: [VerbArgument] = [
        .required("from", .app(extensions: true), "the sender"),
        .required("item", .item, "the item: type, and one of text, data (base64), file"),
    ]
    static let outcomes: [OutcomeForm] = [.targets]

    var from: String
    var item: ScenarioItem

    init(from: String, item: ScenarioItem) { (self.from, self.item) = (from, item) }
    init(_ a: VerbArgumentReader) {
        let item = a.item()
        self.init(from: a.app("from"), item: item)
    }

    var actingApp: String? { from }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.call(from, Service.ShareTargets(types: [item.type]))
        guard let targets = r.answer else { return (Observed(r.verdict, allowed: .ok), r.verdict.explanation, from) }
        return (.targets(targets), "the share sheet lists \(targets.isEmpty ? "nothing" : targets.joined(separator: ", "))", from)
    }
}
