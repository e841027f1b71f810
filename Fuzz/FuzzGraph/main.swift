// libFuzzer target: Microsoft Graph policy documents (JSON, UTF-8 or UTF-16 exports).
import MAMPolicy

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGraph(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = try? GraphPolicyImporter.importPolicies(Array(UnsafeBufferPointer(start: data, count: count)), source: "fuzz.json")
    return 0
}

// SwiftPM links an executable's entry as `<Module>_main`; libFuzzer's driver runs from it.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ test: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

@_cdecl("FuzzGraph_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return runFuzzerDriver(&argc, &argv) { data, count in fuzzGraph(data, count) }
}
