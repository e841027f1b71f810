import MAMDeviceState
import MAMLoop
import MAMModel
import MAMPolicy
import MAMWire

/// A share no known route takes: its owner resolved, `ShareDecider` asked, and what it
/// decided carried out — a route kept, a refusal answered, or an identity switch asked of a
/// multi-identity target. The only part of the broker that reads the rules.
extension Broker {
    /// A share no known route takes: its owner resolved here (a named identity must be signed
    /// in to the sender; a file is owned by its file's owner), the rest decided by
    /// `ShareDecider`, and its route kept under `routeKey`.
    func decide(_ request: ShareRequest, seq: UInt64, from sender: ChildConnection, to entry: AppRegistry.Entry,
                lockedDown: Account?, routeKey: RouteTable.Key?, record: inout ShareRecord) throws {
        let target = entry.spec
        // One copy of the fleet for the whole decision: each read of `state.fleet` retains
        // every table it holds.
        let fleet = lockedDown.map { state.fleet.lockingDown($0) } ?? state.fleet
        var owner: Account?
        if !request.identity.isEmpty {
            guard let a = try identities.signedIn(request.identity, to: sender.spec) else {
                onEvent(.hostile(handle: sender.handle, what: "claimed identity \(request.identity), which is not signed in to it", disconnected: false))
                return answer(sender, seq, .blocked(.notSignedIn, "\(request.identity) is not signed in to \(sender.bundleID), so it cannot own what \(sender.handle) shares"), &record)
            }
            owner = a
        }
        // The path is resolved inside the sender's own containers only.
        var fileData: [UInt8]?
        if let path = request.item.filePath {
            do {
                let location = ContainerPath(parsing: path)
                fileData = try state.readFile(app: sender.bundleID, path: location)
                owner = state.account(forIdentity: try state.fileOwner(app: sender.bundleID, path: location))
            } catch let error as DeviceStateError where error.reason != .internalError {
                return answer(sender, seq, .failed(.badRequest, "\(sender.handle) cannot share \(path): \(error)"), &record)
            }
        }
        record.owner = owner.map {
            Ownership(upn: $0.upn, oid: $0.oid, tenant: $0.tenant, managed: fleet.isManaged($0, in: sender.bundleID), sourceBundle: sender.bundleID)
        }
        let question = ShareQuestion(
            sender: sender.bundleID, senderHandle: sender.handle, senderMultiIdentity: sender.spec.descriptor.multiIdentity,
            target: target.bundleID, targetHandle: target.handle, targetMultiIdentity: target.descriptor.multiIdentity,
            owner: owner, ownerNamed: !request.identity.isEmpty || fileData != nil, isFile: fileData != nil, receiveAs: request.receiveAs,
            activation: Self.activation(of: target, for: request.item))
        let context = ShareContext(state: state, identities: identities, sender: sender.spec, target: target, supervisor: supervisor)
        let decided = try ShareDecider.decide(question, in: fleet, context)
        if let finding = decided.strictFinding { onEvent(.strict(handle: sender.handle, finding)) }
        if case .some(let receiver) = decided.receiver { record.receivedAs = receiver?.upn ?? "" }
        switch decided.outcome {
        case .refuse(let verdict):
            answer(sender, seq, verdict, &record)
        case .askToSwitch(let change, let blocked, let because):
            askToSwitch(change, blocked: blocked, because: because, request, fileData: fileData, seq: seq, from: sender, to: entry, owner: owner, record: record)
        case .deliver(let decision):
            deliverAllowed(decision, receiver: decided.receiver ?? nil, owner: owner, in: fleet, keptUnder: lockedDown == nil ? routeKey : nil,
                           evictingFor: routeKey != nil, request, fileData: fileData, seq: seq, from: sender, to: entry, record: &record)
        }
    }

