import MAMDeclarations
import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire
import Foundation

/// `managed_config`: the ManagedApp framework's configuration of the app (its declaration's
/// `AppConfig.DataAssetReference`), or the legacy managed app configuration
/// (`LegacyAppConfigAssetReference`). What cannot be read as a property list reaches the app
/// as nil, and the administrator's log says why.
enum ManagedConfigHandler: ServiceHandler {
    static func audit(_ call: Service.ManagedConfig) -> AuditPlan { .refusalsOnly(.managedConfigCall) }

    static func answer(_ call: Service.ManagedConfig, _ c: CallContext) throws -> Answered<[UInt8]> {
        let bundle = c.bundle
        if call.legacy {
            switch try c.state.legacyManagedConfiguration(app: bundle) {
            case .failure(let why): return Answered(.allowed("no legacy managed configuration: \(why)"))
            case .success(nil):
                return Answered(.allowed("\(bundle)'s declaration names no legacy configuration (LegacyAppConfigAssetReference)"))
            case .success(let plist?):
                guard isPropertyList(plist) else {
                    c.audit.record(verb: .managedConfig, source: c.app.handle, decision: .failed, reason: .badRequest,
                                   explanation: "the legacy configuration asset of \(bundle) is not a property list; the app reads nothing")
                    return Answered(.allowed("\(bundle)'s legacy configuration is not a property list: the app reads nothing"))
                }
                return Answered(.allowed("\(bundle)'s legacy managed configuration (\(plist.count) bytes)"), plist)
            }
        }
        switch try c.state.managedAppContent(app: bundle) {
        case .failure(let why): return Answered(.allowed("no managed configuration: \(why)"))
        case .success(let content):
            guard let plist = content.configuration else {
                return Answered(.allowed("\(bundle) is managed, but its declaration gives it no configuration (AppConfig.DataAssetReference)"))
            }
            guard isPropertyList(plist) else {
                c.audit.record(verb: .managedConfig, source: c.app.handle, decision: .failed, reason: .badRequest,
                               explanation: "the configuration asset of \(bundle) is not a property list; the app receives nil")
                return Answered(.allowed("\(bundle)'s configuration cannot be decoded (not a property list): the app receives nil"))
            }
            return Answered(.allowed("\(bundle)'s managed configuration (\(plist.count) bytes)"), plist)
        }
    }

    private static func isPropertyList(_ bytes: [UInt8]) -> Bool {
        (try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil)) != nil
    }
}
