// swift-tools-version:6.1
import PackageDescription

// Children are spawned by the hundred, so their start-up cost matters: the app runtime links
// the Swift standard library statically (see docs/ARCHITECTURE.md, "Performance").
let staticStdlib: [LinkerSetting] = [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux]))]
// The built-in runtime starts once per simulated app: as a position-dependent executable the
// loader has no relocations to apply to it (measured: 286 → 218 page faults, 3.75 → 2.92 ms
// per start). Its address-space randomisation is what this gives up, in a test process.
let runtimeLinking: [LinkerSetting] = [.unsafeFlags(["-static-stdlib", "-Xlinker", "-no-pie"], .when(platforms: [.linux]))]

// As swift-subprocess: imports are internal unless marked `public import`, a member is visible
// only where its module is imported, and existential types are spelled `any`.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "mamsim",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "mamsim", targets: ["mamsim"]),
        .executable(name: "mamsim-app", targets: ["mamsim-app"]),
        .executable(name: "mamsim-confine", targets: ["mamsim-confine"]),
        .library(name: "MAMKit", targets: ["MAMKit"]),
        .library(name: "MAMManagedApp", targets: ["MAMManagedApp"]),
        .library(name: "MAMManagedAppFacade", targets: ["MAMManagedAppFacade"]),
        // Unofficial: the Intune App SDK's names and shapes over MAMKit (docs/FACADE.md).
        .library(name: "MAMIntuneFacade", targets: ["MAMIntuneFacade"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibUV", pkgConfig: "libuv",
            providers: [.apt(["libuv1-dev"]), .brew(["libuv"])]),
        .systemLibrary(
            name: "CProtobufC", pkgConfig: "libprotobuf-c",
            providers: [.apt(["libprotobuf-c-dev"]), .brew(["protobuf-c"])]),
        .target(name: "CMAMProto", dependencies: ["CProtobufC"]),

        .target(name: "MAMModel", swiftSettings: strict),
        .target(name: "MAMPolicy", dependencies: ["MAMModel"], swiftSettings: strict),
        // The admin's code: tenant exports beyond a policy (Microsoft365DSC, the backup tools'
        // folders), personas' evaluation (What If) and the diff of two policies — over the
        // device's `PolicyMatrix` and `Enforcer` (and MAMPolicy's Graph import, assignments and
        // filters, which a scenario reads too), so the offline answer and the simulated device
        // cannot disagree.
        .target(name: "MAMAdmin", dependencies: ["MAMModel", "MAMPolicy", "MAMActivation", "MAMBundle", "MAMDocument", .product(name: "Yams", package: "Yams")],
                swiftSettings: strict),
        // Reading the YAML and JSON documents users write (scenarios, personas, lint settings):
        // bounded composition, located problems with "did you mean", their one error type.
        .target(name: "MAMDocument", dependencies: ["MAMActivation", .product(name: "Yams", package: "Yams")], swiftSettings: strict),
        // Activation rules: the predicate and dictionary languages, UTIs, plist values.
        .target(name: "MAMActivation", swiftSettings: strict),
        // Reading an app or plugin bundle: Info.plist, entitlements, xcconfig, build settings.
        .target(name: "MAMBundle", dependencies: ["MAMActivation", "MAMModel"], swiftSettings: strict),
        // Tooling over bundles: the linter and the Intune configurator.
        .target(name: "MAMExtensions", dependencies: ["MAMActivation", "MAMBundle", "MAMDocument", "MAMModel", "MAMPolicy", .product(name: "Yams", package: "Yams"),
                                                      .product(name: "Crypto", package: "swift-crypto")], swiftSettings: strict),
        // Unofficial: Tuist's ProjectDescription names (docs/LINT.md, "Tuist"). Built here so that it
        // is checked with the rest; mamsim compiles its embedded copy (TuistDescriptionSource) as the
        // `ProjectDescription` a manifest imports, without the package's upcoming-feature flags.
        .target(name: "MAMTuistDescription"),
        // Apple Declarative Device Management: declarations, assets and credentials for the
        // ManagedApp framework (RULES.md §9).
        .target(
            name: "MAMDeclarations",
            dependencies: [
                "MAMModel", "MAMActivation", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ], swiftSettings: strict),
        .target(name: "MAMWire", dependencies: ["MAMModel", "CMAMProto", "CProtobufC"], swiftSettings: strict),
        .target(name: "MAMLoop", dependencies: ["MAMModel", "CLibUV", "CZygote"], swiftSettings: strict),
        // The app-process zygote's two ends (C: SCM_RIGHTS and a raw clone).
        .target(name: "CZygote"),
        .target(
            name: "MAMDevice",
            dependencies: ["MAMModel", "MAMPolicy", "MAMWire", "MAMLoop", "MAMDeviceState", "MAMDeclarations"], swiftSettings: strict),
        .target(
            name: "MAMDeviceState",
            dependencies: [
                "MAMModel", "MAMPolicy", "MAMDeclarations", "MAMLoop", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ], swiftSettings: strict),
        .target(
            name: "MAMScenario",
            dependencies: [
                "MAMModel", "MAMPolicy", "MAMAdmin", "MAMActivation", "MAMBundle", "MAMDocument", "MAMExtensions", "MAMDevice", "MAMDeviceState", "MAMWire",
                "MAMDeclarations", .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Yams", package: "Yams"),
            ], swiftSettings: strict),
        .target(name: "MAMKit", dependencies: ["MAMModel", "MAMWire", "MAMLoop"], swiftSettings: strict),
        .target(name: "MAMIntuneFacade", dependencies: ["MAMKit", "MAMModel", "MAMWire"], swiftSettings: strict),
        .executableTarget(
            name: "mamsim",
            dependencies: [
                "MAMModel", "MAMPolicy", "MAMAdmin", "MAMDevice", "MAMWire", "MAMLoop", "MAMActivation", "MAMBundle", "MAMDocument", "MAMExtensions", "MAMScenario",
                "MAMDeviceState", "MAMKit", "MAMIntuneFacade", "MAMPlayedHost",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
            ], swiftSettings: strict),
        // Starts a child under Landlock (C: it runs before the child's program and must stay tiny).
        .target(name: "CConfine"),
        .executableTarget(name: "mamsim-confine", dependencies: ["CConfine"]),
        .executableTarget(name: "mamsim-app", dependencies: ["MAMKit", "MAMLoop", "CConfine", "CZygote"], swiftSettings: strict, linkerSettings: runtimeLinking),
        // Apple's ManagedApp framework for simulated apps (Foundation's property-list decoder).
        .target(name: "MAMManagedApp", dependencies: ["MAMKit", "MAMModel", "MAMWire"], swiftSettings: strict),
        // The host played over a socket pair, shared by the app side's tests and benches.
        .target(name: "MAMPlayedHost", dependencies: ["MAMModel", "MAMWire"], swiftSettings: strict),
        // Apple's ManagedApp names and shapes, unofficial, for a team's own code (docs/MANAGEDAPP.md).
        .target(name: "MAMManagedAppFacade", dependencies: ["MAMManagedApp", "MAMKit", "MAMModel", "MAMWire"], swiftSettings: strict),
        .executableTarget(name: "ExampleCAApp", dependencies: ["MAMKit", "MAMModel", "MAMWire"], swiftSettings: strict, linkerSettings: staticStdlib),
        .executableTarget(name: "ExampleLandmarksApp", dependencies: ["MAMManagedApp", "MAMKit", "MAMModel", "MAMWire"], swiftSettings: strict),
        // An app written against MAMKit's async API (README "Writing an app"); the host tests run it.
        .executableTarget(name: "ExampleRelayApp", dependencies: ["MAMKit", "MAMModel"], swiftSettings: strict, linkerSettings: staticStdlib),
        // An app written against the SDK-shaped façade (docs/FACADE.md). It uses Foundation,
        // which a per-target -static-stdlib cannot link (CoreFoundation is left out):
        // `scripts/install` links it statically with the whole build's --static-swift-stdlib.
        .executableTarget(name: "FieldNotes", dependencies: ["MAMIntuneFacade", "MAMKit", "MAMModel", "MAMWire"], path: "plugins/field-notes/Sources/FieldNotes", swiftSettings: strict),
        .executableTarget(name: "NotesShareExtension", dependencies: ["MAMKit", "MAMModel", "MAMWire"], path: "plugins/share-to-notes/Sources/NotesShareExtension", swiftSettings: strict, linkerSettings: staticStdlib),

        .testTarget(
            name: "MAMDeclarationsTests",
            dependencies: ["MAMDeclarations", .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "X509", package: "swift-certificates")],
            swiftSettings: strict),
        // Writes the scripts tests run, closed on exec (Tests/MAMTestSupport/TestFile.swift says why).
        .target(name: "MAMTestSupport", path: "Tests/MAMTestSupport", swiftSettings: strict),
        // Counts heap allocations by interposing the allocator in the test binary (Linux/glibc).
        .target(name: "CAllocationCount", path: "Tests/CAllocationCount"),
        .testTarget(name: "MAMPolicyTests", dependencies: [
            "MAMPolicy", "MAMAdmin", "MAMModel", "CAllocationCount", .product(name: "PropertyBased", package: "swift-property-based"),
        ], swiftSettings: strict),
        // What If, the policy matrix's diff, the mutants and the exports' discovery (MAMAdmin).
        .testTarget(name: "MAMAdminTests", dependencies: ["MAMAdmin", "MAMDocument", "MAMPolicy", "MAMModel"], swiftSettings: strict),
        .testTarget(name: "MAMExtensionsTests", dependencies: ["MAMActivation", "MAMBundle", "MAMDocument", "MAMExtensions", "MAMModel", "MAMTuistDescription", .product(name: "Yams", package: "Yams")], exclude: ["Fixtures"], swiftSettings: strict),
        .testTarget(name: "MAMDeviceStateTests", dependencies: ["MAMDeviceState", "MAMModel", "MAMPolicy", "MAMKit", "MAMDeclarations", .product(name: "Crypto", package: "swift-crypto")], swiftSettings: strict),
        .testTarget(name: "MAMKitTests", dependencies: ["MAMKit", "MAMModel", "MAMWire", "MAMIntuneFacade", "MAMManagedAppFacade", "MAMPlayedHost"], swiftSettings: strict),
        .testTarget(
            name: "MAMScenarioTests", dependencies: ["MAMScenario", "MAMDocument", "MAMModel", "MAMPolicy", "MAMActivation", "MAMBundle", "MAMExtensions", "MAMDeclarations", "MAMDevice"],
            exclude: ["Fixtures"], swiftSettings: strict),
        // Runs the built binaries (`swift build --build-tests` builds every product); depending on
        // the executables would link their static-stdlib flags into the test bundle.
        .testTarget(name: "MAMCLITests", dependencies: ["MAMTestSupport"], swiftSettings: strict),
        .testTarget(name: "MAMWireTests", dependencies: ["MAMWire", "MAMModel", "CAllocationCount"], swiftSettings: strict),
        .testTarget(name: "MAMLoopTests", dependencies: ["MAMLoop", "MAMModel", "CAllocationCount"], swiftSettings: strict),
        .testTarget(name: "MAMDeviceTests", dependencies: ["MAMDevice", "MAMModel", "MAMWire", "MAMLoop", "MAMDeviceState", "MAMPolicy", "MAMTestSupport", "CAllocationCount"], swiftSettings: strict),
    ]
)

