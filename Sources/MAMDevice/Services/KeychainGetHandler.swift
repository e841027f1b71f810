import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `keychain_get`: an item of one of the app's keychain access groups.
enum KeychainGetHandler: ServiceHandler {
    static func audit(_ call: Service.KeychainGet) -> AuditPlan { .decides(.keychainGet, target: "keychain \(call.group)") }

    static func answer(_ call: Service.KeychainGet, _ c: CallContext) throws -> Answered<Service.KeychainGet.Answer> {
        let r = try c.state.keychainGet(app: c.bundle, group: call.group.isEmpty ? nil : call.group, key: call.key)
        return Answered(KeychainSetHandler.verdict(r), (r.status, r.group ?? "", r.value ?? []))
    }
}