    /// A share the rules allow: its plan made and delivered, its route kept under `routeKey`
    /// (a route table past its bound is emptied first, whenever the share had a key).
    private func deliverAllowed(_ decision: TransferDecision, receiver: Account?, owner: Account?, in fleet: Fleet, keptUnder routeKey: RouteTable.Key?,
                        evictingFor keyed: Bool, _ request: ShareRequest, fileData: [UInt8]?, seq: UInt64, from sender: ChildConnection,
                        to entry: AppRegistry.Entry, record: inout ShareRecord) {
        let ownership = stamp(owner, after: decision, from: sender.spec, to: entry.spec, in: fleet)
        if keyed { self.value.routes.makeRoom() }
        let plan = Plan(owner: owner, receiver: receiver, decision: decision, ownership: ownership)
        if let routeKey {
            // The parties as `deliver` completes this record: stamped with the plan's owner.
            let parties = ShareRecord.Parties(from: record.from, fromBundle: record.fromBundle, identity: record.identity, to: record.to,
                                              receivedAs: plan.receiverUPN, owner: ownership)
            self.value.routes.keep(RouteTable.Route(key: routeKey, plan: plan, parties: parties))
        }
        deliver(request, fileData: fileData, seq: seq, from: sender, to: entry, plan: plan, record: record.taken())
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

    /// A blocked share a multi-identity target may take after switching identity: asked, and
    /// delivered on yes, refused on no.
    func askToSwitch(_ change: ShareDecision.Switch, blocked: Verdict, because: String, _ request: ShareRequest, fileData: [UInt8]?,
                     seq: UInt64, from sender: ChildConnection, to entry: AppRegistry.Entry, owner: Account?, record: ShareRecord) {
        let target = entry.spec
        let senderLink = sender.link
        switch change {
        case .toUnmanaged(let unmanaged):
            askToSwitchToUnmanaged(target, because: because) { [weak self] accepted in
                guard let self, let sender = senderLink.child else { return }
                var r = record
                guard accepted else { return answer(sender, seq, blocked, &r) }
                r.receivedAs = ""
                let plan = Plan(owner: owner, receiver: nil, decision: unmanaged,
                                ownership: stamp(owner, after: unmanaged, from: sender.spec, to: target, in: state.fleet))
                deliver(request, fileData: fileData, seq: seq, from: sender, to: entry, plan: plan, record: r)
            }
        case .to(let account, let managed):
            askToSwitch(target, to: account, because: because) { [weak self] accepted, why in
                guard let self, let sender = senderLink.child else { return }
                var r = record
                guard accepted else {
                    let said = why.map { "\(because); \(target.handle) did not switch to \(account): \($0)" } ?? because
                    return answer(sender, seq, .blocked(blocked.blockedBy ?? .badRequest, said), &r)
                }
                r.receivedAs = account.upn
                let plan = Plan(owner: owner, receiver: account, decision: managed,
                                ownership: stamp(owner, after: managed, from: sender.spec, to: target, in: state.fleet))
                deliver(request, fileData: fileData, seq: seq, from: sender, to: entry, plan: plan, record: r)
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

    /// What a delivery is stamped with: its owner after the decision (a transfer may re-own
    /// it), managed where the owner's policy targets the app it leaves or, re-owned on
    /// arrival, the app it reaches.
    /// The managed account whose policy a window of several accounts replaces by the lock-down
    /// policy (`window`: the one the share was made from, when the scenario said); `nil` else.
    func lockDownAccount(of sender: ChildConnection, window: String) throws -> Account? {
        try state.lockDownAccount(app: sender.spec.identityOwner, window: window, managedIn: sender.bundleID, in: state.fleet)
    }

    func stamp(_ owner: Account?, after decision: TransferDecision, from sender: AppSpec, to target: AppSpec, in fleet: Fleet) -> Ownership {
        guard let finalOwner = decision.owner(after: owner) else { return .unowned(from: sender.bundleID) }
        return Ownership(upn: finalOwner.upn, oid: finalOwner.oid, tenant: finalOwner.tenant,
                         managed: fleet.isManaged(finalOwner, in: decision.reowned == nil ? sender.bundleID : target.bundleID),
                         sourceBundle: sender.bundleID)
    }
}
