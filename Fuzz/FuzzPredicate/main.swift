// libFuzzer target: activation rule predicates, as found in a plugin's Info.plist.
import MAMActivation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredicate(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    if let rule = try? ActivationRule(predicate: text, source: "fuzz") {
        _ = acceptsIntuneTypes(rule)
    }
    return 0
}

// SwiftPM links an executable's entry as `<Module>_main`; libFuzzer's driver runs from it.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ test: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

@_cdecl("FuzzPredicate_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return runFuzzerDriver(&argc, &argv) { data, count in fuzzPredicate(data, count) }
}
