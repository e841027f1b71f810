// libFuzzer target: activation rule predicates, as found in a plugin's Info.plist.
import MAMActivation
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredicate(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    if let rule = try? ActivationRule(predicate: text, source: "fuzz") {
        _ = acceptsIntuneTypes(rule)
    }
    return 0
}

@_cdecl("FuzzPredicate_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzPredicate(data, count) }
}
