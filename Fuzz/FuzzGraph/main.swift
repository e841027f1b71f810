// libFuzzer target: Microsoft Graph policy documents (JSON, UTF-8 or UTF-16 exports).
import MAMPolicy
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGraph(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = try? GraphPolicyImporter.importPolicies(Array(UnsafeBufferPointer(start: data, count: count)), source: "fuzz.json")
    return 0
}

@_cdecl("FuzzGraph_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzGraph(data, count) }
}
