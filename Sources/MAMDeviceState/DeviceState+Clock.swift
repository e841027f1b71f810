import GRDB
public import MAMModel
public import MAMPolicy

/// The simulated clock and the per-app facts conditional launch reads (RULES.md §8): last
/// check-in with the Intune service, app and SDK versions. MAMPolicy has no clock; the device
/// keeps this one so offline periods can be tested without waiting.
extension DeviceState {
    /// Sets the simulated clock.
    public func setClock(_ instant: Instant) throws {
        try writeStore { db in try Self.setSetting(db, "clock", String(instant.secondsSince1970)) }
        now = instant
    }

    /// Moves the simulated clock forward (e.g. `P2D` to test offline periods).
    public func advanceClock(by duration: ISODuration) throws {
        try setClock(now.advanced(by: duration))
    }

    /// Records that `app` checked in with the Intune service now (simulated clock); offline
    /// periods are measured from here.
    public func checkIn(app bundle: BundleID) throws {
        let app = try descriptor(bundle)
        try writeStore { db in
            try db.cachedStatement(sql: """
                INSERT INTO app_state (app, last_check_in) VALUES (?, ?)
                ON CONFLICT (app) DO UPDATE SET last_check_in = excluded.last_check_in
                """).execute(arguments: [app.bundleID.folded, now.secondsSince1970])
        }
    }

    /// The app's and its Intune SDK's versions, for conditional launch's minimum-version checks.
    public func setVersions(app bundle: BundleID, appVersion: Version?, sdkVersion: Version?) throws {
        let app = try descriptor(bundle)
        try writeStore { db in
            try db.execute(sql: """
                INSERT INTO app_state (app, app_version, sdk_version) VALUES (?, ?, ?)
                ON CONFLICT (app) DO UPDATE SET app_version = excluded.app_version, sdk_version = excluded.sdk_version
                """, arguments: [app.bundleID.folded, appVersion?.text, sdkVersion?.text])
        }
    }

    /// When `app` last checked in, `nil` when never.
    public func lastCheckIn(app bundle: BundleID) throws -> Instant? {
        try readStore { db in
            try Double.fetchOne(db, sql: "SELECT last_check_in FROM app_state WHERE app = ?", arguments: [bundle.folded])
        }.map(Instant.init(secondsSince1970:))
    }

    func launchFacts(app: AppDescriptor, account: Account, at time: Instant) throws -> LaunchFacts {
        let row = try readStore { db in
            try Row.fetchOne(db, sql: "SELECT last_check_in, app_version, sdk_version FROM app_state WHERE app = ?",
                             arguments: [app.bundleID.folded])
        }
        let last: Double? = row?["last_check_in"]
        let appVersion: String? = row?["app_version"]
        let sdkVersion: String? = row?["sdk_version"]
        // A version set at run time wins over the one the app was installed with.
        return LaunchFacts(now: time, lastCheckIn: last.map(Instant.init(secondsSince1970:)),
                           appVersion: (appVersion ?? app.shortVersion).flatMap(Version.init),
                           sdkVersion: (sdkVersion ?? app.sdkVersion).flatMap(Version.init),
                           accountDisabled: try isDisabled(account))
    }
}
