import MAMAdmin
import MAMModel
import MAMPolicy
import Testing

/// The mutants `mamsim mutate` makes (docs/MUTATE.md): an app configuration key moved to the
/// value that differs most, table by table; a policy's settings, one mutant each or one per
/// value with `--all-values`.
@Suite struct MutationTests {
    /// A key's value → the values it is moved to, the default mutant first.
    @Test(arguments: [
        ("true", ["false", nil, ""]),
        ("FALSE", ["true", nil, ""]),
        ("0", ["1", "-1", nil]),
        ("30", ["0", "1", "-1", nil]),
        ("1", ["0", "-1", nil]),
        ("north", [nil, "", "mamsim-mutant"]),
        ("", [nil, "mamsim-mutant"]),
        ("https://contoso.example/api", [nil, "", "mamsim-mutant"]),
    ] as [(String, [String?])])
    func aKeyMovesToTheValueThatDiffersMost(value: String, expected: [String?]) {
        #expect(AppConfigMutation.values(for: value) == expected)
    }

    @Test func eachKeyIsOneMutantOrOnePerValue() {
        let config = AppConfigPolicy(name: "c", settings: [KeyValuePair(name: "region", value: "north"), KeyValuePair(name: "offline", value: "true")])
        let one = AppConfigMutation.mutants(of: config)
        #expect(one.map(\.key) == ["region", "offline"])
        #expect(one[0].value == nil && one[0].config.settings == [KeyValuePair(name: "offline", value: "true")], "text: the key removed")
        #expect(one[1].value == "false" && one[1].config.settings.last == KeyValuePair(name: "offline", value: "false"), "a boolean: the other one")
        #expect(one[0].written == "(key removed)" && one[1].written == "\"false\"")
        let all = AppConfigMutation.mutants(of: config, allValues: true)
        #expect(all.count == 6 && Set(all.map(\.config.settings)).count == 6, "every value is its own mutant")
    }

    /// A policy: one mutant per setting some value changes, the value that changes the most
    /// decisions; with `allValues`, one per distinct policy a value makes, the default's among them.
    @Test func aPolicysSettingsAreOneMutantEachOrOnePerValue() {
        var policy = IosManagedAppProtection()
        policy.printBlocked = false
        policy.allowedOutboundDataTransferDestinations = .managedApps
        let only: Set<String> = ["printBlocked", "allowedOutboundDataTransferDestinations"]
        let rank: @Sendable (IosManagedAppProtection) -> Int = { p in p.allowedOutboundDataTransferDestinations == .allApps ? 5 : 1 }
        let (one, unchanged) = PolicyMutation.mutants(of: policy, only: only, rank: rank)
        #expect(unchanged.isEmpty)
        #expect(one.map(\.setting) == ["allowedOutboundDataTransferDestinations", "printBlocked"])
        #expect(one.first?.value == "\"allApps\"" && one.last?.value == "true", "\(one.map(\.value))")
        let (all, _) = PolicyMutation.mutants(of: policy, only: only, allValues: true, rank: rank)
        let outbound = all.filter { $0.setting == "allowedOutboundDataTransferDestinations" }.map(\.value)
        #expect(Set(outbound) == ["\"allApps\"", "\"none\""], "\(outbound)")
        #expect(all.filter { $0.setting == "printBlocked" }.map(\.value) == ["true"])
        for (i, m) in all.enumerated() { #expect(!all[..<i].contains { $0.policy == m.policy }, "no two mutants are the same policy") }
    }
}
