import MAMDeviceState
import MAMLoop
import MAMModel
import MAMPolicy
import MAMWire

/// A share no known route takes: its owner resolved, `ShareDecider` asked, and what it
/// decided carried out — a route kept, a refusal answered, or an identity switch asked of a
/// multi-identity target. The only part of the broker that reads the rules.
extension Broker {
    /// A share no known route takes: `ShareDecider` decides it whole (its owner, the
    /// lock-down of `lockedDown`'s window, the rules, the stamp), and this carries it out — a
    /// refusal answered, a delivery with its route kept under `routeKey`, or an identity
    /// switch asked of a multi-identity target.
    func decide(_ request: ShareRequest, _ share: inout ShareInFlight, lockedDown: Account?, routeKey: RouteTable.Key?) throws {
        let sender = share.sender, target = share.destination.spec
        let question = ShareQuestion(
            sender: sender.bundleID, senderHandle: sender.handle, senderMultiIdentity: sender.spec.descriptor.multiIdentity,
            target: target.bundleID, targetHandle: target.handle, targetMultiIdentity: target.descriptor.multiIdentity,
            identity: request.identity, file: request.item.filePath, receiveAs: request.receiveAs, lockedDown: lockedDown,
            activation: Self.activation(of: target, for: request.item))
        let context = ShareContext(state: state, identities: identities, sender: sender.spec, target: target, supervisor: supervisor)
        let decided = try ShareDecider.decideReplayably(question, in: state.fleet, context)
        if let hostile = decided.hostile { onEvent(.hostile(handle: sender.handle, what: hostile, disconnected: false)) }
        if let finding = decided.strictFinding { onEvent(.strict(handle: sender.handle, finding)) }
        share.record?.owner = decided.ownership
        if case .some(let receiver) = decided.receiver { share.record?.receivedAs = receiver?.upn ?? "" }
        switch decided.outcome {
        case .refuse(let verdict):
            answers.answer(&share, verdict)
        case .askToSwitch:
            askToSwitch(decided, request, share)
        case .deliver(let decision, let stamp):
            let plan = SharePlan(owner: decided.owner, receiver: decided.receiver ?? nil, decision: decision, ownership: stamp)
            deliverAllowed(request, &share, plan: plan, keptUnder: lockedDown == nil ? routeKey : nil, evicting: routeKey != nil)
        }
    }

    /// A share the rules allow: delivered as `plan` says, its route kept under `routeKey` (a
    /// route table past its bound is emptied first, whenever the share had a key).
    private func deliverAllowed(_ request: ShareRequest, _ share: inout ShareInFlight, plan: SharePlan, keptUnder routeKey: RouteTable.Key?, evicting keyed: Bool) {
        if keyed { self.value.routes.makeRoom() }
        if let routeKey {
            // The parties as `deliver` completes this record: stamped with the plan's owner.
            if let r = share.record {
                let parties = ShareRecord.Parties(from: r.from, fromBundle: r.fromBundle, identity: r.identity, to: r.to,
                                                  receivedAs: plan.receiverUPN, owner: plan.ownership)
                self.value.routes.keep(RouteTable.Route(key: routeKey, plan: plan, parties: parties))
            }
        }
        deliver(request, &share, plan: plan)
    }

    /// The target's activation rule as the decision asks it: only the share sheet's targets
    /// (share and action extensions) and keyboards have one to pass; the other kinds receive
    /// data as their app gives it (v1.4).
    static func activation(of target: AppSpec, for item: Item) -> (@Sendable (Bool) -> String?)? {
        guard target.descriptor.kind.isShareSheetTarget || target.descriptor.kind == .keyboard, let accepts = target.activation else { return nil }
        return { managed in
            let verdict = accepts(item.typeIdentifiers, managed)
            return verdict.activated ? nil : verdict.reason
        }
    }

