// libFuzzer target: what an MDM server sends for the ManagedApp framework — DDM declaration
// JSON (first byte even) and PKCS #12 identities with their password (first byte odd).
import Foundation
import FuzzSupport
import MAMDeclarations

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDeclarations(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: count - 1))
    if data[0] & 1 == 0 {
        // No asset file exists beside this path: an asset declaration stops at its DataURL.
        _ = try? DeclarationSet.parse(Data(bytes), at: URL(fileURLWithPath: "/nonexistent/fuzz.json"), shown: "fuzz.json")
    } else {
        _ = try? PKCS12Identity(bytes: bytes, password: "landmarks")
    }
    return 0
}

@_cdecl("FuzzDeclarations_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzDeclarations(data, count) }
}
