import Foundation
import MAMModel
@testable import MAMPolicy
import Testing

/// Conditional access's filter for devices (issue 85, item 3; Microsoft Learn,
/// concept-condition-filters-for-devices.md): the rule read in the syntax of dynamic membership
/// rules, over the device's Entra object; "for a device that is unregistered with Microsoft Entra
/// ID, all device properties are considered as null values", so a positive operator never
/// matches it and a negative one always does ("Policy behavior with filter for devices");
/// extensionAttributes1–15 have a value only on a device Intune manages, a compliant or a hybrid
/// joined one; include mode takes the devices the rule matches, exclude mode the others.
@Suite struct DeviceFilterTests {
    static func device(enrolled: Bool = true, compliant: Bool? = true, registered: Bool? = nil, trust: String? = nil,
                       ownership: String? = nil, attributes: [String: String] = [:]) -> DeviceFacts {
        var d = DeviceFacts(mdmEnrolled: enrolled, model: "iPhone15,2")
        d.compliant = compliant
        d.entra = EntraDeviceFacts(registered: registered, trustType: trust, ownership: ownership, attributes: attributes)
        return d
    }

    static let saw = device(attributes: ["extensionattribute1": "SAW"])
    static let unregistered = device(enrolled: false, compliant: nil)
    static let registeredOnly = device(enrolled: false, compliant: nil, registered: true, attributes: ["extensionattribute1": "SAW"])
    static let company = device(ownership: "Company")

    /// The table of "Policy behavior with filter for devices", one row per registration state and
    /// operator kind, plus the properties a rule most often reads.
    @Test(arguments: [
        // Positive operators on an unregistered device: no match; negative ones: a match.
        ("device.model -startsWith \"iPhone\"", unregistered, false),
        ("device.model -notStartsWith \"iPhone\"", unregistered, true),
        ("device.extensionAttribute1 -eq \"SAW\"", unregistered, false),
        ("device.extensionAttribute1 -ne \"SAW\"", unregistered, true),
        // A registered device: the criteria decide.
        ("device.model -startsWith \"iphone\"", saw, true),
        ("device.operatingSystem -eq \"iOS\" -and device.operatingSystemVersion -startsWith \"18.\"", saw, true),
        ("device.isCompliant -eq True", saw, true),
        ("device.isCompliant -eq \"False\"", saw, false),
        ("device.trustType -eq \"Workplace\"", saw, true),
        ("device.trustType -eq \"ServerAD\"", saw, false),
        ("device.deviceOwnership -eq \"Company\"", company, true),
        ("device.deviceOwnership -eq \"Company\"", saw, false),
        ("device.manufacturer -in [\"Apple\", \"Samsung\"]", saw, true),
        ("device.mdmAppId -eq \"0000000a-0000-0000-c000-000000000000\"", saw, true),
        // Extension attributes: on an Intune-managed device, yes; registered but neither managed,
        // compliant nor hybrid joined, the value is not available.
        ("device.extensionAttribute1 -eq 'SAW'", saw, true),
        ("device.extensionAttribute1 -eq \u{2018}SAW\u{2019}", saw, true),
        ("device.extensionAttribute1 -eq \"SAW\"", registeredOnly, false),
        ("device.extensionAttribute1 -ne \"SAW\"", registeredOnly, true),
        // -and before -or, -not, parentheses.
        ("device.model -eq \"Pixel\" -and device.isCompliant -eq True -or device.trustType -eq \"Workplace\"", saw, true),
        ("device.model -eq \"Pixel\" -and (device.isCompliant -eq True -or device.trustType -eq \"Workplace\")", saw, false),
        ("-not (device.model -contains \"Pixel\")", saw, true),
        ("device.systemLabels -contains \"M365Managed\"", device(attributes: ["systemlabels": "AzureResource\nM365Managed"]), true),
        ("device.systemLabels -contains \"M365\"", device(attributes: ["systemlabels": "AzureResource\nM365Managed"]), false),
    ])
    func aRuleMatchesAsEntraReadsIt(_ rule: String, _ device: DeviceFacts, _ matches: Bool) throws {
        let include = try ConditionalAccessDeviceFilter(mode: .include, rule: rule, source: "t")
        let exclude = try ConditionalAccessDeviceFilter(mode: .exclude, rule: rule, source: "t")
        #expect(include.admits(device).admits == matches, "\(rule)")
        #expect(exclude.admits(device).admits == !matches, "\(rule)")
    }

