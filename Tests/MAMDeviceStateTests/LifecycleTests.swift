import Foundation
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMDeclarations
import Crypto
import Testing

/// Launch, resume, relaunch and the network the check-ins need (RULES.md §5 "Relaunch", §8).
@Suite("App lifecycle on the device")
struct LifecycleTests {
    func device(_ dir: DeviceDirectory, _ fleet: Fleet = World.fleet()) throws -> DeviceState {
        let device = try dir.open(fleet)
        #expect(try device.signIn(app: World.mail, account: "alice@contoso.com").isAllowed)
        #expect(try device.signIn(app: World.mail, account: "bob@outlook.com").isAllowed)
        #expect(try device.signIn(app: World.outlook, account: "alice@contoso.com").isAllowed)
        return device
    }

    @Test func switchingIdentityWhileOnlineChecksIn() throws {
        let dir = try DeviceDirectory()
        let device = try device(dir)
        #expect(try device.isOnline())
        try device.advanceClock(by: ISODuration("P2D")!)
        let r = try device.setUIPolicyAccountId(app: World.mail, window: "", account: "alice@contoso.com", pin: "2580")
        #expect(r.result == .success, "online, the switch checks in before conditional launch")
        #expect(try device.lastCheckIn(app: World.mail) == device.now)
    }

    @Test func theNetworkStateSurvivesARestart() throws {
        let dir = try DeviceDirectory()
        do { try device(dir).setNetwork(online: false) }
        #expect(try !dir.open().isOnline())
    }

    /// Read from memory between changes: other writes leave it, each change is seen at once.
    @Test func theNetworkStateReadFromMemoryFollowsEachChange() throws {
        let dir = try DeviceDirectory()
        let device = try device(dir)
        #expect(try device.isOnline())
        try device.setNetwork(online: false)
        #expect(try !device.isOnline())
        _ = try device.signIn(app: World.notes, account: "bob@outlook.com")
        #expect(try !device.isOnline(), "another write does not change the network")
        try device.setNetwork(online: true)
        #expect(try device.isOnline())
        #expect(try dir.open().isOnline())
    }

    @Test func aSingleIdentityAppIsCheckedAtLaunchAndResume() throws {
        let dir = try DeviceDirectory()
        let device = try device(dir, World.fleet(device: DeviceFacts(jailbroken: true)))
        try device.appLaunched(app: World.outlook)
        let r = try device.launchChecks(app: World.outlook)
        #expect(r.decision.blockedBy == .conditionalLaunch)
        #expect(r.decision.explanation.contains("jailbroken"))
        #expect(try device.accessBlock(app: World.outlook) != nil)
        #expect(try device.lastCheckIn(app: World.outlook) != nil, "online: it checked in first")
    }

    /// The broker reads the block on both sides of every share, from memory: a read before a
    /// change must not hide the change (every write empties the cache).
    @Test func theAccessBlockReadFromMemoryFollowsEveryChange() throws {
        let dir = try DeviceDirectory()
        let device = try device(dir, World.fleet(device: DeviceFacts(jailbroken: true)))
        try device.appLaunched(app: World.outlook)
        #expect(try device.accessBlock(app: World.outlook) == nil, "read (and kept) before the check")
        _ = try device.launchChecks(app: World.outlook)
        #expect(try device.accessBlock(app: World.outlook) != nil, "the failed check is seen at once")
        #expect(try dir.open().accessBlock(app: World.outlook) != nil, "and survives a restart")
    }

    /// A launch that passes lifts an earlier block, in memory and in the store; a launch that
    /// passes with nothing blocked before leaves nothing blocked.
    @Test func aPassingLaunchLiftsAnEarlierBlock() throws {
        let dir = try DeviceDirectory()
        do {
            let jailbroken = try device(dir, World.fleet(device: DeviceFacts(jailbroken: true)))
            _ = try jailbroken.launchChecks(app: World.outlook)
            #expect(try jailbroken.accessBlock(app: World.outlook) != nil)
        }
        let device = try dir.open()
        #expect(try device.accessBlock(app: World.outlook) != nil, "read (and kept) before the check")
        #expect(try device.launchChecks(app: World.outlook).decision.isAllowed)
        #expect(try device.accessBlock(app: World.outlook) == nil)
        #expect(try dir.open().accessBlock(app: World.outlook) == nil, "lifted in the store too")
        #expect(try device.launchChecks(app: World.outlook).decision.isAllowed)
        #expect(try dir.open().accessBlock(app: World.outlook) == nil)
    }

