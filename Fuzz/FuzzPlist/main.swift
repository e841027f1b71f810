// libFuzzer target: Info.plist and entitlements bytes, read as the linter and the host do;
// the same bytes as an Xcode project file, an xcconfig and a preprocessed Info.plist.
import Foundation
import MAMBundle
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlist(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Data(bytes: data, count: count)
    _ = try? ExtensionManifest(infoPlist: bytes, source: "Info.plist")
    _ = try? Entitlements(data: bytes, source: "App.entitlements")
    if let project = try? XcodeProject(projectFile: bytes, url: URL(fileURLWithPath: "/nonexistent/Fuzz.xcodeproj")) {
        for target in project.targets {
            var problems: [XCConfig.LoadProblem] = []
            _ = project.settings(for: target, configuration: "Release", problems: &problems)
        }
    }
    let text = String(decoding: bytes, as: UTF8.self)
    _ = XCConfig(text: text)
    var preprocessor = InfoPlistPreprocessor(definitions: ["A": "1"], folder: URL(fileURLWithPath: "/nonexistent"))
    _ = preprocessor.process(text)
    return 0
}

@_cdecl("FuzzPlist_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzPlist(data, count) }
}