    /// Learn's own scenario (Policy 2 of "Restrict access to privileged resources"): every admin
    /// blocked from Azure management except from a SAW — the SAW gets its token, a phone without
    /// the attribute is blocked, an unregistered one too.
    @Test func learnsPrivilegedWorkstationExampleBlocksAllButTheWorkstation() throws {
        var p = ConditionalAccessPolicy(name: "Block admins off SAW", includeUsers: ["All"], builtInControls: ["block"])
        p.deviceFilter = try ConditionalAccessDeviceFilter(mode: .exclude, rule: "device.extensionAttribute1 -eq \"SAW\"", source: "t")
        let other = Self.device()
        for (device, blocked) in [(Self.saw, false), (other, true), (Self.unregistered, true), (Self.registeredOnly, true)] {
            var fleet = World.fleet()
            fleet.device = device
            let v = Enforcer.token(for: World.alice, resource: "797f4846-ba00-4fd7-ba43-dac1f8f63013", app: fleet.app(World.mine)!,
                                   capabilities: ["protapp"], compliant: true, policies: [p], in: fleet).decision
            #expect((v.reason == .accessBlocked) == blocked, "\(device.entra) enrolled \(device.mdmEnrolled): \(v)")
        }
    }

    /// A property the persona does not state is judged as Entra judges one with no value, and
    /// the answer names it.
    @Test func anUnstatedPropertyIsNamed() throws {
        let f = try ConditionalAccessDeviceFilter(mode: .include, rule: "device.extensionAttribute3 -eq \"Kiosk\" -or device.deviceOwnership -eq \"Company\"", source: "t")
        let (admits, why) = f.admits(Self.device())
        #expect(!admits)
        #expect(why.contains("device.extensionAttribute3") && why.contains("device.deviceOwnership") && why.contains("not stated"), "\(why)")
    }

    /// Rules Entra refuses are refused at the column, naming what to write.
    @Test(arguments: [
        ("device.isCompliant -startsWith \"T\"", "takes -eq -ne"),
        ("device.trustType -eq \"Joined\"", "AzureAD"),
        ("device.colour -eq \"red\"", "not a property"),
        ("app.deviceModel -eq \"x\"", "not a device property"),
        ("device.model -match \"i.*\"", "not an operator"),
        ("device.model -in \"iPhone\"", "takes a list"),
        ("(device.model -eq \"a\"", "not closed"),
        ("device.model -eq \"a\" device.model -eq \"b\"", "after a complete rule"),
        (String(repeating: "(", count: 70) + "device.model -eq \"a\"" + String(repeating: ")", count: 70), "nested more than 64"),
        ("device.model -eq \"" + String(repeating: "a", count: 3100) + "\"", "at most 3072"),
        // Security issue 95, finding 3: counted as Entra counts (UTF-16 units), a letter with
        // thousands of combining marks — one Swift character — is past the limit, and so is a
        // rule of emoji whose 1,600 characters are 3,200 units.
        ("device.model -eq \"a" + String(repeating: "\u{301}", count: 20_000) + "\"", "is 20020 characters (UTF-16 code units"),
        ("device.model -eq \"" + String(repeating: "📱", count: 1_600) + "\"", "is 3219 characters (UTF-16 code units"),
    ])
    func aRuleEntraRefusesIsAnErrorAtItsColumn(_ rule: String, _ says: String) {
        #expect(throws: FilterRuleError.self) { try ConditionalAccessDeviceFilter(mode: .include, rule: rule, source: "t") }
        do {
            _ = try ConditionalAccessDeviceFilter(mode: .include, rule: rule, source: "t")
        } catch {
            #expect(error.description.contains(says), "\(error)")
        }
    }

    /// The Graph document's `conditions.devices` is read: the filter, and the deprecated device
    /// states; no longer judged "as if matched".
    @Test func graphsDeviceConditionIsRead() throws {
        let json = """
        {"displayName": "Require SAW", "state": "enabled",
         "conditions": {"users": {"includeUsers": ["All"]}, "applications": {"includeApplications": ["All"]},
                        "devices": {"deviceFilter": {"mode": "include", "rule": "device.trustType -ne \\"ServerAD\\""}}},
         "grantControls": {"operator": "OR", "builtInControls": ["block"]}}
        """
        let (policies, warnings) = try GraphConditionalAccessImporter.importPolicies(Array(json.utf8), source: "ca.json")
        #expect(policies[0].deviceFilter?.mode == .include && policies[0].notSimulated.isEmpty)
        #expect(!warnings.contains { $0.description.contains("devices") }, "\(warnings)")
        // A negative operator takes in an unregistered device: Learn's row "negative operators,
        // unregistered device: Yes".
        #expect(policies[0].admits(Self.unregistered).admits)

        let bad = json.replacingOccurrences(of: "device.trustType -ne", with: "device.trustType -gt")
        #expect(throws: PolicyImportError.self) { try GraphConditionalAccessImporter.importPolicies(Array(bad.utf8), source: "ca.json") }

        var legacy = ConditionalAccessPolicy(name: "legacy", builtInControls: ["mfa"])
        legacy.excludeDeviceStates = ["Compliant"]
        #expect(!legacy.admits(Self.saw).admits && legacy.admits(Self.device(compliant: false)).admits)
    }
}
