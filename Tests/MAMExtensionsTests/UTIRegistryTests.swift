import Foundation
import MAMExtensions
import MAMActivation
import MAMBundle
import Testing

struct UTIRegistryTests {
    let types = UTIRegistry.system

    @Test func embeddedUTITableMatchesTheFixture() throws {
        let fixture = try Fixtures.text(Fixtures.shared.appendingPathComponent("fixtures/uti-hierarchy.tsv"))
        let fromFixture = try UTIRegistry(tsv: fixture)
        #expect(Set(types.identifiers) == Set(fromFixture.identifiers))
        #expect(types.identifiers.count == 80)
        for id in fromFixture.identifiers {
            #expect(types.declaration(for: id) == fromFixture.declaration(for: id), "stale embedded row for \(id): regenerate UTIHierarchyTable.generated.swift")
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var type: String, parent: String, conforms: Bool
        var testDescription: String { "\(type) \(conforms ? "⊑" : "⋢") \(parent)" }
    }

    @Test(arguments: [
        Case(type: "public.jpeg", parent: "public.jpeg", conforms: true),
        Case(type: "public.jpeg", parent: "public.image", conforms: true),
        Case(type: "public.jpeg", parent: "public.data", conforms: true),        // two steps
        Case(type: "public.jpeg", parent: "public.item", conforms: true),        // three steps
        Case(type: "public.jpeg", parent: "public.content", conforms: true),     // second parent of public.image
        Case(type: "com.apple.m4v-video", parent: "public.movie", conforms: true),
        Case(type: "public.file-url", parent: "public.url", conforms: true),
        Case(type: "public.url", parent: "public.file-url", conforms: false),    // not upwards-down
        Case(type: "public.image", parent: "public.jpeg", conforms: false),
        Case(type: "com.adobe.pdf", parent: "public.image", conforms: false),
        Case(type: "public.vcard", parent: "public.text", conforms: true),
        Case(type: "com.apple.pkpass", parent: "public.directory", conforms: true),
        Case(type: "PUBLIC.JPEG", parent: "Public.Image", conforms: true),       // case-insensitive
        Case(type: "org.example.unknown", parent: "public.data", conforms: false),
        Case(type: "org.example.unknown", parent: "ORG.EXAMPLE.UNKNOWN", conforms: true),
        // Intune twins: conform within the prefixed tree only (our reading, see UTIRegistry.conforms).
        Case(type: "com.microsoft.intune.mam.public.jpeg", parent: "com.microsoft.intune.mam.public.image", conforms: true),
        Case(type: "com.microsoft.intune.mam.public.jpeg", parent: "com.microsoft.intune.mam.public.data", conforms: true),
        Case(type: "com.microsoft.intune.mam.com.adobe.pdf", parent: "com.microsoft.intune.mam.public.data", conforms: true),
        Case(type: "com.microsoft.intune.mam.public.jpeg", parent: "public.image", conforms: false),
        Case(type: "com.microsoft.intune.mam.public.jpeg", parent: "public.data", conforms: false),
        Case(type: "public.jpeg", parent: "com.microsoft.intune.mam.public.jpeg", conforms: false),
    ])
    func conformanceIsReflexiveTransitiveAndCaseInsensitive(_ c: Case) {
        #expect(types.conforms(c.type, to: c.parent) == c.conforms)
    }

    @Test func filenameExtensionsFindTheirTypesPreferredFirst() {
        #expect(types.preferredType(forFilenameExtension: "pdf") == "com.adobe.pdf")
        #expect(types.preferredType(forFilenameExtension: ".JPG") == "public.jpeg")
        #expect(types.types(forFilenameExtension: "mp4") == ["public.mpeg-4", "public.mpeg-4-audio"])
        #expect(types.types(forFilenameExtension: "nope").isEmpty)
        #expect(types.declaration(for: "public.json")?.mimeTypes == ["application/json"])
    }

    @Test func noteInTheParentsColumnIsNotAParent() {
        let webpage = types.declaration(for: "com.apple.active-webpage")
        #expect(webpage?.conformsTo == [])
        #expect(types.conforms("public.heic", to: "public.heif-standard"))
    }

    @Test func pluginTypeDeclarationsExtendTheTree() throws {
        let plist: [String: Any] = [
            "UTExportedTypeDeclarations": [[
                "UTTypeIdentifier": "com.contoso.notes.note",
                "UTTypeConformsTo": ["public.json", "public.content"],
                "UTTypeTagSpecification": ["public.filename-extension": ["cnote"], "public.mime-type": "application/x-cnote"],
            ]],
            "UTImportedTypeDeclarations": [
                ["UTTypeIdentifier": "com.adobe.pdf", "UTTypeConformsTo": ["public.image"]],   // loses to the system's
                ["UTTypeIdentifier": "org.example.sheet", "UTTypeConformsTo": "public.spreadsheet",
                 "UTTypeTagSpecification": ["public.filename-extension": "xsheet"]],
            ],
        ]
        let extended = types.adding(declarationsFrom: plist)
        #expect(extended.conforms("com.contoso.notes.note", to: "public.text"))
        #expect(extended.conforms("com.contoso.notes.note", to: "public.data"))
        #expect(extended.preferredType(forFilenameExtension: "CNOTE") == "com.contoso.notes.note")
        #expect(extended.declaration(for: "com.contoso.notes.note")?.mimeTypes == ["application/x-cnote"])
        #expect(!extended.conforms("com.adobe.pdf", to: "public.image"))
        #expect(extended.conforms("org.example.sheet", to: "public.content"))
        #expect(extended.preferredType(forFilenameExtension: "xsheet") == "org.example.sheet")
        #expect(!types.conforms("com.contoso.notes.note", to: "public.text"), "the system tree is unchanged")
        // A declared Intune-prefixed type follows its declaration, not the mirror reading.
        let declared = types.adding(declarationsFrom: ["UTExportedTypeDeclarations": [[
            "UTTypeIdentifier": "com.microsoft.intune.mam.public.jpeg", "UTTypeConformsTo": ["public.data"]]]])
        #expect(declared.conforms("com.microsoft.intune.mam.public.jpeg", to: "public.data"))
        #expect(!declared.conforms("com.microsoft.intune.mam.public.jpeg", to: "com.microsoft.intune.mam.public.image"))
    }

    @Test func malformedTableLineIsReportedWithItsLineNumber() {
        let error = #expect(throws: UTIRegistryError.self) { try UTIRegistry(tsv: "uti\tparents\npublic.item\n\tpublic.data\n") }
        #expect(error?.line == 3)
    }
}
