// libFuzzer target: whatif's personas files (YAML or JSON).
import Foundation
import MAMAdmin
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPersonas(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    _ = try? PersonaLoader.load(text: text, file: URL(fileURLWithPath: "/fuzz/personas.yaml"))
    return 0
}

@_cdecl("FuzzPersonas_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzPersonas(data, count) }
}
