import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `read_file`: a file of the app's container, decrypted for the app.
enum ReadFileHandler: ServiceHandler {
    static func audit(_ call: Service.ReadFile) -> AuditPlan { .refusalsOnly(.readFile) }

    static func answer(_ call: Service.ReadFile, _ c: CallContext) throws -> Answered<[UInt8]> {
        Answered(.allowed("read \(call.path)"), try c.state.readFile(app: c.bundle, path: ContainerPath(parsing: call.path)))
    }
}
