import MAMModel

/// Hostile-input bounds on an item a child sends: its id, its type identifiers and its path,
/// checked before the item is routed.
enum ItemBounds {
    /// What is wrong with an item a child sends, or `nil`.
    static func problem(with item: Item) -> String? {
        if item.id.utf8.count > 256 { return "item id is longer than 256 bytes" }
        // One pass over the bytes where they lie (the view's iterator cost three times as
        // much); only an id with non-ASCII bytes asks Unicode's categories (C1 controls),
        // which costs more than the rest of the check on every share.
        let scan = item.id.utf8.withContiguousStorageIfAvailable(Self.scanID) ?? Array(item.id.utf8).withUnsafeBufferPointer(Self.scanID)
        var bad = scan.bad
        if !bad, !scan.ascii { bad = item.id.unicodeScalars.contains { $0.properties.generalCategory == .control } }
        if bad {
            return "item id \"\(item.id.prefix(40))\" contains a path separator, a control character or a leading dot"
        }
        if item.typeIdentifiers.count > 64 { return "item has \(item.typeIdentifiers.count) type identifiers (at most 64)" }
        if let t = item.typeIdentifiers.first(where: { $0.isEmpty || $0.utf8.count > 256 }) {
            return "type identifier \"\(t.prefix(40))\" is empty or longer than 256 bytes"
        }
        if item.filePath?.isEmpty == true { return "file item has an empty path" }
        return nil
    }

    /// Whether an id's bytes hold a leading dot, a path separator or an ASCII control
    /// character (`bad`), and whether they are all ASCII.
    private static func scanID(_ bytes: UnsafeBufferPointer<UInt8>) -> (bad: Bool, ascii: Bool) {
        if bytes.first == UInt8(ascii: ".") { return (true, true) }
        var ascii = true
        for byte in bytes {
            if byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") { return (true, ascii) }
            if byte >= 0x80 { ascii = false }
        }
        return (false, ascii)
    }
}
