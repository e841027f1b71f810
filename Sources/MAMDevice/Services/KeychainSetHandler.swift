import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `keychain_set`: an item written in one of the app's keychain access groups (the first by
/// default), owned by the current identity.
enum KeychainSetHandler: ServiceHandler {
    static func audit(_ call: Service.KeychainSet) -> AuditPlan { .decides(.keychainSet, target: "keychain \(call.group)") }

    static func answer(_ call: Service.KeychainSet, _ c: CallContext) throws -> Answered<Service.KeychainSet.Answer> {
        let r = try c.state.keychainSet(app: c.bundle, group: call.group.isEmpty ? nil : call.group, key: call.key, value: call.value,
                                        owner: c.current()?.upn)
        return Answered(verdict(r), (r.status, r.group ?? "", []))
    }

    /// The policy's verdict; what iOS returns (`errSecItemNotFound`…) is the answer's status,
    /// and a group the app lacks the entitlement for is refused.
    static func verdict(_ r: KeychainResult) -> Verdict {
        if r.status == .missingEntitlement, r.decision.isAllowed {
            return .blocked(.keychainEntitlement, r.decision.explanation)
        }
        return r.decision
    }
}