    @Test func aMultiIdentityAppShowingNothingManagedIsNotCheckedAtLaunch() throws {
        let dir = try DeviceDirectory()
        let device = try device(dir, World.fleet(device: DeviceFacts(jailbroken: true)))
        try device.appLaunched(app: World.mail)
        #expect(try device.launchChecks(app: World.mail).decision.isAllowed)
        #expect(try device.accessBlock(app: World.mail) == nil)
    }

    /// A launch keeps the process identity it stored for the handshake that follows: what it
    /// answers is what the store holds (a second device object reads it from the file).
    @Test func theProcessIdentityALaunchLeavesIsWhatTheStoreHolds() throws {
        let dir = try DeviceDirectory()
        let device = try device(dir)
        for app in [World.mail, World.outlook] {
            _ = try device.signIn(app: app, account: "alice@contoso.com")
        }
        _ = try device.setProcessAccountId(app: World.mail, account: "alice@contoso.com", pin: "2580")
        #expect(try device.processIdentity(app: World.mail) == "alice@contoso.com")
        for app in [World.mail, World.outlook] {
            try device.resetIdentitiesAtLaunch(app: app)
            #expect(try device.processIdentity(app: app) == (try dir.open().processIdentity(app: app)), "\(app)")
        }
        #expect(try device.processIdentity(app: World.mail) == nil, "a multi-identity app starts with none")
        #expect(try device.processIdentity(app: World.outlook) == "alice@contoso.com", "a single-identity app runs as its account")
    }

    @Test func aRelaunchRestoresTheWindowsOfAccountsStillSignedIn() throws {
        let dir = try DeviceDirectory()
        let device = try device(dir)
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "inbox", account: "alice@contoso.com", pin: "2580").result == .success)
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "personal", account: "bob@outlook.com").result == .success)
        _ = try device.signOut(app: World.mail, account: "bob@outlook.com", appHandledWipe: false)
        let layers = try device.appLaunched(app: World.mail)
        #expect(layers.process == nil, "a multi-identity app starts with no process identity")
        #expect(try device.uiIdentity(app: World.mail, window: "inbox") == "alice@contoso.com")
        #expect(try device.uiIdentity(app: World.mail, window: "personal") == nil, "bob is signed out: that screen is gone")
    }

    @Test func anAppThatDoesNotRestoreItsStateStartsWithNoWindowIdentity() throws {
        var fleet = World.fleet()
        var mail = try #require(fleet.app(World.mail))
        mail.restoresState = false
        fleet.install(mail)
        let dir = try DeviceDirectory()
        let device = try device(dir, fleet)
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "inbox", account: "alice@contoso.com", pin: "2580").result == .success)
        try device.appLaunched(app: World.mail)
        #expect(try device.uiIdentity(app: World.mail, window: "inbox") == nil)
    }

    @Test func aRestoredManagedWindowRunsConditionalLaunch() throws {
        var policy = World.strictPolicy()
        policy.minimumRequiredAppVersion = Version("3.0")
        var fleet = World.fleet(policy: policy)
        var mail = try #require(fleet.app(World.mail))
        mail.shortVersion = "2.5"
        fleet.install(mail)
        let dir = try DeviceDirectory()
        let device = try device(dir, fleet)
        // Shown before the minimum was known to the app (a version set at run time wins).
        try device.setVersions(app: World.mail, appVersion: Version("3.1"), sdkVersion: nil)
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "inbox", account: "alice@contoso.com", pin: "2580").result == .success)
        try device.setVersions(app: World.mail, appVersion: nil, sdkVersion: nil)
        try device.appLaunched(app: World.mail)
        let r = try device.launchChecks(app: World.mail)
        #expect(r.decision.blockedBy == .conditionalLaunch)
        #expect(r.decision.explanation.contains("2.5 is below minimumRequiredAppVersion 3.0"))
        // A managed switch that passes opens access again.
        try device.setVersions(app: World.mail, appVersion: Version("3.1"), sdkVersion: nil)
        #expect(try device.setUIPolicyAccountId(app: World.mail, window: "inbox", account: "alice@contoso.com", pin: "2580").result == .success)
        #expect(try device.accessBlock(app: World.mail) == nil)
    }
}

