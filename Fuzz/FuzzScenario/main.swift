// libFuzzer target: scenario files (YAML or JSON) through the loader, errors and all.
import Foundation
import MAMScenario
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScenario(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    // A folder that does not exist: file references resolve against it and fail cleanly.
    _ = try? ScenarioLoader.load(text: text, file: URL(fileURLWithPath: "/nonexistent/mamsim-fuzz/scenario.yaml"))
    return 0
}

@_cdecl("FuzzScenario_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzScenario(data, count) }
}
