import Foundation
import MAMModel
@testable import MAMScenario
import Testing

/// The files a program of its own writes in its `Documents/` without the services
/// (`DocumentsWatch`): each found once when written and again when changed, in nested
/// folders, never through a link a child planted, and never past the walk's bounds.
@Suite struct DocumentsWatchTests {
    let root: URL
    let documents: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("documents-watch-\(UUID().uuidString)")
        documents = root.appendingPathComponent("containers/com.contoso.field/Documents")
        try FileManager.default.createDirectory(at: documents.appendingPathComponent("notes"), withIntermediateDirectories: true)
    }

    func watch() -> DocumentsWatch {
        DocumentsWatch(watching: [.init(handle: "field", bundle: BundleID("com.contoso.field"), documents: documents)])
    }

    @Test func aFileIsFoundWhenWrittenAndAgainWhenChangedNotOtherwise() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        var watch = watch()
        #expect(watch.look().isEmpty)
        try Data("pump 4 leaks\n".utf8).write(to: documents.appendingPathComponent("notes/visit.txt"))
        try Data("a\n".utf8).write(to: documents.appendingPathComponent("report.txt"))
        #expect(watch.look().map(\.path) == ["Documents/notes/visit.txt", "Documents/report.txt"])
        #expect(watch.look().isEmpty, "unchanged: not found again")
        try Data("pump 4 leaks, fixed\n".utf8).write(to: documents.appendingPathComponent("notes/visit.txt"))
        let changed = watch.look()
        #expect(changed.map(\.path) == ["Documents/notes/visit.txt"] && changed.first?.handle == "field")
    }

    @Test func aLinkIsNotFollowedAndTheWalkIsBounded() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let outside = root.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: outside.appendingPathComponent("keys.txt"))
        try FileManager.default.createSymbolicLink(at: documents.appendingPathComponent("elsewhere"), withDestinationURL: outside)
        try FileManager.default.createSymbolicLink(at: documents.appendingPathComponent("loop"), withDestinationURL: documents)
        try FileManager.default.createSymbolicLink(at: documents.appendingPathComponent("keys.txt"), withDestinationURL: outside.appendingPathComponent("keys.txt"))
        var deep = documents
        for i in 0...DocumentsWatch.maximumDepth { deep = deep.appendingPathComponent("d\(i)") }
        try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: deep.appendingPathComponent("deep.txt"))
        var watch = watch()
        #expect(watch.look().isEmpty, "no link followed, nothing past the depth")
    }
}
