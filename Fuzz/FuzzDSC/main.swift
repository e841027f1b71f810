// libFuzzer target: Microsoft365DSC exports (`M365TenantConfig.ps1`), as whatif reads them.
import MAMPolicy
import MAMAdmin
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDSC(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    var policies = WhatIfPolicies()
    _ = try? policies.add(dscExport: String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self), source: "fuzz.ps1")
    return 0
}

@_cdecl("FuzzDSC_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzDSC(data, count) }
}
