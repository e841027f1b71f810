public import MAMDeviceState
public import MAMModel
public import MAMPolicy

/// The services the simulated OS and the Intune SDK give an app, answered by the host from
/// its device state and the enforcer: pasteboard, save/open locations, printing,
/// notifications, keychain, the share sheet, policy and clock changes.
///
/// Each takes the app's handle and uses the app's identities as the host holds them; the app
/// never names its own owner.
extension Host {
    /// The general pasteboard: the copied text, who owned it and where it was copied.
    struct Pasteboard {
        var text: String
        var owner: Account?
        var source: BundleID
    }

    /// The app's effective UI identity (main window, else process) as an account.
    public func effectiveAccount(_ name: String) -> Account? {
        guard let spec = spec(named: name) else { return nil }
        return currentIdentity(of: spec)
    }

    public func copy(_ name: String, text: String) -> Decision {
        guard let spec = spec(named: name) else { return .blocked(.unknownApp, because: HostError.unknownApp(name).description) }
        pasteboard = Pasteboard(text: text, owner: currentIdentity(of: spec), source: spec.bundleID)
        return .allowed("copied \(text.count) characters in \(spec.bundleID)")
    }

    /// Pastes into `name` as `receiver` (default: its effective identity). A blocked paste
    /// yields the placeholder text, never the data.
    public func paste(_ name: String, as receiver: Account?) -> PasteDecision {
        guard let spec = spec(named: name) else {
            return PasteDecision(decision: .blocked(.unknownApp, because: HostError.unknownApp(name).description), text: "")
        }
        guard let board = pasteboard else {
            return PasteDecision(decision: .allowed("the pasteboard is empty"), text: "")
        }
        let who = receiver.map { $0.isEmpty ? nil : $0 } ?? currentIdentity(of: spec)
        return Enforcer.paste(board.text, owner: board.owner, copiedIn: board.source, into: spec.bundleID, as: who, in: fleet)
    }

    /// Saving the app's current data (owned by its effective identity) to a location.
    public func save(_ name: String, to location: SaveLocation, locationAccount: Account?) -> Decision {
        guard let spec = spec(named: name) else { return .blocked(.unknownApp, because: HostError.unknownApp(name).description) }
        return Enforcer.save(owner: currentIdentity(of: spec), to: location, locationAccount: nonEmpty(locationAccount), in: fleet)
    }

    /// Opening data from a location into the app, received by `receiver` (default: its
    /// effective identity).
    public func open(_ name: String, from location: OpenLocation, locationAccount: Account?, as receiver: Account?) -> Decision {
        guard let spec = spec(named: name) else { return .blocked(.unknownApp, because: HostError.unknownApp(name).description) }
        let who = receiver.map { $0.isEmpty ? nil : $0 } ?? currentIdentity(of: spec)
        return Enforcer.open(from: location, locationAccount: nonEmpty(locationAccount), as: who, in: fleet)
    }

    public func print(_ name: String) -> Decision {
        guard let spec = spec(named: name) else { return .blocked(.unknownApp, because: HostError.unknownApp(name).description) }
        return Enforcer.print(as: currentIdentity(of: spec), in: fleet)
    }

    public func notify(_ name: String, account: Account, text: String) -> NotificationDecision {
        guard spec(named: name) != nil else {
            return NotificationDecision(decision: .blocked(.unknownApp, because: HostError.unknownApp(name).description), shownText: nil)
        }
        return Enforcer.notification(text, of: nonEmpty(account), in: fleet)
    }

    public func keychainSet(_ name: String, group: String, key: String, value: String) throws -> KeychainResult {
        guard let spec = spec(named: name) else { throw DeviceStateError(.unknownApp, HostError.unknownApp(name).description) }
        return try state.keychainSet(app: spec.bundleID, group: group, key: key, value: Array(value.utf8), owner: currentIdentity(of: spec)?.upn)
    }

    public func keychainGet(_ name: String, group: String, key: String) throws -> KeychainResult {
        guard let spec = spec(named: name) else { throw DeviceStateError(.unknownApp, HostError.unknownApp(name).description) }
        return try state.keychainGet(app: spec.bundleID, group: group, key: key)
    }

    /// What the share sheet lists for an item the app shares now: every other app, and every
    /// extension whose activation rule accepts the item (managed data is offered only to
    /// extensions accepting the Intune types), filtered by the owner's policy; an app's
    /// "Open in" action extension replaces its "Copy to" entry for managed data.
    public func shareTargets(_ name: String, types: [String]) -> [String] {
        guard let spec = spec(named: name) else { return [] }
        let owner = currentIdentity(of: spec)
        let managed = fleet.isManaged(owner)
        var candidates: [ShareCandidate] = []
        for other in configuration.apps where other.bundleID != spec.bundleID {
            if other.descriptor.kind != .app {
                guard let accepts = other.activation, accepts(types, managed).activated else { continue }
            }
            candidates.append(ShareCandidate(other.bundleID, receivedAs: currentIdentity(of: other)))
        }
        let listed = Enforcer.shareTargets(owner: owner, from: spec.bundleID, candidates: candidates, in: fleet)
        return listed.compactMap { bundle in configuration.apps.first { $0.bundleID == bundle }?.handle }
    }

    /// Targets or untargets an account with a policy at run time (`nil` = no policy).
    public func setPolicy(_ policy: IosManagedAppProtection?, for account: Account) throws {
        try state.assignPolicy(policy, to: account.oid.isEmpty ? account.upn : account.oid)
    }

    public func advanceClock(by duration: ISODuration) throws {
        try state.advanceClock(by: duration)
    }

    /// The identities the device holds for an app, for `expectState`.
    public func identities(_ name: String) -> (process: String?, ui: String?, signedIn: [Account]) {
        guard let spec = spec(named: name) else { return (nil, nil, []) }
        let owner = identityOwner(of: spec)
        let process = (try? state.processIdentity(app: owner)) ?? nil
        let ui = (try? state.uiIdentity(app: owner, window: "")) ?? nil
        return (process, ui, accounts(of: spec))
    }

    /// The items an app or extension accepted so far, in order.
    public func received(_ name: String) -> [ReceivedItem] {
        guard let spec = spec(named: name) else { return [] }
        return receivedItems[spec.handle.lowercased()] ?? []
    }

    public func fileOwner(_ name: String, path: String) throws -> String? {
        guard let spec = spec(named: name) else { throw DeviceStateError(.unknownApp, HostError.unknownApp(name).description) }
        return try state.fileOwner(app: spec.bundleID, path: ContainerPath(parsing: path))
    }

    private func nonEmpty(_ a: Account?) -> Account? {
        guard let a, !a.isEmpty else { return nil }
        return a
    }
}
