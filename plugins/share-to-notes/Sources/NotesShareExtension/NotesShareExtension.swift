// The Notes share extension (plugins/share-to-notes): a real program on MAMKit's `AppChannel`.
// The host spawns it (through `run`) when an item is shared to it, sends each item in a
// `Deliver`, and says `Bye` when it has nothing left; it takes text and web links of at most
// 64 KiB and declines everything else, printing one line per item to stderr.
import MAMKit
import MAMModel
import MAMWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@main
struct ShareExtensionMain {
    static func main() {
        AppChannel.runProgram(runtime: "NotesShareExtension/2") { channel in
            channel.onDeliverLater = { deliver, accept in
                func decide(_ item: Item) {
                    let verdict = NotesPolicy.verdict(for: item)
                    report("\(verdict.accepted ? "accepted" : "declined") \(describe(deliver)): \(verdict.why)")
                    accept(verdict.accepted)
                }
                // A file arrives as a path in our Inbox: the host reads (and decrypts) it for us.
                guard case .file(let path) = deliver.item.payload else { return decide(deliver.item) }
                channel.call(Service.ReadFile(path: path)) { reply in
                    var item = deliver.item
                    guard let bytes = reply.allowedAnswer else {
                        report("declined \(describe(deliver)): cannot read \(path): \(reply.verdict.explanation)")
                        return accept(false)
                    }
                    item.payload = .inline(bytes)
                    decide(item)
                }
            }
            channel.onError = { code, message in report("the host reported \(code): \(message)") }
        }
    }

    static func describe(_ d: Deliver) -> String {
        let owner = d.item.ownership.map { $0.upn.isEmpty ? "unmanaged" : $0.upn } ?? "unmanaged"
        let size = NotesPolicy.size(of: d.item).map { "\($0) bytes" } ?? "unreadable file"
        return "item \(d.item.id) (\(d.item.typeIdentifiers.joined(separator: ",")), \(size), owner \(owner)) from \(d.senderBundleID)"
    }
}

/// What Notes keeps: plain text and web links, at most 64 KiB.
enum NotesPolicy {
    static let maximumSize = 64 * 1024
    static let intunePrefix = "com.microsoft.intune.mam."
    /// `public.text`, `public.plain-text` and the types below it in the UTI tree.
    static let textTypes: Set<String> = [
        "public.text", "public.plain-text", "public.utf8-plain-text", "public.utf16-plain-text",
        "public.utf16-external-plain-text", "public.source-code", "public.comma-separated-values-text",
        "public.tab-separated-values-text",
    ]
    /// Web links; a `public.file-url` is a document, not a link.
    static let urlTypes: Set<String> = ["public.url"]

    static func verdict(for item: Item) -> (accepted: Bool, why: String) {
        // Managed data may arrive under its com.microsoft.intune.mam. twin types.
        let types = item.typeIdentifiers.map { t in
            let lower = t.lowercased()
            return lower.hasPrefix(intunePrefix) ? String(lower.dropFirst(intunePrefix.count)) : lower
        }
        guard let size = size(of: item) else { return (false, "the file cannot be read") }
        guard size <= maximumSize else { return (false, "larger than 64 KiB") }
        if types.contains(where: textTypes.contains) { return (true, "text") }
        if types.contains(where: urlTypes.contains) { return (true, "web link") }
        return (false, "Notes keeps only text and web links")
    }

    static func size(of item: Item) -> Int? {
        switch item.payload {
        case .inline(let bytes): return bytes.count
        // Files are read through the host before a verdict; an unread one is not accepted.
        case .file: return nil
        }
    }
}

/// One line to stderr (C's `stderr` global is not concurrency-safe in Swift 6).
func report(_ line: String) {
    var bytes = Array("NotesShareExtension: \(line)\n".utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}
