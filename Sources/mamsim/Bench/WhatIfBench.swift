import MAMModel
import MAMPolicy

/// `mamsim whatif` at an admin's scale: Microsoft's level 1–3 templates assigned by group and
/// filter, a thousand personas over twenty apps, evaluated in memory (reading files and writing
/// the report aside). Twice: every persona a shape of its own (a model each), the slowest case;
/// and personas falling into a few shapes, as real ones do. The best of three, in milliseconds.
enum WhatIfBench {
    static let personas = 1_000
    static let apps = 20

    static func run() throws -> (distinct: Double, shared: Double) {
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
            return Double(best.components.seconds) * 1_000 + Double(best.components.attoseconds) / 1e15
        }
        return (try best(people(distinct: true)), try best(people(distinct: false)))
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
        return (Double(best.components.seconds) * 1_000 + Double(best.components.attoseconds) / 1e15, count)
    }
}
