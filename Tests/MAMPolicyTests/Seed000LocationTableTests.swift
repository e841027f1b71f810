import MAMModel
import MAMPolicy
import Testing

/// One save-to / open-from check of seed 000's "Critères de sortie" tables.
struct LocationRow: Sendable, CustomTestStringConvertible {
    enum Check: Sendable { case save(SaveLocation), open(OpenLocation) }
    let behaviour: String
    /// The seed's row, translated.
    let seedRow: String
    /// saveAsBlocked / blockDataIngestionIntoOrganizationDocuments.
    let blocked: Bool
    let allowedSave: [DataStorageLocation]
    let allowedOpen: [DataIngestionLocation]
    let check: Check
    let locationAccount: Account?
    let allowed: Bool

    var testDescription: String { "\(behaviour): \(seedRow)" }

    func policy() -> IosManagedAppProtection {
        var p = World.strictPolicy()
        p.saveAsBlocked = blocked
        p.allowedDataStorageLocations = allowedSave
        p.blockDataIngestionIntoOrganizationDocuments = blocked
        p.allowedDataIngestionLocations = allowedOpen
        return p
    }
}

enum Seed000 {
    typealias W = World
    static let saveFullyAllowed = "Save to, fully allowed (\"Save copies of org data\" = Allow): saving to OneDrive for Business of the same managed account is allowed"
    static let saveExempted = "Save to, exempted (\"Save copies\" = Block, \"Allow user to save copies to selected services\" = OneDrive for Business only): saving to OneDrive of the same managed account is allowed; saving to another cloud storage location is blocked"
    static let saveBlocked = "Save to, blocked (\"Save copies of org data\" = Block): saving to OneDrive of the same managed account is blocked; another cloud storage location is blocked too"
    static let openFullyAllowed = "Open from, fully allowed (\"Open data into org documents\" = Allow): opening from OneDrive for Business of the same managed account is allowed"
    static let openExempted = "Open from, exempted (\"Open data into org documents\" = Block, \"Allow users to open data from selected services\" = OneDrive for Business only): opening from OneDrive of the same managed account is allowed; another cloud storage location is blocked"
    static let openBlocked = "Open from, blocked (\"Open data into org documents\" = Block): opening from OneDrive of the same managed account is blocked; another cloud storage location is blocked too"

    static let rows: [LocationRow] = [
        LocationRow(behaviour: "saveToSameAccountOneDriveIsAllowedWhenSavingIsAllowed", seedRow: saveFullyAllowed,
                    blocked: false, allowedSave: [], allowedOpen: [], check: .save(.oneDriveForBusiness), locationAccount: W.alice, allowed: true),
        LocationRow(behaviour: "saveToSameAccountOneDriveIsAllowedWhenExempted", seedRow: saveExempted,
                    blocked: true, allowedSave: [.oneDriveForBusiness], allowedOpen: [], check: .save(.oneDriveForBusiness), locationAccount: W.alice, allowed: true),
        LocationRow(behaviour: "saveToAnotherCloudLocationIsBlockedWhenOnlyOneDriveIsExempted", seedRow: saveExempted,
                    blocked: true, allowedSave: [.oneDriveForBusiness], allowedOpen: [], check: .save(.box), locationAccount: W.alice, allowed: false),
        LocationRow(behaviour: "saveToDropboxIsBlockedWhenOnlyOneDriveIsExempted", seedRow: saveExempted,
                    blocked: true, allowedSave: [.oneDriveForBusiness], allowedOpen: [], check: .save(.dropbox), locationAccount: nil, allowed: false),
        LocationRow(behaviour: "saveToOneDriveOfAnotherAccountIsBlockedWhenExempted", seedRow: saveExempted,
                    blocked: true, allowedSave: [.oneDriveForBusiness], allowedOpen: [], check: .save(.oneDriveForBusiness), locationAccount: W.carol, allowed: false),
        LocationRow(behaviour: "saveToOneDriveWithUnknownAccountIsBlockedWhenExempted", seedRow: saveExempted,
                    blocked: true, allowedSave: [.oneDriveForBusiness], allowedOpen: [], check: .save(.oneDriveForBusiness), locationAccount: nil, allowed: false),
        LocationRow(behaviour: "saveToSameAccountOneDriveIsBlockedWhenSavingIsBlocked", seedRow: saveBlocked,
                    blocked: true, allowedSave: [], allowedOpen: [], check: .save(.oneDriveForBusiness), locationAccount: W.alice, allowed: false),
        LocationRow(behaviour: "saveToAnotherCloudLocationIsBlockedWhenSavingIsBlocked", seedRow: saveBlocked,
                    blocked: true, allowedSave: [], allowedOpen: [], check: .save(.sharePoint), locationAccount: W.alice, allowed: false),
        LocationRow(behaviour: "openFromSameAccountOneDriveIsAllowedWhenOpeningIsAllowed", seedRow: openFullyAllowed,
                    blocked: false, allowedSave: [], allowedOpen: [], check: .open(.oneDriveForBusiness), locationAccount: W.alice, allowed: true),
        LocationRow(behaviour: "openFromSameAccountOneDriveIsAllowedWhenExempted", seedRow: openExempted,
                    blocked: true, allowedSave: [], allowedOpen: [.oneDriveForBusiness], check: .open(.oneDriveForBusiness), locationAccount: W.alice, allowed: true),
        LocationRow(behaviour: "openFromAnotherCloudLocationIsBlockedWhenOnlyOneDriveIsExempted", seedRow: openExempted,
                    blocked: true, allowedSave: [], allowedOpen: [.oneDriveForBusiness], check: .open(.sharePoint), locationAccount: W.alice, allowed: false),
        LocationRow(behaviour: "openFromBoxIsBlockedWhenOnlyOneDriveIsExempted", seedRow: openExempted,
                    blocked: true, allowedSave: [], allowedOpen: [.oneDriveForBusiness], check: .open(.box), locationAccount: W.alice, allowed: false),
        LocationRow(behaviour: "openFromOneDriveOfAnotherAccountIsBlockedWhenExempted", seedRow: openExempted,
                    blocked: true, allowedSave: [], allowedOpen: [.oneDriveForBusiness], check: .open(.oneDriveForBusiness), locationAccount: W.carol, allowed: false),
        LocationRow(behaviour: "openFromSameAccountOneDriveIsBlockedWhenOpeningIsBlocked", seedRow: openBlocked,
                    blocked: true, allowedSave: [], allowedOpen: [], check: .open(.oneDriveForBusiness), locationAccount: W.alice, allowed: false),
        LocationRow(behaviour: "openFromAnotherCloudLocationIsBlockedWhenOpeningIsBlocked", seedRow: openBlocked,
                    blocked: true, allowedSave: [], allowedOpen: [], check: .open(.sharePoint), locationAccount: W.alice, allowed: false),
    ]
}

