import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `screen_capture`: whether the current identity's data may be captured (the policy and the
/// app configuration's screen capture key).
enum ScreenCaptureHandler: ServiceHandler {
    static func audit(_ call: Service.ScreenCapture) -> AuditPlan { .decides(.screenCapture) }
    static func acting(_ call: Service.ScreenCapture) -> Acting { .current }

    static func answer(_ call: Service.ScreenCapture, _ c: CallContext) throws -> Answered<Void> {
        let (who, app, configs) = (try c.current(), c.app.descriptor, c.state.appConfigPolicies)
        return Answered(try c.decision { Enforcer.screenCapture(as: who, in: app, policies: configs, fleet: $0) })
    }
}
