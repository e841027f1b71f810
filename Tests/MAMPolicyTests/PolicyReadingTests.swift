import MAMModel
import MAMPolicy
import Testing

/// `policyReading`: an account's whole `IntuneMAMPolicy` as `policyForAccountId` answers it
/// (the façade's getters read it). Every field must be the answer of its single query, for
/// Microsoft's three framework levels (they target Microsoft's apps: Outlook here) and for
/// unmanaged data.
@Suite("Policy read whole (policyReading)")
struct PolicyReadingTests {
    typealias W = World

    struct Row: Sendable, CustomTestStringConvertible {
        let file: String
        let pin: Bool
        let browser: Bool
        let notifications: NotificationRestriction
        let saveToMask: Int
        var testDescription: String { file }
    }

    /// The values the Graph documents set (pinRequired, managedBrowserToOpenLinksRequired,
    /// notificationRestriction, allowedDataStorageLocations with saveAsBlocked), for alice's own
    /// account: level 1 saves anywhere (1023); levels 2 and 3 list OneDrive for Business and
    /// SharePoint, and accountDocument passes for the owner's own account (Enforcer.save).
    static let rows: [Row] = [
        Row(file: "icf-level-1-enterprise-basic-data-protection-iOS.json", pin: true, browser: false, notifications: .allow, saveToMask: 1023),
        Row(file: "icf-level-2-enterprise-enhanced-data-protection-iOS.json", pin: true, browser: true, notifications: .blockOrganizationalData, saveToMask: 1 | 2 | 128),
        Row(file: "icf-level-3-enterprise-high-data-protection-iOS.json", pin: true, browser: true, notifications: .blockOrganizationalData, saveToMask: 1 | 2 | 128),
    ]

    @Test(arguments: rows)
    func aFrameworkLevelReadWhole(_ row: Row) throws {
        let fleet = W.fleet(policy: try Fixtures.policy(row.file))
        let r = Enforcer.policyReading(as: W.alice, app: W.outlook, in: fleet)
        #expect(r.managed)
        #expect(r.pinRequired == row.pin)
        #expect(r.managedBrowserRequired == row.browser)
        #expect(r.notificationRestriction == row.notifications)
        #expect(r.saveToMask == row.saveToMask)
        // Each field is its single query's answer.
        for setting in PolicySetting.allCases {
            #expect(r.restricted.contains(setting) == !Enforcer.policyQuery(setting, as: W.alice, app: W.outlook, in: fleet).isAllowed, "\(setting)")
        }
        for location in SaveLocation.allCases {
            #expect(r.saveTo.contains(location) == Enforcer.save(owner: W.alice, to: location, locationAccount: W.alice, app: W.outlook, in: fleet).isAllowed, "\(location)")
        }
        for location in OpenLocation.allCases {
            #expect(r.openFrom.contains(location) == Enforcer.open(from: location, locationAccount: W.alice, as: W.alice, app: W.outlook, in: fleet).isAllowed, "\(location)")
        }
    }

    @Test func unmanagedDataRestrictsNothing() {
        let r = Enforcer.policyReading(as: W.bob, app: W.mine, in: W.fleet())
        #expect(!r.managed && !r.pinRequired && !r.managedBrowserRequired)
        #expect(r.restricted.isEmpty)
        #expect(r.saveTo == Set(SaveLocation.allCases) && r.openFrom == Set(OpenLocation.allCases))
        #expect(r.saveToMask == 1023 && r.openFromMask == 511, "every SDK bit; other is 0 and adds none")
    }

    @Test func anAppNoPolicyTargetsRestrictsNothing() {
        let r = Enforcer.policyReading(as: W.alice, app: W.notes, in: W.fleet())
        #expect(!r.managed && r.restricted.isEmpty && r.saveToMask == 1023)
    }
}