/// RULES.md §5: one managed account per device.
@Suite("A policy assigned while another account is managed")
struct SingleManagedAccountTests {
    @Test func anAccountTargetedAfterAnotherEnrolledStaysUnmanagedAcrossRestarts() throws {
        let dir = try DeviceDirectory()
        do {
            let device = try dir.open()
            #expect(try device.signIn(app: World.mail, account: "alice@contoso.com").isAllowed)
            #expect(try device.signIn(app: World.mail, account: "bob@outlook.com").isAllowed)
            #expect(try !device.assignPolicy(World.fabrikamPolicy(), to: "bob@outlook.com"))
            #expect(!device.fleet.isManaged(World.bob))
        }
        let again = try dir.open(World.fleet(), policies: [World.fabrikamPolicy()])
        #expect(!again.fleet.isManaged(World.bob), "the restart keeps the assignment without applying it")
        _ = try again.signOut(app: World.mail, account: "alice@contoso.com")
        #expect(try again.assignPolicy(World.fabrikamPolicy(), to: "bob@outlook.com"))
        #expect(again.fleet.isManaged(World.bob))
    }
}

/// RULES.md §9: the app configuration the admin set at run time survives a host restart.
@Suite("App configuration on the device")
struct AppConfigStateTests {
    @Test func aRunTimeChangeIsStoredAndWinsOverTheScenarioAtRestart() throws {
        let dir = try DeviceDirectory()
        let initial = [AppConfigPolicy(name: "sales", settings: [KeyValuePair(name: "serverUrl", value: "https://a")])]
        do {
            let device = try dir.open()
            try device.loadAppConfigPolicies(initial: initial)
            #expect(try device.appConfig(app: World.mail, account: World.alice).values(forKey: "serverUrl") == ["https://a"])
            var changed = initial
            changed[0].settings = [KeyValuePair(name: "serverUrl", value: "https://b")]
            try device.setAppConfigPolicies(changed)
        }
        let again = try dir.open()
        try again.loadAppConfigPolicies(initial: initial)
        #expect(try again.appConfig(app: World.mail, account: World.alice).values(forKey: "serverUrl") == ["https://b"])
        #expect(try again.appConfig(app: World.mail, account: World.bob).fullData.isEmpty, "bob is unmanaged")
    }
}

/// RULES.md §9: ManagedApp secrets are stored encrypted at rest, and what the device made for
/// an enrollment stays the same identity across restarts.
@Suite("ManagedApp declarations on the device")
struct DeclarationStateTests {
    static var landmarks: URL {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast(3)
        return URL(fileURLWithPath: parts.joined(separator: "/") + "/scenarios/conformance/fixtures/ddm/landmarks")
    }

    static func fleet() -> Fleet {
        var f = World.fleet(device: DeviceFacts(mdmEnrolled: true, osVersion: Version("18.4")!))
        var app = AppDescriptor(bundleID: "com.example.landmarks", sdkIntegrated: false, mdmManaged: true)
        app.teamId = "ABCDE12345"
        f.install(app)
        return f
    }

