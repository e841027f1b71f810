import Foundation
import MAMModel
import MAMPolicy
import MAMAdmin

/// `mamsim whatif` at an admin's scale: Microsoft's level 1–3 templates assigned by group and
/// filter, a thousand personas over twenty apps, evaluated in memory (reading files and writing
/// the report aside). Twice: every persona a shape of its own (a model each), the slowest case;
/// and personas falling into a few shapes, as real ones do. The best of three, in milliseconds.
enum WhatIfBench {
    static let personas = 1_000
    static let apps = 20

    static func run() throws -> (distinct: Double, shared: Double) {
        let (policies, appList) = try tenant()
        let groups = [["Sales"], ["Sales", "Executives"], ["Sales", "Contractors"], []]
        func people(distinct: Bool) -> [WhatIfPersona] {
            (0..<personas).map { i in
                var device = DeviceFacts(mdmEnrolled: i % 3 == 0, osVersion: Version(["16.7", "17.5", "18.1"][i % 3])!)
                device.model = distinct ? "iPhone\(i),1" : "iPhone15,2"
                return WhatIfPersona(name: "p\(i)", user: Account(upn: "user\(i)@contoso.com"), member: DirectoryMembership(groups: groups[i % groups.count]),
                                     device: device, apps: appList)
            }
        }
        func best(_ list: [WhatIfPersona]) throws -> Double {
            let clock = ContinuousClock()
            var best = Duration.seconds(3_600)
            for _ in 0..<3 {
                var results: [WhatIfPersonaResult] = []
                best = min(best, clock.measure { results = WhatIf.evaluate(list, policies) })
                guard results.count == personas, results.allSatisfy({ $0.apps.count == apps }),
                      results.contains(where: { if case .conflict = $0.apps[0].protection { true } else { false } }) else {
                    throw BenchError(message: "whatif bench: the results are not a thousand personas' twenty apps with a conflict among them")
                }
            }
            return milliseconds(best)
        }
        return (try best(people(distinct: true)), try best(people(distinct: false)))
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1_000 + Double(d.components.attoseconds) / 1e15
    }

    /// A tenant's scale: 10,000 personas each of its own shape (groups, enrollment, OS
    /// version, model, risk, app versions all vary) over five apps, judged and written as the
    /// CLI writes them — a table, then JSON — a batch at a time; seconds for each and this
    /// process's peak resident size over the two, in MiB (its peak reset first).
    static func scale(count: Int = 10_000) throws -> (table: Double, json: Double, bytes: (table: Int, json: Int), peakMiB: Double) {
        let (policies, appList) = try tenant()
        let people = tenantPersonas(count: count, apps: appList)
        ProcessStats.resetPeak()
        let clock = ContinuousClock()
        var bytes = (table: 0, json: 0)
        let table = clock.measure {
            WhatIf.evaluate(people, policies, render: { r -> Int in var c = 0; return WhatIfReport.table(r, conflicts: &c).utf8.count + 1 }) { bytes.table += $0.reduce(0, +) }
        }
        let json = clock.measure {
            WhatIf.evaluate(people, policies, render: { WhatIfReport.json($0).utf8.count + 2 }) { bytes.json += $0.reduce(0, +) }
        }
        guard bytes.table > count * 100, bytes.json > bytes.table else { throw BenchError(message: "whatif bench: \(count) personas wrote \(bytes.table) bytes of table") }
        let peak = Double(ProcessStats.kibField("VmHWM:", of: "/proc/self/status") ?? 0) / 1024
        return (milliseconds(table) / 1000, milliseconds(json) / 1000, bytes, peak)
    }

    /// `count` personas each of its own shape (groups, enrollment, OS version, model, risk, app
    /// versions all vary) over five of `apps`.
    static func tenantPersonas(count: Int, apps appList: [WhatIfPersona.App]) -> [WhatIfPersona] {
        let few = Array(appList.prefix(4)) + [appList[apps - 1]]
        let groups = ["Sales", "Executives", "Contractors"]
        return (0..<count).map { i in
            var device = DeviceFacts(mdmEnrolled: i % 2 == 0, osVersion: Version("\(16 + i % 3).\(i % 8).\(i % 50)")!)
            device.model = ["iPhone15,2", "iPhone16,1", "iPhone14,5", "iPad13,4"][i % 4]
            var member = DirectoryMembership(groups: groups.indices.filter { (i >> $0) & 1 == 1 }.map { groups[$0] })
            member.signInRisk = ["none", "low", "high", nil][i % 4]
            var mine = few
            mine[0].version = "4.\(2400 + i % 97).0"
            return WhatIfPersona(name: "p\(i)", user: Account(upn: "user\(i)@contoso.com"), member: member, device: device, apps: mine)
        }
    }