@Suite("Seed 000 save-to / open-from tables")
struct Seed000LocationTableTests {
    typealias W = World

    @Test("Every save-to / open-from row decides as the seed says", arguments: Seed000.rows)
    func locationTableMatchesSeed(_ row: LocationRow) {
        let fleet = W.fleet(policy: row.policy())
        switch row.check {
        case .save(let location):
            let d = Enforcer.save(owner: W.alice, to: location, locationAccount: row.locationAccount, app: World.mine, in: fleet)
            #expect(d.isAllowed == row.allowed, "\(d)")
            if !row.allowed { #expect(d.blockedBy == .saveLocation) }
        case .open(let location):
            let d = Enforcer.open(from: location, locationAccount: row.locationAccount, as: W.alice, app: World.mine, in: fleet)
            #expect(d.isAllowed == row.allowed, "\(d)")
            if !row.allowed { #expect(d.blockedBy == .openLocation) }
        }
    }

    func exemptedPolicy() -> IosManagedAppProtection {
        var p = W.strictPolicy()
        p.saveAsBlocked = true
        p.allowedDataStorageLocations = [.oneDriveForBusiness, .localStorage, .photoLibrary]
        p.blockDataIngestionIntoOrganizationDocuments = true
        p.allowedDataIngestionLocations = [.camera, .photoLibrary]
        return p
    }

    @Test func otherIsAlwaysBlockedWhenSavingIsBlocked() {
        var p = exemptedPolicy()
        p.allowedDataStorageLocations = DataStorageLocation.allCases
        #expect(Enforcer.save(owner: W.alice, to: .other, locationAccount: W.alice, app: World.mine, in: W.fleet(policy: p)).blockedBy == .saveLocation)
    }

    /// Seed 000 (SDK ≥ 15.1): a nil account for LocalDrive is an unmanaged account, so org
    /// data goes to the sandbox when the app names its owner; the camera roll has no account.
    @Test func localDriveNeedsItsOwnerNamedAndCameraRollNoAccountWhenListed() {
        let fleet = W.fleet(policy: exemptedPolicy())
        #expect(Enforcer.save(owner: W.alice, to: .localDrive, locationAccount: nil, app: World.mine, in: fleet).blockedBy == .saveLocation)
        #expect(Enforcer.save(owner: W.alice, to: .localDrive, locationAccount: W.alice, app: World.mine, in: fleet).isAllowed)
        // The camera roll never has an account: a stray one is ignored.
        #expect(Enforcer.save(owner: W.alice, to: .cameraRoll, locationAccount: W.carol, app: World.mine, in: fleet).isAllowed)
        #expect(Enforcer.open(from: .photos, locationAccount: W.carol, as: W.alice, app: World.mine, in: fleet).isAllowed)
        #expect(Enforcer.open(from: .camera, locationAccount: nil, as: W.alice, app: World.mine, in: fleet).isAllowed)
        #expect(Enforcer.open(from: .localStorage, locationAccount: nil, as: W.alice, app: World.mine, in: fleet).blockedBy == .openLocation)
    }

    @Test func accountDocumentFollowsItsAccount() {
        let fleet = W.fleet(policy: exemptedPolicy())
        #expect(Enforcer.save(owner: W.alice, to: .accountDocument, locationAccount: W.alice, app: World.mine, in: fleet).isAllowed)
        #expect(Enforcer.save(owner: W.alice, to: .accountDocument, locationAccount: nil, app: World.mine, in: fleet).blockedBy == .saveLocation)
    }

    @Test func unmanagedDataSavesAnywhereUnlessTheLocationsManagedAccountRefusesIt() {
        let fleet = W.fleet(policy: exemptedPolicy())
        #expect(Enforcer.save(owner: W.bob, to: .dropbox, locationAccount: nil, app: World.mine, in: fleet).isAllowed)
        #expect(Enforcer.save(owner: nil, to: .oneDriveForBusiness, locationAccount: W.bob, app: World.mine, in: fleet).isAllowed)
        // alice's inbound is managedApps: her OneDrive refuses unmanaged data.
        #expect(Enforcer.save(owner: W.bob, to: .oneDriveForBusiness, locationAccount: W.alice, app: World.mine, in: fleet).blockedBy == .saveLocation)
    }

    @Test func unmanagedIdentityOpeningFromManagedStorageFollowsTheOwnersOutboundPolicy() {
        let fleet = W.fleet(policy: exemptedPolicy())
        #expect(Enforcer.open(from: .oneDriveForBusiness, locationAccount: W.alice, as: W.bob, app: World.mine, in: fleet).blockedBy == .openLocation)
        #expect(Enforcer.open(from: .oneDriveForBusiness, locationAccount: W.carol, as: W.bob, app: World.mine, in: fleet).isAllowed)
        var open = exemptedPolicy()
        open.allowedOutboundDataTransferDestinations = .allApps
        #expect(Enforcer.open(from: .oneDriveForBusiness, locationAccount: W.alice, as: nil, app: World.mine, in: W.fleet(policy: open)).isAllowed)
    }

    @Test func blockedSaveNamesSettingAndLocation() {
        var p = W.strictPolicy()
        p.saveAsBlocked = true
        p.allowedDataStorageLocations = [.oneDriveForBusiness]
        let d = Enforcer.save(owner: W.alice, to: .oneDriveForBusiness, locationAccount: W.carol, app: World.mine, in: W.fleet(policy: p))
        #expect(d.explanation.contains("carol@fabrikam.com"))
        #expect(d.explanation.contains("alice@contoso.com's own storage"))
    }
}

/// Seed 000, SDK 15.1: a nil account is unmanaged for the sandbox locations too — it no
/// longer stands for the app's current account.
@Suite("localDrive and localStorage with a nil account")
struct SandboxNilAccountTests {
    static func fleet() -> Fleet {
        var p = World.strictPolicy()
        p.saveAsBlocked = true
        p.allowedDataStorageLocations = [.localStorage]
        p.blockDataIngestionIntoOrganizationDocuments = true
        p.allowedDataIngestionLocations = [.oneDriveForBusiness]
        return World.fleet(policy: p)
    }

    /// owner of the data, the sandbox's account → the save decision's reason (`nil` = allowed).
    @Test(arguments: [
        ("alice", nil as String?, Reason.saveLocation as Reason?),
        ("alice", "alice", nil),
        ("alice", "bob", .saveLocation),
        ("unmanaged", nil, nil),
        ("unmanaged", "alice", .saveLocation),
        ("unmanaged", "bob", nil),
    ])
    func save(owner: String, sandbox: String?, expected: Reason?) {
        let who = ["alice": World.alice, "bob": World.bob, "unmanaged": nil] as [String: Account?]
        let d = Enforcer.save(owner: who[owner]!, to: .localDrive, locationAccount: sandbox.flatMap { who[$0]! }, app: World.mine, in: Self.fleet())
        #expect(d.blockedBy == expected, "\(owner) → localDrive(\(sandbox ?? "nil")): \(d)")
    }

    /// receiving identity, the sandbox's account → the open decision's reason.
    @Test(arguments: [
        ("alice", nil as String?, Reason.openLocation as Reason?),
        ("unmanaged", nil, nil),
        ("unmanaged", "alice", .openLocation),
        ("bob", nil, nil),
    ])
    func open(receiver: String, sandbox: String?, expected: Reason?) {
        let who = ["alice": World.alice, "bob": World.bob, "unmanaged": nil] as [String: Account?]
        let d = Enforcer.open(from: .localStorage, locationAccount: sandbox.flatMap { who[$0]! }, as: who[receiver]!, app: World.mine, in: Self.fleet())
        #expect(d.blockedBy == expected, "localStorage(\(sandbox ?? "nil")) → \(receiver): \(d)")
    }
}
