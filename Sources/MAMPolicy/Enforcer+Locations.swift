public import MAMModel

extension SaveLocation {
    /// The Graph `allowedDataStorageLocations` value this location is listed as, if any.
    public var storageLocation: DataStorageLocation? {
        switch self {
        case .oneDriveForBusiness: .oneDriveForBusiness
        case .sharePoint: .sharePoint
        case .box: .box
        case .localDrive: .localStorage
        case .cameraRoll: .photoLibrary
        case .iManage: .iManage
        case .egnyte: .egnyte
        case .dropbox, .googleDrive, .accountDocument, .other: nil
        }
    }
}

extension OpenLocation {
    /// The Graph `allowedDataIngestionLocations` value this location is listed as, if any.
    public var ingestionLocation: DataIngestionLocation? {
        switch self {
        case .oneDriveForBusiness: .oneDriveForBusiness
        case .sharePoint: .sharePoint
        case .camera: .camera
        case .photos: .photoLibrary
        case .localStorage, .accountDocument, .box, .iManage, .egnyte, .other: nil
        }
    }
}

extension Enforcer {
    /// Decides saving data owned by `owner` to `location`, whose account is
    /// `locationAccount` (`nil` = unknown, which counts as unmanaged) (RULES.md §4).
    ///
    /// Judged by the owner's policy: with `saveAsBlocked` the location must be listed in
    /// `allowedDataStorageLocations` and, when it belongs to an account, that account must be
    /// the owner. `accountDocument` has no Graph list entry: our reading is that it passes
    /// exactly when its account is the owner. Unmanaged data may be saved anywhere unless the
    /// location's account is managed and its policy refuses unmanaged inbound data.
    public static func save(owner: Account?, to location: SaveLocation, locationAccount: Account?,
                            app: BundleID, in fleet: Fleet) -> Verdict {
        let account = location.neverHasAccount ? nil : locationAccount
        guard let o = fleet.managedEntry(owner, in: app) else {
            if let l = fleet.managedEntry(account, in: app), l.policy!.allowedInboundDataTransferSources != .allApps {
                return .blocked(.saveLocation, because: "\(l.subject) receives data only from policy-managed apps (allowedInboundDataTransferSources = \(l.policy!.allowedInboundDataTransferSources.rawValue)); unmanaged data cannot be saved to \(location) of \(l.account)")
            }
            return .allowed("\(unmanagedReason(owner, in: app, fleet)): saving to \(location) is not restricted")
        }
        let p = o.policy!
        if !p.saveAsBlocked {
            return .allowed("\(o.subject) allows saving copies of org data (saveAsBlocked = false)")
        }
        let listed: Bool
        if location == .accountDocument {
            listed = true
        } else if let graph = location.storageLocation {
            listed = p.allowedDataStorageLocations.contains(graph)
        } else {
            listed = false
        }
        guard listed else {
            return .blocked(.saveLocation, because: "\(o.subject) blocks saving copies of org data (saveAsBlocked = true)\(exceptClause(p.allowedDataStorageLocations)); \(location) is not allowed")
        }
        if location.isAccountBound {
            guard let account, !account.isEmpty, account.isSame(as: o.account) else {
                return .blocked(.saveLocation, because: "\(o.subject) allows saving org data to \(location) only in \(o.account)'s own storage; the \(location) location belongs to \(account.map { $0.isEmpty ? "no account" : $0.description } ?? (location == .localDrive ? "no account (since SDK 15.1 a nil account is an unmanaged one)" : "an unknown account"))")
            }
        }
        return .allowed("\(o.subject) allows saving org data to \(location) (allowedDataStorageLocations)")
    }

    /// Decides opening data from `location` (account `locationAccount`, `nil` = unknown) into
    /// the receiving identity `receiver` (RULES.md §4).
    ///
    /// Judged by the receiver's policy: with `blockDataIngestionIntoOrganizationDocuments`
    /// the location must be listed in `allowedDataIngestionLocations` and, when it belongs to
    /// an account, that account must be the receiver. When the receiver is unmanaged but the
    /// location's account is managed, the location owner's outbound policy applies (org data
    /// leaving to an unmanaged identity).
    public static func open(from location: OpenLocation, locationAccount: Account?, as receiver: Account?,
                            app: BundleID, in fleet: Fleet) -> Verdict {
        let account = location.neverHasAccount ? nil : locationAccount
        if let r = fleet.managedEntry(receiver, in: app) {
            let q = r.policy!
            if !q.blockDataIngestionIntoOrganizationDocuments {
                return .allowed("\(r.subject) allows opening data into org documents (blockDataIngestionIntoOrganizationDocuments = false)")
            }
            let listed: Bool
            if location == .accountDocument {
                listed = true
            } else if let graph = location.ingestionLocation {
                listed = q.allowedDataIngestionLocations.contains(graph)
            } else {
                listed = false
            }
            guard listed else {
                return .blocked(.openLocation, because: "\(r.subject) blocks opening data into org documents (blockDataIngestionIntoOrganizationDocuments = true)\(exceptClause(q.allowedDataIngestionLocations)); \(location) is not allowed")
            }
            if location.isAccountBound {
                guard let account, !account.isEmpty, account.isSame(as: r.account) else {
                    return .blocked(.openLocation, because: "\(r.subject) allows opening from \(location) only from \(r.account)'s own storage; the \(location) location belongs to \(account.map { $0.isEmpty ? "no account" : $0.description } ?? "an unknown account")")
                }
            }
            return .allowed("\(r.subject) allows opening from \(location) (allowedDataIngestionLocations)")
        }
        if let l = fleet.managedEntry(account, in: app) {
            let p = l.policy!
            if p.allowedOutboundDataTransferDestinations != .allApps {
                return .blocked(.openLocation, because: "\(l.subject) sends org data only to \(p.allowedOutboundDataTransferDestinations == .none ? "no app" : "policy-managed apps signed in with \(l.account)"); it cannot be opened from \(location) as \(describe(receiver))")
            }
            return .allowed("\(l.subject) sends org data to all apps: opening from \(location) as \(describe(receiver)) is allowed")
        }
        return .allowed("neither the receiver nor \(location)'s account is managed: no policy applies")
    }

    /// `canReceiveSharedFile`: whether `app`, as `receiver`, may receive a file owned by
    /// `fileOwner` that `source` shared (RULES.md §4: the inbound transfer of §2 with the
    /// file's owner as the data's owner). Our reading: both transfer checks apply, since a
    /// shared file is a transfer; re-owning under incoming-org-data is reported.
    public static func canReceiveSharedFile(owner fileOwner: Account?, from source: BundleID, into app: BundleID,
                                            as receiver: Account?, in fleet: Fleet) -> TransferDecision {
        transfer(owner: fileOwner, from: source, to: app, receivedAs: receiver, in: fleet)
    }

    /// `canReceiveSharedItemProvider`: the same check for an item provider whose item the host
    /// stamped with `ownership`.
    public static func canReceiveSharedItemProvider(_ item: Item, into app: BundleID, as receiver: Account?,
                                                    in fleet: Fleet) -> TransferDecision {
        guard let ownership = item.ownership else {
            return TransferDecision(decision: .blocked(.badRequest, because: "item \(item.id) carries no owner tag; the host stamps every item it routes"))
        }
        return transfer(ownership, to: app, receivedAs: receiver, in: fleet)
    }

    static func exceptClause<E: GraphEnum>(_ list: [E]) -> String {
        list.isEmpty ? " with no exception" : " except for " + list.map(\.rawValue).joined(separator: ", ")
    }
}
