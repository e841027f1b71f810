import ArgumentParser
import Foundation
import MAMActivation
import MAMExtensions

/// `mamsim init --facade DIR`: a Swift package in which a team's own Intune code (files that
/// call the Intune App SDK's names, without UIKit) builds against MAMIntuneFacade and runs as a
/// fleet app: an `IntuneMAMSwift` module that re-exports the façade (marked unofficial), an
/// executable whose launch enrolls an account and reads its policy, and a scenario that runs it.
/// The scenario is in a folder of its own: an app may read its program's folder, and never a
/// folder that holds the scenario.
struct FacadePackage {
    /// The mamsim source the package depends on (a checkout with its Package.swift).
    let mamsim: URL
    let folder: URL

    /// The checkout this mamsim was built from, when it is still there.
    static var buildSource: URL? {
        // #filePath = <root>/Sources/mamsim/FacadePackage.swift
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) ? root : nil
    }

    /// The mamsim checkout as a path relative to the package's folder (both resolved).
    var relativeMamsimPath: String {
        ProjectLinter.path(mamsim.resolvingSymlinksInPath().standardizedFileURL.path, from: folder.resolvingSymlinksInPath().standardizedFileURL.path)
    }

    /// What is written, relative to `folder`, in order.
    var files: [(path: String, text: String)] {
        [
            ("Package.swift", packageText),
            ("Sources/IntuneMAMSwift/IntuneMAMSwift.swift", moduleText),
            ("Sources/FleetApp/main.swift", mainText),
            ("scenarios/fleet.yaml", scenarioText),
            ("README.md", readmeText),
        ]
    }

    func write(force: Bool) throws {
        let fm = FileManager.default
        for f in files where fm.fileExists(atPath: folder.appendingPathComponent(f.path).path) && !force {
            throw ValidationError("\(folder.appendingPathComponent(f.path).path) exists; name an empty folder, or pass --force to replace the files `init --facade` writes")
        }
        let root = OutputFile.defaultRoot(for: folder.standardizedFileURL)
        for f in files {
            try OutputFile.write(Data(f.text.utf8), to: folder.appendingPathComponent(f.path), within: root)
        }
    }

    var packageText: String {
        """
        // swift-tools-version:6.1
        // Written by `mamsim init --facade`: a test package in which this team's own Intune code runs
        // as an app of a mamsim fleet. IntuneMAMSwift here is UNOFFICIAL: it re-exports mamsim's
        // MAMIntuneFacade, which re-declares the names and shapes of the Intune App SDK for iOS so that
        // code calling them builds and is answered by the fleet's policies. It is not Microsoft's SDK.
        import Foundation
        import PackageDescription

        // The mamsim source checkout: MAMSIM_SOURCE in the environment, else where it was when this
        // package was written, relative to this folder (no machine's absolute path is kept here).
        let mamsimSource = Context.environment["MAMSIM_SOURCE"] ?? \(swiftLiteral(relativeMamsimPath))
        // SwiftPM names a path dependency after its folder.
        let mamsim = URL(fileURLWithPath: mamsimSource).standardizedFileURL.lastPathComponent.lowercased()

        let package = Package(
            name: "IntuneFleetTests",
            platforms: [.macOS(.v14)],
            dependencies: [
                .package(path: mamsimSource),
            ],
            targets: [
                .target(name: "IntuneMAMSwift", dependencies: [.product(name: "MAMIntuneFacade", package: mamsim)]),
                // Add your app's Intune files here (or symlink them): files that call only the SDK's
                // names build unchanged. Swift 5 mode, as most app code is.
                .executableTarget(
                    name: "FleetApp",
                    dependencies: ["IntuneMAMSwift", .product(name: "MAMKit", package: mamsim)],
                    swiftSettings: [.swiftLanguageMode(.v5)]),
            ]
        )

        """
    }

    var moduleText: String {
        """
        // UNOFFICIAL. Not Microsoft's Intune App SDK: this module re-exports mamsim's MAMIntuneFacade,
        // which re-declares the SDK's public names and shapes for tests, so that `import IntuneMAMSwift`
        // in a team's own files builds on Linux and is answered by a mamsim fleet.
        @_exported import MAMIntuneFacade

        """
    }

    var mainText: String {
        """
        // The fleet app's launch. MAMIntuneFacade.run makes the main thread the app's run loop (where
        // the SDK's delegates arrive) and runs this closure with the app connected to the mamsim host.
        // Replace the body with your app's own launch: enroll as your app does, then call your code.
        //   arguments: ACCOUNT
        import Foundation
        import IntuneMAMSwift
        import MAMKit

        /// Waits for the first enrollment status, as an app's enrollment delegate would hear it.
        final class EnrollmentWaiter: IntuneMAMEnrollmentDelegate, @unchecked Sendable {
            private let lock = NSLock()
            private var waiting: CheckedContinuation<IntuneMAMEnrollmentStatus, Never>?
            private var told: IntuneMAMEnrollmentStatus?

            func enrollmentRequest(with status: IntuneMAMEnrollmentStatus) {
                let c: CheckedContinuation<IntuneMAMEnrollmentStatus, Never>? = lock.withLock {
                    guard told == nil else { return nil }
                    told = status
                    defer { waiting = nil }
                    return waiting
                }
                c?.resume(returning: status)
            }

            func status() async -> IntuneMAMEnrollmentStatus {
                await withCheckedContinuation { c in
                    let already: IntuneMAMEnrollmentStatus? = lock.withLock {
                        if told == nil { waiting = c }
                        return told
                    }
                    if let already { c.resume(returning: already) }
                }
            }
        }

        let waiter = EnrollmentWaiter()
        MAMIntuneFacade.run(runtime: "FleetApp/1", finishesLaunching: true) { app in
            let account = CommandLine.arguments.dropFirst().first ?? ""
            IntuneMAMEnrollmentManager.instance().delegate = waiter
            // The first policy an account brings restarts the app (restartApplication, unless the
            // app's policy delegate restarts it itself): launched again, it finds the account
            // enrolled, as an app's launch code should check before enrolling.
            let enrolled = IntuneMAMEnrollmentManager.instance().enrolledAccountId()
            var accountId = enrolled ?? ""
            var said = "enrolled"
            if enrolled == nil {
                IntuneMAMEnrollmentManager.instance().loginAndEnrollAccount(account)
                let status = await waiter.status()
                // Enrolled with a first policy: the SDK ends this process and launches it again.
                if status.statusCode == .newPoliciesReceived {
                    for await _ in app.deliveries {}
                    return app.close()
                }
                (accountId, said) = (status.accountId, status.statusCode.name)
            }
            // The SDK's getters are synchronous: call them off the main thread, as here.
            let line = await Task.detached { [accountId, said] () -> String in
                let policy = IntuneMAMPolicyManager.instance().policy(forAccountId: accountId)
                let save = policy?.isSaveToAllowed(for: .localDrive, withAccountId: accountId) ?? true
                return "\\(said); save to local drive: \\(save ? "allowed" : "blocked")\\n"
            }.value
            _ = await app.writeFile("Documents/fleet-app.txt", Array(line.utf8), owner: "")
            app.finishedLaunching()
            for await _ in app.deliveries {}
            app.close()
        }

        """
    }

    var scenarioText: String {
        """
        name: "this team's Intune code, answered by a tenant's policy (mamsim init --facade)"
        # FleetApp (Sources/FleetApp) enrolls alice and asks her policy whether saving to the local
        # drive is allowed. Put your Graph export in `file:` and your own expectations below. Build
        # the app first with `swift build --static-swift-stdlib` (static: under mamsim's default-deny
        # sandbox it reads nothing outside its own folder).
        accounts:
          - upn: alice@contoso.com
            oid: 00000000-0000-4000-8000-0000000a11ce
            tenant: contoso.onmicrosoft.com
            policy: work
        policies:
          work:
            displayName: "Work: saving only to OneDrive for Business"
            saveAsBlocked: true
            allowedDataStorageLocations: [oneDriveForBusiness]
            apps: [com.contoso.fleetapp]
        apps:
          - id: fleetapp
            bundle: com.contoso.fleetapp
            keychainGroups: [com.contoso.fleetapp, com.microsoft.intune.mam]
            executable: ../.build/debug/FleetApp
            arguments: [alice@contoso.com]
            # The user signs in as alice when the app asks (loginAndEnrollAccount); for an
            # account the scenario does not name here or sign in, the user cancels.
            msalAccounts: [alice@contoso.com]
        steps:
          - name: "the app enrolled alice, was restarted by the SDK for her first policy, and reads it"
            readFile: {app: fleetapp, path: Documents/fleet-app.txt}
            expect: {text: "enrolled; save to local drive: blocked\\n"}
          - expectState: {app: fleetapp, enrollment: {alice@contoso.com: newPoliciesReceived}, notifications: [enrollmentStatus, restartApplication]}

        """
    }

    var readmeText: String {
        """
        # IntuneFleetTests

        Written by `mamsim init --facade`. **Unofficial:** `IntuneMAMSwift` in this package is mamsim's
        `MAMIntuneFacade` under the SDK's module name, not Microsoft's Intune App SDK.

        1. Put your app's Intune files in `Sources/FleetApp` (files that call the SDK's names and not
           UIKit), and make `main.swift` launch them.
        2. `swift build --static-swift-stdlib`
        3. `mamsim run scenarios/fleet.yaml`

        What the façade covers, and what it cannot intercept on Linux (`@objc`, `#selector`, UIKit):
        mamsim's docs/FACADE.md.

        """
    }

    private func swiftLiteral(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
