import Foundation
import MAMModel
import MAMPolicy
import Testing
@testable import MAMDeviceState

/// What the host acknowledged survives: every mutation is committed before the method
/// returns, so a host that dies without closing anything (SIGKILL) loses nothing.
@Suite struct DurabilityTests {
    /// A policy the scenario assigns at run time; the host loads it again when it restarts.
    static let rotated: IosManagedAppProtection = {
        var p = World.strictPolicy()
        p.displayName = "Contoso rotated"
        p.printBlocked = true
        return p
    }()

    /// Fills a device with one of everything the store keeps.
    func populate(_ d: DeviceState) throws {
        try signIn(d, World.mail, World.alice, World.bob)
        try signIn(d, World.outlook, World.alice)
        try d.addAccount(Account(upn: "erin@contoso.com", oid: "e1"), policy: nil)
        try d.assignPolicy(Self.rotated, to: "alice@contoso.com")
        try d.setAllowedAccounts(["alice@contoso.com", "bob@outlook.com", "e1"])
        try d.setDeviceFacts(DeviceFacts(mdmEnrolled: true, osVersion: Version("18.6")!, model: "iPhone16,1", brokerInstalled: true))
        try d.setClock(Instant(iso8601: "2026-03-01T09:00:00Z")!)
        try d.setManagedByMDM(World.outlook, true)
        try d.checkIn(app: World.mail)
        _ = try d.setUIPolicyAccountId(app: World.mail, window: "inbox", account: "alice@contoso.com", pin: "2580")
        _ = try d.setProcessAccountId(app: World.mail, account: "")
        try d.writeFile(app: World.mail, path: ContainerPath("org.txt"), data: [UInt8]("org"), owner: "alice@contoso.com")
        try d.writeFile(app: World.mail, path: ContainerPath("own.txt", in: .appGroup(World.group)), data: [UInt8]("own"), owner: "bob@outlook.com")
        _ = try d.keychainSet(app: World.mail, key: "token", value: [4, 2], owner: "alice@contoso.com")
        try d.appendAudit(AuditEvent(time: d.now, scenario: "durability", step: "1", verb: .signIn,
                                     sourceApp: World.mail.rawValue, decision: .allowed("ok")))
    }

    /// Checks a device opened afresh on the directory `populate` filled.
    func verify(_ d: DeviceState) throws {
        #expect(try d.signedInAccounts(app: World.mail) == [World.alice, World.bob])
        #expect(try d.enrolledManagedAccount == World.alice)
        #expect(try d.processIdentity(app: World.outlook) == "alice@contoso.com")
        #expect(try d.processIdentity(app: World.mail) == "")
        #expect(try d.uiIdentity(app: World.mail, window: "inbox") == "alice@contoso.com")
        let pin = try d.pinState(for: "alice@contoso.com")
        #expect(pin.pin == "2580" && pin.failedAttempts == 0 && pin.setAt != nil && pin.previous.isEmpty, "\(pin)")
        #expect(d.fleet.policy(for: World.alice)?.displayName == "Contoso rotated")
        #expect(d.fleet.account(named: "E1")?.upn == "erin@contoso.com")
        #expect(d.fleet.allowedAccounts == ["alice@contoso.com", "bob@outlook.com", "e1"])
        #expect(d.fleet.device.model == "iPhone16,1")
        #expect(d.fleet.device.mdmEnrolled)
        #expect(d.fleet.device.brokerInstalled, "Authenticator installed during the run stays installed")
        #expect(d.fleet.app(World.outlook)?.mdmManaged == true, "an app the MDM server took under management stays managed")
        #expect(d.now == Instant(iso8601: "2026-03-01T09:00:00Z")!)
        #expect(try d.lastCheckIn(app: World.mail) == Instant(iso8601: "2026-03-01T09:00:00Z")!)
        #expect(try d.fileOwner(app: World.mail, path: ContainerPath("org.txt")) == "alice@contoso.com")
        #expect(try d.readFile(app: World.mail, path: ContainerPath("org.txt")).text == "org")
        #expect(try d.fileOwner(app: World.outlook, path: ContainerPath("own.txt", in: .appGroup(World.group))) == "bob@outlook.com")
        #expect(try d.keychainGet(app: World.mail, key: "token").value == [4, 2])
        #expect(try d.auditEvents().map(\.verb) == [.signIn])
    }

    @Test func everythingAcknowledgedIsBackAfterReopeningWithoutClosing() throws {
        let dir = try DeviceDirectory()
        let first = try dir.open()
        try populate(first)
        // Never closed, never deinitialized: like a host killed with SIGKILL, the first
        // connection does not checkpoint or clean up. (Released at the end of the test.)
        let abandoned = Unmanaged.passRetained(first)
        defer { abandoned.release() }
        try verify(try dir.open(policies: [Self.rotated]))
    }

    @Test func everythingIsBackAfterTheObjectIsDropped() throws {
        let dir = try DeviceDirectory()
        try populate(try dir.open())
        try verify(try dir.open(policies: [Self.rotated]))
    }

    @Test func eachMutationIsVisibleToAnotherConnectionAsSoonAsItReturns() throws {
        let dir = try DeviceDirectory()
        let host = try dir.open()
        // A device directory has one owner, which serves reads from memory; each check opens
        // a new connection so it sees only what was committed.
        // WAL journal: commits land in the write-ahead log, which the next open replays.
        #expect(dir.exists("device.sqlite-wal"))
        try signIn(host, World.mail, World.bob)
        #expect(try dir.open().signedInAccounts(app: World.mail) == [World.bob])
        try host.writeFile(app: World.mail, path: ContainerPath("n.txt"), data: [1], owner: "bob@outlook.com")
        #expect(try dir.open().fileOwner(app: World.mail, path: ContainerPath("n.txt")) == "bob@outlook.com")
        _ = try host.keychainSet(app: World.mail, key: "k", value: [3])
        #expect(try dir.open().keychainGet(app: World.mail, key: "k").value == [3])
        _ = try host.signOut(app: World.mail, account: "bob@outlook.com")
        #expect(try dir.open().signedInAccounts(app: World.mail) == [])
        #expect(try dir.open().fileOwner(app: World.mail, path: ContainerPath("n.txt")) == nil)
    }

    @Test func reopeningWithoutAPolicyTheStoreAssignedSaysWhatToDo() throws {
        let dir = try DeviceDirectory()
        var extra = IosManagedAppProtection(displayName: "Contoso night shift")
        extra.id = "policy-42"
        do {
            let d = try dir.open()
            try d.assignPolicy(extra, to: "bob@outlook.com")
            #expect(d.isManaged(identity: "bob@outlook.com"))
        }
        let error = #expect(throws: DeviceStateError.self) { try dir.open() }
        #expect(error?.message == "the device store at \(dir.url.path) assigns the policy \"policy-42\" to bob@outlook.com, but no policy of that name is loaded; start the host with the scenario that defines it, or use a new device directory")
        #expect(try dir.open(policies: [extra]).isManaged(identity: "bob@outlook.com"))
    }

    @Test func anAccountUntargetedAtRunTimeStaysUnmanagedAfterARestart() throws {
        let dir = try DeviceDirectory()
        try dir.open().assignPolicy(nil, to: "alice@contoso.com")
        let d = try dir.open()
        #expect(!d.isManaged(identity: "alice@contoso.com"))
        try signIn(d, World.mail, World.alice)
        #expect(try !d.writeFile(app: World.mail, path: ContainerPath("a"), data: [1], owner: "alice@contoso.com").isEncrypted)
    }
}
