import MAMModel
import MAMPolicy
import Testing

/// What each of Microsoft's data-protection framework levels (shared/fixtures/policies/
/// icf-level-*.json) decides for the same everyday actions of alice, the managed account.
struct LevelExpectation: Sendable, CustomTestStringConvertible {
    let file: String
    let level: Int
    /// alice's data shared from Outlook to the unmanaged notes app.
    let shareToUnmanagedApp: Reason?
    /// alice's data shared from Outlook to Word, received as alice.
    let shareToManagedApp: Reason?
    /// Personal data shared from the notes app into Outlook as alice.
    let receiveFromUnmanagedApp: Reason?
    /// alice's data copied in Outlook, pasted into the notes app.
    let pasteOut: Reason?
    /// Personal data copied in the notes app, pasted into Outlook as alice.
    let pasteIn: Reason?
    /// Save alice's document to alice's OneDrive for Business.
    let saveToOwnOneDrive: Reason?
    /// Save alice's document to carol@fabrikam.com's OneDrive for Business.
    let saveToOtherAccountsOneDrive: Reason?
    /// Print alice's data.
    let print: Reason?
    /// What a notification carrying alice's data shows.
    let notificationText: String
    /// Switching to alice on an iPhone running iOS 18.4, first PIN "1357".
    let switchOnIOS18: IdentitySwitchResult

    var testDescription: String { "level \(level)" }
}

@Suite("Data-protection framework levels 1–3")
struct FrameworkLevelTests {
    typealias W = World

    static let levels: [LevelExpectation] = [
        LevelExpectation(file: "icf-level-1-enterprise-basic-data-protection-iOS.json", level: 1,
                         shareToUnmanagedApp: nil, shareToManagedApp: nil, receiveFromUnmanagedApp: nil,
                         pasteOut: nil, pasteIn: nil, saveToOwnOneDrive: nil, saveToOtherAccountsOneDrive: nil,
                         print: nil, notificationText: "Q3 numbers are in", switchOnIOS18: .success),
        LevelExpectation(file: "icf-level-2-enterprise-enhanced-data-protection-iOS.json", level: 2,
                         shareToUnmanagedApp: .outboundPolicy, shareToManagedApp: nil, receiveFromUnmanagedApp: nil,
                         pasteOut: .clipboardPolicy, pasteIn: nil, saveToOwnOneDrive: nil, saveToOtherAccountsOneDrive: .saveLocation,
                         print: nil, notificationText: "You have new content", switchOnIOS18: .success),
        LevelExpectation(file: "icf-level-3-enterprise-high-data-protection-iOS.json", level: 3,
                         shareToUnmanagedApp: .outboundPolicy, shareToManagedApp: nil, receiveFromUnmanagedApp: .inboundPolicy,
                         pasteOut: .clipboardPolicy, pasteIn: nil, saveToOwnOneDrive: nil, saveToOtherAccountsOneDrive: .saveLocation,
                         print: .printBlocked, notificationText: "You have new content",
                         // Level 3 sets maximumRequiredOsVersion 15.0 (and a 6-digit PIN).
                         switchOnIOS18: .failed),
    ]

