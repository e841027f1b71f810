// libFuzzer target: the Graph JSON reader's duplicate keys (security issue 95). A document it
// takes holds no key twice in one object; the same document with one of its keys written again
// in front is refused, naming that key — never read as either value.
import MAMPolicy
import FuzzSupport

/// `s` as the inside of a JSON string.
func jsonEscaped(_ s: String) -> String {
    var out = ""
    for u in s.unicodeScalars {
        if u == "\"" || u == "\\" || u.value < 0x20 {
            let hex = String(u.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
            out.unicodeScalars.append(u)
        }
    }
    return out
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGraphKeys(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    guard let value = try? GraphValue.parse(bytes, source: "fuzz.json"), case .object(let members) = value,
          let key = members.keys.min(), let text = String(validating: bytes, as: UTF8.self),
          let brace = text.firstIndex(of: "{"), text[..<brace].allSatisfy({ $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }) else { return 0 }
    let doubled = "{\"" + jsonEscaped(key) + "\": null, " + text[text.index(after: brace)...]
    do {
        _ = try GraphValue.parse(Array(doubled.utf8), source: "fuzz.json")
        fatalError("a key written twice was read: \(key.debugDescription)")
    } catch {
        precondition(error.message.contains("is written twice in one object"), "refused for another reason: \(error.message)")
    }
    return 0
}

@_cdecl("FuzzGraphKeys_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzGraphKeys(data, count) }
}
