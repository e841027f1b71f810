import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `policy`: `policyForAccountId`'s whole policy in one answer, so the app reads its getters
/// without asking again. Each field is what its single call would answer (`policy_query`,
/// `can_save`/`can_open` with the policy's own account, `screen_capture`). A read, logged only
/// when refused, like the app configuration.
enum PolicyHandler: ServiceHandler {
    static func audit(_ call: Service.Policy) -> AuditPlan { .refusalsOnly(.policyQuery) }

    static func answer(_ call: Service.Policy, _ c: CallContext) throws -> Answered<PolicySummary> {
        let who = try call.as.map(c.named) ?? c.current()
        let fleet = try c.fleet()
        let view = Enforcer.policyReading(as: who, app: c.bundle, in: fleet)
        let capture = Enforcer.screenCapture(as: who, in: c.app.descriptor, policies: c.state.appConfigPolicies, fleet: fleet)
        let notification: UInt32 = switch view.notificationRestriction {
        case .allow: 0
        case .blockOrganizationalData: 1
        case .block: 2
        }
        let summary = PolicySummary(
            upn: who?.upn ?? "", oid: who?.oid ?? "", managed: view.managed, pinRequired: view.pinRequired,
            managedBrowserRequired: view.managedBrowserRequired, notificationPolicy: notification,
            contactSyncAllowed: !view.restricted.contains(.contactSync), widgetContentSyncAllowed: !view.restricted.contains(.widgets),
            spotlightIndexingAllowed: !view.restricted.contains(.spotlight), siriIntentsAllowed: !view.restricted.contains(.siriIntents),
            appIntentsAllowed: !view.restricted.contains(.appIntents), appSharingAllowed: !view.restricted.contains(.appSharing),
            documentPickerAllowed: !view.restricted.contains(.documentPicker), fileEncryptionRequired: view.restricted.contains(.fileEncryption),
            fileProviderEncryptionRequired: view.restricted.contains(.fileProviderEncryption), screenCaptureAllowed: capture.isAllowed,
            saveTo: UInt32(view.saveToMask), openFrom: UInt32(view.openFromMask),
            saveToOther: view.saveTo.contains(.other), openFromOther: view.openFrom.contains(.other))
        let whose = who.map { $0.isEmpty ? "the unmanaged identity" : $0.description } ?? "the unmanaged identity"
        return Answered(.allowed(view.managed ? "the policy of \(whose) in \(c.bundle)" : "\(whose) is not managed in \(c.bundle): nothing is restricted"), summary)
    }
}
