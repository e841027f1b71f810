// swift-tools-version:6.1
// An app written only against Apple's ManagedApp and Security names (the WWDC25 talk's
// Landmarks, seed 004), built against mamsim's unofficial façade: the two one-line shims below
// re-export MAMManagedAppFacade as `ManagedApp` and `Security`, as a team's test package would.
// They are not Apple's frameworks. scripts/managedapp-first-run builds this and runs its scenario.
import Foundation
import PackageDescription

// The mamsim checkout: MAMSIM_SOURCE, else the one this folder is in.
let mamsimSource = Context.environment["MAMSIM_SOURCE"] ?? "../.."
// SwiftPM names a path dependency after its folder.
let mamsim = URL(fileURLWithPath: mamsimSource, relativeTo: URL(fileURLWithPath: Context.packageDirectory + "/"))
    .standardizedFileURL.lastPathComponent.lowercased()

let package = Package(
    name: "ManagedAppWWDC",
    platforms: [.macOS(.v14)],
    dependencies: [.package(path: mamsimSource)],
    targets: [
        .target(name: "ManagedApp", dependencies: [.product(name: "MAMManagedAppFacade", package: mamsim)]),
        .target(name: "Security", dependencies: [.product(name: "MAMManagedAppFacade", package: mamsim)]),
        .executableTarget(name: "WWDCLandmarks", dependencies: ["ManagedApp", "Security"],
                          swiftSettings: [.swiftLanguageMode(.v5)]),
    ]
)
