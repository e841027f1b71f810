import Foundation
import MAMDocument
@testable import MAMScenario
import Testing

/// The verb registry is the single source the loader, the runner, the docs and the schema read:
/// every verb there is whole (names, arguments, outcomes, a working example), and the loader
/// holds each one to its own argument list.
@Suite struct VerbRegistryTests {
    /// A fleet every example can name: apps, accounts, a policy, an app configuration and a
    /// conditional access policy, in a file beside the shipped conformance scenarios (so
    /// `fixtures/ddm/...` resolves as it does for them).
    static func scenario(_ step: String) -> String {
        """
        accounts:
          - {upn: alice@contoso.com, policy: strict}
          - {upn: bob@outlook.com}
        policies:
          strict: {allowedOutboundDataTransferDestinations: managedApps}
        appConfigs:
          - {name: outlook, settings: {com.microsoft.outlook.Mail.FocusedInbox: true}}
        conditionalAccess:
          - {name: require-app-protection, users: [alice@contoso.com], grant: [compliantApplication]}
        apps:
          - {id: mail, bundle: com.contoso.mail}
          - {id: notes, bundle: com.contoso.notes}
        steps:
          - \(step)
        """
    }

    static let file = Fixtures.root.appendingPathComponent("../../../scenarios/conformance/registry-example.yaml").standardizedFileURL

    @Test func everyVerbIsWholeAndNamedOnce() {
        let names = Verb.allCases.map(\.rawValue)
        #expect(Set(names).count == names.count, "\(names)")
        for verb in Verb.allCases {
            let (name, summary, outcomes, since, example) = (verb.rawValue, verb.summary, verb.outcomes, verb.since, verb.example)
            let keys = verb.arguments.map(\.key)
            #expect(!summary.isEmpty && !outcomes.isEmpty, "\(name)")
            #expect(["v1", "v1.1", "v1.2", "v1.3", "v1.4", "mamsim"].contains(since), "\(name): \(since)")
            #expect(example.hasPrefix("\(name): {"), "\(name)'s example is a step of that verb: \(example)")
            #expect(Set(keys).count == keys.count, "\(name) lists an argument twice: \(keys)")
        }
    }

    @Test(arguments: Verb.allCases.map(\.rawValue))
    func theExampleLoadsAsTheVerb(_ name: String) throws {
        let verb = try #require(Verb(rawValue: name))
        let scenario = try ScenarioLoader.load(text: Self.scenario(verb.example), file: Self.file)
        #expect(scenario.steps.map(\.verb) == [verb])
    }

    @Test(arguments: Verb.allCases.map(\.rawValue))
    func aMissingRequiredArgumentIsNamed(_ name: String) throws {
        let verb = try #require(Verb(rawValue: name))
        for argument in verb.arguments where argument.required {
            let others = verb.arguments.filter { $0.required && $0.key != argument.key }
            let step = "\(name): {\(others.map { "\($0.key): \(Self.placeholder($0))" }.joined(separator: ", "))}"
            let error = #expect(throws: ScenarioError.self, "\(step)") { try ScenarioLoader.load(text: Self.scenario(step), file: Self.file) }
            #expect(error?.description.contains(argument.key) == true, "\(step): \(String(describing: error))")
        }
    }

    @Test func anArgumentAVerbDoesNotTakeIsRefusedWithTheOnesItDoes() {
        let error = #expect(throws: ScenarioError.self) { try ScenarioLoader.load(text: Self.scenario("print: {app: mail, via: airprint}"), file: Self.file) }
        #expect(error?.description.contains("via") == true && error?.description.contains("window") == true, "\(String(describing: error))")
    }

    /// A value of the argument's kind that the fleet above knows.
    static func placeholder(_ a: VerbArgument) -> String {
        switch a.kind {
        case .app: "mail"
        case .account: "alice@contoso.com"
        case .text: "x"
        case .bool: "true"
        case .choice(let words): words[0]
        case .duration: "PT1H"
        case .item: "{type: public.plain-text, text: x}"
        case .list: "[]"
        case .mapping: "{}"
        }
    }
}