    /// A Graph export of `policies` app protection policies (Microsoft's level 2 template, each
    /// with its apps and assignments, pretty-printed as Graph Explorer saves it) read as
    /// `whatif` reads a file; the best of three in milliseconds, and the export's size in MB.
    static func graphExport(policies count: Int = 10_000) throws -> (milliseconds: Double, megabytes: Double) {
        guard let level2 = Baselines.document(Baselines.names[1]),
              let template = try JSONSerialization.jsonObject(with: Data(level2.utf8)) as? [String: Any] else {
            throw BenchError(message: "whatif bench: the level 2 baseline does not read")
        }
        var items: [Any] = []
        for i in 0..<count {
            var p = template
            p["id"] = "T_\(String(format: "%08d", i))-0000-4000-8000-000000000000"
            p["displayName"] = "Level 2 copy \(i)"
            p["assignments"] = [["target": ["@odata.type": "#microsoft.graph.groupAssignmentTarget", "groupId": "g-\(i)"]]]
            items.append(p)
        }
        let data = try JSONSerialization.data(withJSONObject: ["value": items], options: [.prettyPrinted])
        let bytes = Array(data)
        let clock = ContinuousClock()
        var best = Duration.seconds(3_600)
        for _ in 0..<3 {
            var policies = WhatIfPolicies()
            best = min(best, try clock.measure { _ = try policies.add(document: bytes, source: "bench.json") })
            guard policies.protections.count == count else { throw BenchError(message: "whatif bench: \(count) policies written, \(policies.protections.count) read") }
        }
        return (milliseconds(best), Double(bytes.count) / 1e6)
    }

    /// Microsoft's level 1–3 templates assigned by group and filter, and twenty apps (nine of
    /// Microsoft's, the rest line-of-business, every fifth without the SDK).
    static func tenant() throws -> (WhatIfPolicies, [WhatIfPersona.App]) {
        var policies = WhatIfPolicies(groupNames: ["g-sales": "Sales", "g-exec": "Executives", "g-ext": "Contractors"])
        let assignments: [[PolicyAssignment]] = [
            [PolicyAssignment(.allLicensedUsers, filterId: "f-managed", filterMode: .include)],
            [PolicyAssignment(.group("g-sales"), filterId: "f-byod", filterMode: .include), PolicyAssignment(.exclusionGroup("g-ext"))],
            [PolicyAssignment(.group("g-exec"))],
        ]
        for (level, assigned) in zip(Baselines.names, assignments) {
            guard let document = Baselines.document(level),
                  var p = try GraphPolicyImporter.importPolicies(Array(document.utf8), source: level).policies.first else {
                throw BenchError(message: "whatif bench: baseline \(level) does not import")
            }
            p.assignments = assigned
            policies.protections.append(p)
        }
        policies.filters["f-byod"] = try AssignmentFilter(id: "f-byod", displayName: "BYOD", rule: "(app.deviceManagementType -eq \"Unmanaged\")")
        policies.filters["f-managed"] = try AssignmentFilter(id: "f-managed", displayName: "Enrolled", rule: "(app.deviceManagementType -eq \"Managed\")")
        let microsoft = ["com.microsoft.Office.Outlook", "com.microsoft.Office.Word", "com.microsoft.Office.Excel", "com.microsoft.Office.Powerpoint",
                         "com.microsoft.skype.teams", "com.microsoft.sharepoint", "com.microsoft.skydrive", "com.microsoft.onenote", "com.microsoft.msedge"]
        let appList = (0..<apps).map { i in
            i < microsoft.count ? WhatIfPersona.App(BundleID(microsoft[i]), version: "1.\(i)")
                : WhatIfPersona.App(BundleID("com.contoso.app\(i)"), version: "2.\(i)", sdkIntegrated: i % 5 != 0)
        }
        return (policies, appList)
    }

    /// A Microsoft365DSC export of `megabytes` MB — app protection blocks with their apps and
    /// assignments, and blocks of other resources between them — read as `whatif` reads a
    /// `.ps1`; the best of three, in milliseconds, and how many policies it held.
    static func dsc(megabytes: Int = 10) throws -> (milliseconds: Double, policies: Int) {
        var text = "Configuration M365TenantConfig\n{\n    Node localhost\n    {\n"
        var n = 0
        while text.utf8.count < megabytes * 1_000_000 {
            if n % 2 == 0 {
                text += """
                            IntuneAppProtectionPolicyiOS "IntuneAppProtectionPolicyiOS-p\(n)"
                            {
                                DisplayName                             = "p\(n)";
                                AllowedOutboundDataTransferDestinations = "managedApps";
                                PeriodOfflineBeforeAccessCheck          = "12:00:00";
                                Apps                                    = @("com.microsoft.Office.Outlook","com.microsoft.Office.Word");
                                Assignments                             = @("g-\(n)");
                                ExcludedGroups                          = @("g-ext");
                                Ensure                                  = "Present";
                                Credential                              = $Credscredential;
                            }

                    """
            } else {
                text += "        IntuneDeviceConfigurationPolicyiOS \"other-\(n)\"\n        {\n            DisplayName = \"other \(n)\";\n            Ensure = \"Present\";\n        }\n"
            }
            n += 1
        }
        text += "    }\n}\n"
        let clock = ContinuousClock()
        var best = Duration.seconds(3_600)
        var count = 0
        for _ in 0..<3 {
            var policies = WhatIfPolicies()
            best = min(best, try clock.measure { _ = try policies.add(dscExport: text, source: "bench.ps1") })
            count = policies.protections.count
        }
        guard count == (n + 1) / 2 else { throw BenchError(message: "whatif bench: the export held \((n + 1) / 2) policies, \(count) were read") }
        return (milliseconds(best), count)
    }
}
