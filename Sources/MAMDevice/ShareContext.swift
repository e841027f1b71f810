import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// The device's answers to a share decision (`ShareDecider`), read from the store when the
/// decision asks: a share the rules allow never reads the target's accounts.
struct ShareContext: ShareDecisionContext {
    let state: DeviceState
    let identities: Identities
    let sender: AppSpec
    let target: AppSpec
    let supervisor: Supervisor

    func accessBlock(app: BundleID) throws -> String? { try state.accessBlock(app: app) }

    func receiver(named receiveAs: String) throws -> Account?? {
        guard !receiveAs.isEmpty else { return .some(try identities.receiver(of: target)) }
        guard let named = try identities.signedIn(receiveAs, to: target) else { return .none }
        return .some(named)
    }

    func targetAccounts() throws -> [Account] { try identities.accounts(of: target) }

    func ownerSignedInAtTarget(_ owner: Account) throws -> Account? { try identities.signedIn(owner.description, to: target) }

    func shownBySender() throws -> Account? { try identities.current(of: sender) }

    func senderShowsUnmanaged() throws -> Bool {
        try state.effectiveIdentity(app: sender.identityOwner, window: "", for: .ui) == ""
    }

    var targetIsRunning: Bool { supervisor.readyChild(target.key) != nil }

    func signedInToSender(_ identity: String) throws -> Account? { try identities.signedIn(identity, to: sender) }

    /// The path is resolved inside the sender's own containers only.
    func fileOwner(_ path: String) throws -> Account? {
        do {
            return state.account(forIdentity: try state.shareableFileOwner(app: sender.bundleID, path: ContainerPath(parsing: path)))
        } catch let error as DeviceStateError where error.reason != .internalError {
            throw ShareFileUnreadable("\(error)")
        }
    }
}

extension ShareQuestion {
    /// The question a share asks of `ShareDecider`: its parties as the sender asked, the
    /// file it names, the lock-down of `lockedDown`'s window and the target's activation rule.
    init(_ request: borrowing ShareRequest, from sender: AppSpec, to target: AppSpec, lockedDown: Account?) {
        self.init(
            sender: sender.bundleID, senderHandle: sender.handle, senderMultiIdentity: sender.descriptor.multiIdentity,
            target: target.bundleID, targetHandle: target.handle, targetMultiIdentity: target.descriptor.multiIdentity,
            identity: request.identity, file: request.item.filePath, receiveAs: request.receiveAs, lockedDown: lockedDown,
            activation: Self.activation(of: target, for: request.item))
    }

    /// The target's activation rule as the decision asks it: only the share sheet's targets
    /// (share and action extensions) and keyboards have one to pass; the other kinds receive
    /// data as their app gives it (v1.4).
    private static func activation(of target: AppSpec, for item: Item) -> (@Sendable (Bool) -> String?)? {
        guard target.descriptor.kind.isShareSheetTarget || target.descriptor.kind == .keyboard, let accepts = target.activation else { return nil }
        return { managed in
            let verdict = accepts(item.typeIdentifiers, managed)
            return verdict.activated ? nil : verdict.reason
        }
    }
}
