// libFuzzer target: Info.plist and entitlements bytes, read as the linter and the host do.
import Foundation
import MAMBundle
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlist(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Data(bytes: data, count: count)
    _ = try? ExtensionManifest(infoPlist: bytes, source: "Info.plist")
    _ = try? Entitlements(data: bytes, source: "App.entitlements")
    return 0
}

@_cdecl("FuzzPlist_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzPlist(data, count) }
}