// Fuzz targets (libFuzzer), built only by `make fuzz` (MAMSIM_FUZZ=1, -sanitize=fuzzer): each
// defines LLVMFuzzerTestOneInput and has no main of its own.
if Context.environment["MAMSIM_FUZZ"] != nil {
    let fuzz: [(String, [Target.Dependency])] = [
        ("FuzzFrames", ["MAMWire", "MAMModel"]), ("FuzzPredicate", ["MAMActivation"]),
        ("FuzzPlist", ["MAMBundle"]), ("FuzzGraph", ["MAMPolicy"]), ("FuzzScenario", ["MAMScenario"]),
        ("FuzzDeclarations", ["MAMDeclarations"]), ("FuzzFilter", ["MAMPolicy"]), ("FuzzDSC", ["MAMPolicy", "MAMAdmin"]),
        ("FuzzPersonas", ["MAMAdmin"]), ("FuzzGraphKeys", ["MAMPolicy"]), ("FuzzTuist", ["MAMExtensions"]),
    ]
    package.targets.append(.target(name: "FuzzSupport", path: "Fuzz/FuzzSupport"))
    for (name, deps) in fuzz {
        package.targets.append(.executableTarget(
            name: name, dependencies: deps + ["FuzzSupport"], path: "Fuzz/\(name)",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
        package.products.append(.executable(name: name, targets: [name]))
    }
}
