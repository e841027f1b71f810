import Foundation
import MAMPolicy
@testable import MAMScenario
import Testing
import MAMModel

/// Forms a person writes that are valid: empty sections, anchors, unquoted scalars.
@Suite struct LenientFormsTests {
    @Test func emptySectionsMeanDefaults() throws {
        let s = try ScenarioLoader.load(text: "name: empty\ndevice:\naccounts:\nsteps:\n", file: URL(fileURLWithPath: "e.yaml"))
        #expect(s.device == ScenarioDevice())
        #expect(s.accounts.isEmpty && s.steps.isEmpty)
        #expect(s.allowedAccounts == nil)
    }

    @Test func anchorsAndAliasesReuseAValue() throws {
        let s = try ScenarioLoader.load(text: """
            apps: [{id: a, bundle: com.x.a}, {id: c, bundle: com.x.c}]
            steps:
              - share: {from: a, to: c, item: &note {type: public.plain-text, text: hi}}
              - shareTargets: {from: a, item: *note}
            """, file: URL(fileURLWithPath: "a.yaml"))
        let note = ScenarioItem(type: "public.plain-text", content: .text("hi"))
        #expect(s.steps.map(\.arguments) == [.share(from: "a", to: "c", item: note, as: nil), .shareTargets(from: "a", item: note)])
    }

    @Test func deviceKeysSetTheFleetsFacts() throws {
        let s = try ScenarioLoader.load(text: """
            device:
              mdmEnrolled: true
              jailbroken: true
              osVersion: 17.5
              clock: 2026-03-01T12:00:00Z
              restrictions: {allowOpenFromManagedToUnmanaged: false}
              model: iPhone16,1
            """, file: URL(fileURLWithPath: "d.yaml"))
        #expect(s.fleet.device == DeviceFacts(mdmEnrolled: true, jailbroken: true, osVersion: Version("17.5")!,
                                              restrictions: ["allowOpenFromManagedToUnmanaged": false], model: "iPhone16,1"))
        #expect(s.device.clock == Instant(iso8601: "2026-03-01T12:00:00Z")!)
    }

    @Test func receivedEntriesAreTextsOrMappingsOfTheirFields() throws {
        let s = try ScenarioLoader.load(text: """
            accounts: [{upn: alice@contoso.com}]
            apps: [{id: a, bundle: com.x.a}, {id: b, bundle: com.x.b}]
            steps:
              - expectState: {app: b, received: ["hello", {text: "q3", type: public.plain-text, owner: ALICE@contoso.com, from: a}, {owner: ""}]}
            """, file: URL(fileURLWithPath: "r.yaml"))
        guard let step = s.steps[0].args.as(ExpectStateStep.self) else {
            Issue.record("expected expectState, got \(s.steps[0].args)")
            return
        }
        let state = step.state
        #expect(step.app == "b")
        #expect(state.received?.count == 3)
        #expect(state.received?[0] == ReceivedExpectation(text: "hello"))
        #expect(state.received?[1].text == "q3")
        #expect(state.received?[1].type == "public.plain-text")
        #expect(state.received?[1].owner?.upn == "alice@contoso.com")
        #expect(state.received?[1].from == "a")
        #expect(state.received?[2].owner?.isEmpty == true)
    }
}
