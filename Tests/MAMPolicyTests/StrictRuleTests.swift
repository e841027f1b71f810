import MAMModel
import MAMPolicy
import Testing

/// Strict Mode as rules (docs/STRICT.md): one type per check in one registry, each saying who
/// judges it; the host's judgments are pure functions, tested table by table here.
@Suite("Strict Mode rules")
struct StrictRuleTests {
    @Test func everyCheckHasExactlyOneRuleAndTheHostsChecksAreTheRulesSay() {
        let registered: [String] = StrictRules.all.map { rule in rule.check.rawValue }.sorted()
        #expect(registered == StrictCheck.allCases.map(\.rawValue).sorted())
        let names: Set<String> = Set(StrictRules.all.map { rule in String(describing: rule) })
        #expect(names.count == StrictRules.all.count)
        for check in StrictCheck.allCases {
            let rule = check.rule
            let ruleCheck = rule.check
            #expect(ruleCheck == check)
            #expect(!check.summary.isEmpty)
            // A rule the host confirms has its judgment; one the app judges has none.
            let confirms = rule is any StrictHostConfirmedRule.Type
            let judge = check.judge
            #expect(confirms == (judge == .hostConfirms), "\(check)")
        }
        #expect(StrictCheck.allCases.filter(\.judgedByHost) == [.remediationWithoutProtapp, .processPolicyInMultiIdentity, .restartUnhandledWithState])
        #expect(StrictCheck.allCases.filter(\.madeByHost) == [.wipeAnsweredWithFilesLeft, .fileWrittenWithoutThreadIdentity, .itemSharedWithoutOwner, .itemIdentityMismatch])
        #expect(RemediationWithoutProtapp.capability == Enforcer.protectionCapability)
    }

    static let app = StrictAppFacts(bundle: "com.contoso.mail", multiIdentity: false, restoresState: false, clientCapabilities: [])

    @Test(arguments: [
        // rule, multi-identity, restores state, capabilities, a finding?
        ("remediation", false, false, [String](), true), ("remediation", false, false, ["PROTAPP"], false), ("remediation", true, true, ["cp1"], true),
        ("policy()", true, false, [], true), ("policy()", false, false, [], false),
        ("restart", false, false, [], true), ("restart", true, true, [], false),
    ])
    func theHostConfirmsFromTheAppsDeclarations(rule: String, multiIdentity: Bool, restoresState: Bool, capabilities: [String], finding: Bool) {
        let facts = StrictAppFacts(bundle: "com.contoso.mail", multiIdentity: multiIdentity, restoresState: restoresState, clientCapabilities: capabilities)
        let judged: any StrictHostConfirmedRule.Type = switch rule {
        case "remediation": RemediationWithoutProtapp.self
        case "policy()": ProcessPolicyInMultiIdentity.self
        default: RestartUnhandledWithState.self
        }
        let why = judged.noFinding(for: facts)
        #expect((why == nil) == finding, "\(rule): \(why ?? "a finding")")
        #expect(why.map { $0.hasPrefix("com.contoso.mail ") && $0.hasSuffix("no finding") } ?? true)
    }

    @Test(arguments: [
        // multi-identity, owner named, thread identity, shown (managed), filed as, a finding?
        (true, false, false, "alice@contoso.com" as String?, nil as String?, true),
        (true, false, false, "alice@contoso.com", "bob@contoso.com", true),
        (true, false, false, "alice@contoso.com", "ALICE@contoso.com", false),
        (true, true, false, "alice@contoso.com", nil, false),
        (true, false, true, "alice@contoso.com", nil, false),
        (false, false, false, "alice@contoso.com", nil, false),
        (true, false, false, nil, nil, false),
    ])
    func aWriteWithoutThreadIdentity(multiIdentity: Bool, ownerNamed: Bool, thread: Bool, shown: String?, filedAs: String?, finding: Bool) {
        let f = FileWrittenWithoutThreadIdentity.finding(path: "Documents/q3.txt", multiIdentity: multiIdentity, ownerNamed: ownerNamed,
                                                         threadIdentitySet: thread, shownManaged: shown, filedAs: filedAs)
        #expect((f != nil) == finding)
        if let f {
            #expect(f.check == "file-written-without-thread-identity" && f.call == "write_file Documents/q3.txt" && f.line == 0 && f.file.isEmpty)
            #expect(f.detail.contains("the file is \(filedAs.map { "\($0)'s" } ?? "personal")"))
        }
    }

    @Test(arguments: [
        // multi-identity, owner named, a file, shown (managed), a finding?
        (true, false, false, "alice@contoso.com" as String?, true),
        (true, true, false, "alice@contoso.com", false),
        (true, false, true, "alice@contoso.com", false),
        (false, false, false, "alice@contoso.com", false),
        (true, false, false, nil, false),
    ])
    func aShareWithoutOwner(multiIdentity: Bool, ownerNamed: Bool, isFile: Bool, shown: String?, finding: Bool) {
        let f = ItemSharedWithoutOwner.finding(target: "notes", multiIdentity: multiIdentity, ownerNamed: ownerNamed, isFile: isFile, shownManaged: shown)
        #expect((f != nil) == finding)
        #expect(f.map { $0.call == "share to notes" && $0.detail.hasPrefix("the screen shows alice@contoso.com ") } ?? true)
    }

    @Test func aWipeAnsweredWithFilesLeft() {
        #expect(WipeAnsweredWithFilesLeft.finding(account: "alice@contoso.com", appHandledWipe: false, filesLeft: ["a"]) == nil)
        #expect(WipeAnsweredWithFilesLeft.finding(account: "alice@contoso.com", appHandledWipe: true, filesLeft: []) == nil)
        let f = WipeAnsweredWithFilesLeft.finding(account: "alice@contoso.com", appHandledWipe: true, filesLeft: ["a", "b", "c", "d", "e"])
        #expect(f?.detail.hasPrefix("answered true (wiped) while 5 file(s) of alice@contoso.com remain: a, b, c and 2 more;") == true, "\(String(describing: f))")
        #expect(f?.call == "IntuneMAMPolicyDelegate.wipeData(forAccountId:)")
    }

    /// Android's INTENT_IDENTITY_MISMATCH on iOS: a file shared from another account's screen.
    @Test(arguments: [
        (true, true, "alice@contoso.com", "bob@outlook.com", true, true),
        (true, true, "alice@contoso.com", "ALICE@contoso.com", true, false),   // the same account
        (false, true, "alice@contoso.com", "bob@outlook.com", true, false),    // single-identity: one screen
        (true, false, "alice@contoso.com", "bob@outlook.com", true, false),    // inline data: item-shared-without-owner's
        (true, true, "bob@outlook.com", "carol@outlook.com", false, false),    // neither managed
        (true, true, nil, "alice@contoso.com", true, false),                   // a personal file
        (true, true, "alice@contoso.com", "", true, true),                     // the personal screen (UI identity "")
        (true, true, "bob@outlook.com", "", false, false),                     // a personal file, the personal screen
    ] as [(Bool, Bool, String?, String, Bool, Bool)])
    func aFileSharedFromAnotherAccountsScreen(multiIdentity: Bool, isFile: Bool, owner: String?, shown: String, managed: Bool, finding: Bool) {
        let f = ItemIdentityMismatch.finding(target: "notes", multiIdentity: multiIdentity, isFile: isFile, fileOwner: owner, shown: shown, eitherManaged: managed)
        #expect((f != nil) == finding)
        #expect(f.map { $0.call == "share to notes" && $0.file.isEmpty && $0.line == 0 } ?? true)
    }
}
