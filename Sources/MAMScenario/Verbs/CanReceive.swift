import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy

/// `canReceive`: before it shows what it received, the app asks its policy whether the identity
/// may receive it — `canReceiveSharedFile:` for a file in its container (the owner the device
/// recorded for it), `canReceiveSharedItemProvider:` for an item the host stamped with an owner
/// (`IntuneMAMPolicy.h`; seed 000 and Microsoft Learn's SDK guide: "verify incoming files from
/// an openURL call"). The answer is the inbound transfer rule of RULES.md §2 with that owner.
struct CanReceiveStep: StepVerb {
    static let name = "canReceive"
    static let since = "v1.2"
    static let summary = "the app asks its policy whether it may receive a file in its container (canReceiveSharedFile) or an item with an owner (canReceiveSharedItemProvider)"
    static let example = "canReceive: {app: notes, from: mail, owner: alice@contoso.com}"
    static let arguments: [VerbArgument] = [
        .app(),
        .optional("from", .app(extensions: true), "the app the file or item came from (absent: only the owner tag is known, as in the SDK's own check; the contract's v1.2 form)"),
        .optional("path", .text, nullable: false, "a file in the app's container: its recorded owner is the data's owner (give path or owner)"),
        .optional("owner", .account(unmanaged: true), "the item's owner tag (\"\": unmanaged data; give path or owner)"),
        .optional("account", .account(unmanaged: true), "whose policy asks (policyForAccountId; absent: the identity the window shows)"),
        .window,
    ]
    static let outcomes: [OutcomeForm] = [.allowed, .blocked, .failedBecause]

    var app: String
    var from: String
    /// What is received: a file whose owner the device recorded, or an item's owner.
    var subject: Subject
    var account: Account?
    var window: String?

    enum Subject: Hashable {
        case file(path: String)
        case item(owner: Account)
    }

    init(_ a: VerbArgumentReader) {
        (app, account, window) = (a.app(), a.optionalAccount("account"), a.optionalText("window"))
        // Without `from`, the data's owner tag is all there is: the receiving app is taken as
        // the source, so the inbound rule judges the owner alone.
        from = a["from"] == nil ? app : a.app("from")
        switch (a.optionalText("path"), a.optionalAccount("owner")) {
        case (let path?, nil): subject = .file(path: path)
        case (nil, let owner?): subject = .item(owner: owner)
        case (.some, .some):
            a.error("give either path (a received file) or owner (a received item), not both", at: "owner")
            subject = .item(owner: Account(upn: ""))
        case (nil, nil):
            a.error("say what is received: path (a file in \(app)'s container) or owner (an item's owner tag, \"\" for unmanaged data)")
            subject = .item(owner: Account(upn: ""))
        }
    }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let what = switch subject {
        case .file(let path): path
        case .item(let owner): owner.isEmpty ? "an unmanaged item" : "an item owned by \(owner)"
        }
        let parties = "\(from) → \(app): \(what)"
        let asked = await run.host.result { [app, from, subject, window, account] host -> (PolicyView, BundleID, Account?)? in
            let view = try host.accounts.policyView(host.app(app), window: window ?? "", account: account)
            let source = try host.app(from).bundleID
            switch subject {
            case .item(let owner): return (view, source, owner)
            case .file(let path):
                let status = try host.services.fileStatus(host.app(app), path: path)
                guard status.exists else { return nil }
                return (view, source, status.owner.flatMap { host.state.account(forIdentity: $0) })
            }
        }
        switch asked {
        case .success(let (view, source, owner)?):
            let (into, receiver) = (view.app, view.identity)
            let d = PolicyReads.decision(in: view.fleet) { Enforcer.canReceiveSharedFile(owner: owner, from: source, into: into, as: receiver, in: $0).decision }
            return (Observed(d, allowed: .allowed), d.explanation, parties)
        case .success(nil): return (.failed(.badRequest), "\(what) does not exist in \(app)'s container", parties)
        case .failure(let e): return (.failed(e.reason), e.message, parties)
        }
    }
}