    @Test func secretsAreSealedAtRestAndSurviveARestart() throws {
        let dir = try DeviceDirectory()
        let first: ManagedSecret
        do {
            let device = try dir.open(Self.fleet())
            _ = try device.applyDeclarations(DeclarationSet.read([Self.landmarks]).0)
            #expect(try device.managedSecret(app: "com.example.landmarks", kind: .password, id: "api")
                    == .password(userName: "landmarks-api", password: "correct horse battery staple"))
            first = try device.managedSecret(app: "com.example.landmarks", kind: .identity, id: "device")
        }
        let store = try Data(contentsOf: dir.url.appendingPathComponent("device.sqlite"))
        #expect(store.range(of: Data("correct horse battery staple".utf8)) == nil, "the password is not in the store in clear")
        #expect(store.range(of: Data("landmarks-api".utf8)) == nil)
        let again = try dir.open(Self.fleet())
        try again.loadDeclarations()
        #expect(try again.managedSecret(app: "com.example.landmarks", kind: .identity, id: "device") == first,
                "the enrolled identity stays the same after a restart")
        let signed = try again.signWithIdentity(app: "com.example.landmarks", id: "device", data: Array("x".utf8))
        #expect(!signed.signature.isEmpty)
        #expect(throws: DeviceStateError.self) { try again.managedSecret(app: "com.example.landmarks", kind: .password, id: "nope") }
    }

    /// The asset server failing (SCENARIOS v1.5 `assetServer`): a lookup fails with `timeout`
    /// (ManagedApp's `serverError`) while the secret stays listed, and the fact survives a
    /// restart of the host; answering again, the lookup gives the secret.
    @Test func aFailingAssetServerFailsLookupsNotTheList() throws {
        let dir = try DeviceDirectory()
        do {
            let device = try dir.open(Self.fleet())
            _ = try device.applyDeclarations(DeclarationSet.read([Self.landmarks]).0)
            var facts = device.fleet.device
            facts.assetServerAvailable = false
            try device.setDeviceFacts(facts)
            for (kind, id) in [(ManagedAppContent.SecretKind.password, "api"), (.identity, "assets-client")] {
                do {
                    _ = try device.managedSecret(app: "com.example.landmarks", kind: kind, id: id)
                    Issue.record("\(kind) \(id) was fetched from a failing server")
                } catch let e as DeviceStateError {
                    #expect(e.reason == .timeout && e.message.contains("asset server"), "\(e)")
                }
            }
            do {
                _ = try device.signWithIdentity(app: "com.example.landmarks", id: "assets-client", data: [1])
                Issue.record("an identity signed while its server failed")
            } catch let e as DeviceStateError {
                #expect(e.reason == .timeout && e.message.contains("asset server"), "\(e)")
            }
            // An identifier that is not provisioned is still that, not a server error.
            do {
                _ = try device.managedSecret(app: "com.example.landmarks", kind: .password, id: "nope")
                Issue.record("an unknown identifier was answered")
            } catch let e as DeviceStateError {
                #expect(e.reason == .invalidIdentifier, "\(e)")
            }
        }
        let again = try dir.open(Self.fleet())
        try again.loadDeclarations()
        #expect(!again.fleet.device.assetServerAvailable, "the failing server is a fact the device keeps")
        var facts = again.fleet.device
        facts.assetServerAvailable = true
        try again.setDeviceFacts(facts)
        #expect(try again.managedSecret(app: "com.example.landmarks", kind: .password, id: "api")
                == .password(userName: "landmarks-api", password: "correct horse battery staple"))
    }

    /// An ACME identity a declaration names `tenant:<tenant>` is an identity of its own: it
    /// never becomes (nor replaces) the token service's signing key for that tenant, so an app
    /// signing with it cannot forge a token that verifies.
    @Test func anIdentityNamedLikeATenantKeyCannotSignTheTenantsTokens() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mamsim-ddm-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Self.landmarks, to: scratch)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let tenantRow = "tenant:\(World.alice.tenant)"
        for name in ["device-acme.json", "landmarks-app.json"] {
            let url = scratch.appendingPathComponent(name)
            let text = try String(contentsOf: url, encoding: .utf8)
            try Data(text.replacingOccurrences(of: "\"device-acme\"", with: "\"\(tenantRow)\"").utf8).write(to: url)
        }
        let dir = try DeviceDirectory()
        let device = try dir.open(Self.fleet())
        let before = try device.tenantPublicKey(World.alice.tenant)
        _ = try device.applyDeclarations(DeclarationSet.read([scratch]).0)
        // The identity is made (its key generated and stored) when the app first uses it.
        let payload = Data(#"{"alg":"ES256","typ":"JWT"}"#.utf8).base64EncodedString() + "." + Data(#"{"oid":"forged"}"#.utf8).base64EncodedString()
        let signed = try device.signWithIdentity(app: "com.example.landmarks", id: "device", data: Array(payload.utf8))
        let after = try device.tenantPublicKey(World.alice.tenant)
        #expect(after.rawRepresentation == before.rawRepresentation, "the tenant's key changed")
        if let signature = try? P256.Signing.ECDSASignature(derRepresentation: signed.signature) {
            #expect(!after.isValidSignature(signature, for: Data(payload.utf8)), "a declared identity signed as the tenant")
        }
        let token = try device.issueToken(app: World.mail, account: World.alice, resource: "Office365")
        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        #expect(try dir.open(Self.fleet()).tenantPublicKey(World.alice.tenant).rawRepresentation == before.rawRepresentation, "kept after a restart")
    }
}

/// RULES.md §10: the simulated token service's tokens verify with the tenant's key.
@Suite("Tokens")
struct TokenTests {
    @Test func aTokenIsAnES256JWTWithTheAccountsClaims() throws {
        let dir = try DeviceDirectory()
        let device = try dir.open()
        let token = try device.issueToken(app: World.mail, account: World.alice, resource: "Office365")
        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        func decode(_ s: String) -> Data {
            var b = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while b.count % 4 != 0 { b += "=" }
            return Data(base64Encoded: b)!
        }
        let claims = try #require(try JSONSerialization.jsonObject(with: decode(parts[1])) as? [String: Any])
        #expect(claims["oid"] as? String == World.alice.oid && claims["tid"] as? String == World.alice.tenant)
        #expect(claims["aud"] as? String == "Office365")
        let key = try device.tenantPublicKey(World.alice.tenant)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: decode(parts[2]))
        #expect(key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
        #expect(try dir.open().tenantPublicKey(World.alice.tenant).rawRepresentation == key.rawRepresentation, "the tenant key is kept")
    }
}
