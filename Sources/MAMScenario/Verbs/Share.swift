import Foundation
import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `share`: the sender's share sheet hands an item to another app or extension; the broker
/// stamps its owner and the enforcer decides (RULES.md §2–§3).
struct ShareStep: StepVerb {
    static let name = "share"
    static let since = "v1"
    static let summary = "shares an item from one app or extension to another through the broker"
    static let example = "share: {from: mail, to: notes, item: {type: public.plain-text, text: Q3 figures}}"
    static let arguments: [VerbArgument] = [
        .required("from", .app(extensions: true), "the sender"),
        .required("to", .app(extensions: true), "the receiver"),
        .required("item", .item, "the item: type, and one of text, data (base64), file"),
        .optional("as", .account(unmanaged: true), "the receiving account in a multi-identity receiver (then no automatic identity switch)"),
        .optional("pin", .text, "what the user types if the receiver must switch to a managed identity to import the item"),
        .window,
    ]
    static let outcomes: [OutcomeForm] = [.delivered, .blocked, .failedBecause]

    var from: String
    var to: String
    var item: ScenarioItem
    var `as`: Account?
    var pin: String?
    var window: String?

    init(from: String, to: String, item: ScenarioItem, as receiver: Account? = nil, pin: String? = nil, window: String? = nil) {
        (self.from, self.to, self.item, self.as, self.pin, self.window) = (from, to, item, receiver, pin, window)
    }

    init(_ a: VerbArgumentReader) {
        let item = a.item()
        self.init(from: a.app("from"), to: a.app("to"), item: item, as: a.optionalAccount("as"),
                  pin: a.optionalText("pin"), window: a.optionalText("window"))
        // The share sheet lists share and action extensions only (SCENARIOS v1.4): iOS cannot
        // share to a widget, a notification service, an Intents extension…
        if let ext = a.loading.extensions.first(where: { $0.id == to }), !ext.descriptor.kind.isShareSheetTarget {
            a.error("\(to) is a \(ext.descriptor.kind.rawValue) extension, which the share sheet never lists: only share and action extensions receive a share (test it with the step its kind has: policyQuery, useSurface, notify…)", at: "to")
        }
    }

    var actingApp: String? { from }

    func run(_ run: StepRun) async -> StepOutcome {
        let host = run.host
        let identity: String
        switch await host.result({ [from, window] in try $0.accounts.effectiveAccount($0.app(from), window: window ?? "") }) {
        case .success(let a): identity = a?.upn ?? ""
        case .failure(let e): return (.failed(e.reason), e.message, "\(from) → \(to)")
        }
        var wireItem: Item
        do {
            wireItem = try item.wireItem(id: "step\(run.step.index + 1)")
        } catch {
            return (.failed(.badRequest), "cannot read the item: \(error)", "\(from) → \(to)")
        }
        // A file item is a real file: the app first saves it in its Documents, owned by the
        // identity it shows, then shares the file; it reaches the destination's Inbox as
        // `Inbox/step<N>-<name>`.
        if case .inline(let bytes) = wireItem.payload, !wireItem.fileName.isEmpty {
            let path = "Documents/\(wireItem.fileName)"
            let wrote = await run.service(from, .writeFile(path: path, data: bytes, owner: identity))
            guard wrote.isAllowed else {
                return (.failed(wrote.verdict.reason), "cannot save \(path) in \(from): \(wrote.verdict.explanation)", "\(from) → \(to)")
            }
            wireItem.payload = .file(path: path)
        }
        let outcome = await host.share(from: from, to: to, item: wireItem, identity: identity, receiveAs: self.as.map(StepRun.key) ?? "", pin: pin,
                                       window: window)
        let who = identity.isEmpty ? "unmanaged" : identity
        return (Observed(outcome, allowed: .delivered), outcome == .delivered ? "delivered and acknowledged" : outcome.explanation, "\(from) (\(who)) → \(to)")
    }
}

extension ScenarioItem {
    /// The item as the wire carries it (the file's name kept, so the receiver's Inbox names it).
    func wireItem(id: String) throws -> Item {
        var fileName = ""
        if case .file(let url) = content { fileName = url.lastPathComponent }
        return Item(id: id, typeIdentifiers: [type], payload: .inline(try bytes()), fileName: fileName)
    }
}