    /// A blocked share a multi-identity target may take after switching identity
    /// (`decided` asks it to): asked, and delivered on yes, refused on no.
    func askToSwitch(_ decided: ShareDecision, _ request: ShareRequest, _ share: borrowing ShareInFlight) {
        guard case .askToSwitch(let change, let blocked, let because) = decided.outcome else { return assertionFailure("asked to switch without a switch to ask") }
        let target = share.destination.spec, owner = decided.owner
        // The closures hold the sender by its link, not the share: a sender gone while the
        // target was asked is answered no more.
        let senderLink = share.sender.link
        let (seq, destination, record) = (share.seq, share.destination, share.record)
        func resumed(_ sender: ChildConnection) -> ShareInFlight { ShareInFlight(seq: seq, sender: sender, destination: destination, record: record) }
        switch change {
        case .toUnmanaged(let unmanaged, let stamp):
            askToSwitchToUnmanaged(target, because: because) { [weak self] accepted in
                guard let self, let sender = senderLink.child else { return }
                var s = resumed(sender)
                guard accepted else { return answers.answer(&s, blocked) }
                s.record?.receivedAs = ""
                deliver(request, &s, plan: SharePlan(owner: owner, receiver: nil, decision: unmanaged, ownership: stamp))
            }
        case .to(let account, let managed, let stamp):
            askToSwitch(target, to: account, because: because) { [weak self] accepted, why in
                guard let self, let sender = senderLink.child else { return }
                var s = resumed(sender)
                guard accepted else {
                    let said = why.map { "\(because); \(target.handle) did not switch to \(account): \($0)" } ?? because
                    return answers.answer(&s, .blocked(blocked.blockedBy ?? .badRequest, said))
                }
                s.record?.receivedAs = account.upn
                deliver(request, &s, plan: SharePlan(owner: owner, receiver: account, decision: managed, ownership: stamp))
            }
        }
    }

    /// `identitySwitchRequired(account)`: asks a multi-identity app to show a managed
    /// account to import an item. The app's consent is not enough: the switch runs
    /// conditional launch (the PIN prompt is answered as the run scripted it).
    /// `completion(accepted, why not)`.
    func askToSwitch(_ target: AppSpec, to account: Account, because why: String, _ completion: @escaping (Bool, String?) -> Void) {
        supervisor.command(target, .identitySwitchRequired(account: account.upn.isEmpty ? account.oid : account.upn, reason: why, cause: IdentitySwitchCause.documentImport)) { [weak self] result in
            guard let self else { return }
            guard case .identitySwitchRequired(accepted: true) = result else { return completion(false, "the app declined") }
            do {
                let pin = context.takePinAnswer(target.key)
                let report = try state.setUIPolicyAccountId(app: target.identityOwner, window: "", account: account.description, pin: pin, now: nil)
                audit.record(verb: .switchIdentity, source: target.handle, sourceIdentity: account.description, owner: account.description,
                             decision: AuditDecision(report.result), reason: report.decision.blockedBy, explanation: "to import an item: \(report.decision.explanation)")
                guard report.result == .success else { return completion(false, report.decision.explanation) }
                onEvent(.note("\(target.handle) switched to \(account) to import an item: \(why)"))
                completion(true, nil)
            } catch {
                completion(false, "\(error)")
            }
        }
    }

    /// `identitySwitchRequired("")`: asks a multi-identity app to show its unmanaged identity;
    /// on yes, its main window's UI identity becomes `""`.
    private func askToSwitchToUnmanaged(_ target: AppSpec, because why: String, _ completion: @escaping (Bool) -> Void) {
        supervisor.command(target, .identitySwitchRequired(account: "", reason: why, cause: IdentitySwitchCause.documentImport)) { [weak self] result in
            guard let self else { return }
            guard case .identitySwitchRequired(accepted: true) = result else { return completion(false) }
            do {
                let report = try state.setUIPolicyAccountId(app: target.identityOwner, window: "", account: "", pin: nil, now: nil)
                onEvent(.note("\(target.handle) switched to its unmanaged identity to receive an item: \(why)"))
                completion(report.result == .success)
            } catch {
                onEvent(.note("\(target.handle) could not switch to its unmanaged identity: \(error)"))
                completion(false)
            }
        }
    }

    /// The managed account whose policy a window of several accounts replaces by the lock-down
    /// policy (`window`: the one the share was made from, when the scenario said); `nil` else.
    func lockDownAccount(of sender: ChildConnection, window: String) throws -> Account? {
        try state.lockDownAccount(app: sender.spec.identityOwner, window: window, managedIn: sender.bundleID, in: state.fleet)
    }
}
