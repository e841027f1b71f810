// libFuzzer target: scenario files (YAML or JSON) through the loader, errors and all.
import Foundation
import MAMScenario

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScenario(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    // A folder that does not exist: file references resolve against it and fail cleanly.
    _ = try? ScenarioLoader.load(text: text, file: URL(fileURLWithPath: "/nonexistent/mamsim-fuzz/scenario.yaml"))
    return 0
}

// SwiftPM links an executable's entry as `<Module>_main`; libFuzzer's driver runs from it.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ test: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

@_cdecl("FuzzScenario_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return runFuzzerDriver(&argc, &argv) { data, count in fuzzScenario(data, count) }
}