    @Test("Each level decides share, paste, save and print as pinned", arguments: levels)
    func levelDecisionsArePinned(_ e: LevelExpectation) throws {
        let policy = try Fixtures.policy(e.file)
        let fleet = W.fleet(policy: policy)
        #expect(Enforcer.transfer(owner: W.alice, from: W.outlook, to: W.notes, receivedAs: nil, in: fleet).decision.blockedBy == e.shareToUnmanagedApp)
        #expect(Enforcer.transfer(owner: W.alice, from: W.outlook, to: W.word, receivedAs: W.alice, in: fleet).decision.blockedBy == e.shareToManagedApp)
        #expect(Enforcer.transfer(owner: nil, from: W.notes, to: W.outlook, receivedAs: W.alice, in: fleet).decision.blockedBy == e.receiveFromUnmanagedApp)
        #expect(Enforcer.pasteDecision(length: 10, owner: W.alice, copiedIn: W.outlook, into: W.notes, as: nil, in: fleet).blockedBy == e.pasteOut)
        #expect(Enforcer.pasteDecision(length: 10, owner: nil, copiedIn: W.notes, into: W.outlook, as: W.alice, in: fleet).blockedBy == e.pasteIn)
        #expect(Enforcer.save(owner: W.alice, to: .oneDriveForBusiness, locationAccount: W.alice, app: World.outlook, in: fleet).blockedBy == e.saveToOwnOneDrive)
        #expect(Enforcer.save(owner: W.alice, to: .oneDriveForBusiness, locationAccount: W.carol, app: World.outlook, in: fleet).blockedBy == e.saveToOtherAccountsOneDrive)
        #expect(Enforcer.print(as: W.alice, app: World.outlook, in: fleet).blockedBy == e.print)
        #expect(Enforcer.notification("Q3 numbers are in", of: W.alice, app: World.outlook, in: fleet).shownText == e.notificationText)
        let now = try #require(Instant(iso8601: "2026-01-01T09:00:00Z"))
        let pin = e.level == 3 ? "135790" : "1357"
        let outcome = Enforcer.switchIdentity(to: W.alice, signedIn: [W.alice], enteredPin: pin, pin: PinState(),
                                              facts: LaunchFacts(now: now), app: World.outlook, in: fleet)
        #expect(outcome.result == e.switchOnIOS18, "\(outcome.decision)")
    }

    @Test func level3RefusesASimpleOrShortPinButLevel1TakesFourDigits() throws {
        let now = try #require(Instant(iso8601: "2026-01-01T09:00:00Z"))
        let oldDevice = DeviceFacts(osVersion: try #require(Version("14.8.1")))
        let level3 = W.fleet(policy: try Fixtures.policy("icf-level-3-enterprise-high-data-protection-iOS.json"), device: oldDevice)
        let simple = Enforcer.switchIdentity(to: W.alice, signedIn: [W.alice], enteredPin: "123456", pin: PinState(), facts: LaunchFacts(now: now), app: World.outlook, in: level3)
        #expect(simple.result == .failed)
        #expect(simple.decision.explanation.contains("simplePinBlocked"))
        let short = Enforcer.switchIdentity(to: W.alice, signedIn: [W.alice], enteredPin: "1357", pin: PinState(), facts: LaunchFacts(now: now), app: World.outlook, in: level3)
        #expect(short.decision.explanation.contains("minimumPinLength = 6"))
        let good = Enforcer.switchIdentity(to: W.alice, signedIn: [W.alice], enteredPin: "135790", pin: PinState(), facts: LaunchFacts(now: now), app: World.outlook, in: level3)
        #expect(good.result == .success, "\(good.decision)")
        #expect(good.pin.pin == "135790")

        let level1 = W.fleet(policy: try Fixtures.policy("icf-level-1-enterprise-basic-data-protection-iOS.json"))
        #expect(Enforcer.switchIdentity(to: W.alice, signedIn: [W.alice], enteredPin: "1111", pin: PinState(), facts: LaunchFacts(now: now), app: World.outlook, in: level1).result == .success)
    }

    @Test func level2RequiresIOS14Point8() throws {
        let now = try #require(Instant(iso8601: "2026-01-01T09:00:00Z"))
        let fleet = W.fleet(policy: try Fixtures.policy("icf-level-2-enterprise-enhanced-data-protection-iOS.json"),
                            device: DeviceFacts(osVersion: try #require(Version("14.7"))))
        let o = Enforcer.switchIdentity(to: W.alice, signedIn: [W.alice], enteredPin: "1357", pin: PinState(), facts: LaunchFacts(now: now), app: World.outlook, in: fleet)
        #expect(o.result == .failed)
        #expect(o.decision.blockedBy == .conditionalLaunch)
        #expect(o.decision.explanation.contains("minimumRequiredOsVersion 14.8"))
    }
}
