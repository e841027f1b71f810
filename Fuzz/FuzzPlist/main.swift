// libFuzzer target: Info.plist and entitlements bytes, read as the linter and the host do.
import Foundation
import MAMBundle

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlist(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Data(bytes: data, count: count)
    _ = try? ExtensionManifest(infoPlist: bytes, source: "Info.plist")
    _ = try? Entitlements(data: bytes, source: "App.entitlements")
    return 0
}

// SwiftPM links an executable's entry as `<Module>_main`; libFuzzer's driver runs from it.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ test: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

@_cdecl("FuzzPlist_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return runFuzzerDriver(&argc, &argv) { data, count in fuzzPlist(data, count) }
}
