// libFuzzer target: managed-app assignment filter rules (Microsoft Learn's rule language), parsed
// and evaluated: a rule is what an export or a pull request wrote.
import MAMPolicy
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFilter(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    if let rule = try? FilterRule.parse(text, source: "fuzz") {
        _ = rule.evaluate(ManagedAppFacts(managementType: "Unmanaged", appVersion: "1.0", operatingSystemVersion: "17.5", deviceModel: "iPhone15,2"))
    }
    return 0
}

@_cdecl("FuzzFilter_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzFilter(data, count) }
}
