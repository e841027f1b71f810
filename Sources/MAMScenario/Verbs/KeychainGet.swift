import MAMDevice
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `keychainGet`: the app reads a keychain item from an access group.
struct KeychainGetStep: StepVerb {
    static let name = "keychainGet"
    static let since = "v1"
    static let summary = "reads a keychain value from an access group (the value is checked with expect: {value: ...})"
    static let example = "keychainGet: {app: notes, group: ABCDE12345.com.contoso.shared, key: token}"
    static let arguments: [VerbArgument] = [
        .app(), .optional("group", .text, nullable: false, "the keychain access group (absent, v1.2: every group the app belongs to, in order, as SecItemCopyMatching searches them)"),
        .required("key", .text, "the item's key"),
        .optional("value", .text, "accepted as the contract lists it; the value read is checked with expect"),
    ]
    static let outcomes: [OutcomeForm] = [.value, .blocked, .error]

    var app: String
    var group: String?
    var key: String
    var value: String?

    init(app: String, group: String?, key: String, value: String?) { (self.app, self.group, self.key, self.value) = (app, group, key, value) }
    init(_ a: VerbArgumentReader) { self.init(app: a.app(), group: a.optionalText("group"), key: a.text("key"), value: a.optionalText("value")) }

    var actingApp: String? { app }

    func run(_ run: StepRun) async -> StepOutcome {
        let r = await run.service(app, .keychainGet(group: group ?? "", key: key))
        return (StepRun.keychainObserved(r, success: .value(String(decoding: Service.KeychainGet.answer(from: r.value)?.value ?? [], as: UTF8.self))), r.verdict.explanation,
                "\(app) ← \(StepRun.keychainGroup(r, asked: group, how: "searched"))/\(key)")
    }
}
