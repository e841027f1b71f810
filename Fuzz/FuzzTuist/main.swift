// libFuzzer target: the Tuist manifest reader (security issue 95): any text ends in a project
// or an error naming the manifest — never a crash, a hang or memory past libFuzzer's bound —
// and no target's name grows past the manifest and the bound on a filled string.
import MAMExtensions
import Foundation
import FuzzSupport

let manifest = URL(fileURLWithPath: "/fuzz/Project.swift")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTuist(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    do {
        let project = try TuistManifest.read(source: text, manifest: manifest)
        for target in project.targets {
            // A literal is at most the manifest; a filled one stops once past 4,096 scalars.
            precondition(target.name.unicodeScalars.count <= count + 4096, "a name of \(target.name.unicodeScalars.count) scalars from \(count) bytes")
        }
    } catch {
        precondition(error.file.hasPrefix(manifest.path), "an error naming another file: \(error.file)")
    }
    return 0
}

@_cdecl("FuzzTuist_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzTuist(data, count) }
}
