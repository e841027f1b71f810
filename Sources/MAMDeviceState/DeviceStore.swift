import Foundation
import GRDB

/// The SQLite database under the device directory (`<device-dir>/device.sqlite`) and its
/// schema, applied by migrations so an older device directory opens in a newer host.
///
/// WAL journal: a write is durable once its transaction commits, and a host killed with
/// SIGKILL loses nothing it committed (SQLite replays the WAL on the next open). Every
/// `DeviceState` mutation is one `write` transaction, committed before the method returns.
enum DeviceStore {
    static let fileName = "device.sqlite"

    static func open(at url: URL) throws -> DatabaseQueue {
        var config = Configuration()
        config.journalMode = .wal
        config.label = "mamsim.device"
        // Several tests (and a second host looking at a stopped device) may open the file
        // while another connection holds it; wait instead of failing at once.
        config.busyMode = .timeout(5)
        // In WAL mode NORMAL still survives a crash of the process (SIGKILL): a commit is in
        // the WAL file before the call returns. It skips the fsync per commit, which only
        // guards against the machine losing power — not a failure a simulated device has.
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let queue = try DatabaseQueue(path: url.path, configuration: config)
        try migrator.migrate(queue)
        return queue
    }

    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1: device state") { db in
            // Small device-wide values: clock, allowed accounts, device facts, enrolment.
            try db.execute(sql: """
                CREATE TABLE setting (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                CREATE TABLE account (
                    key TEXT PRIMARY KEY NOT NULL,      -- lowercased UPN, else lowercased OID
                    upn TEXT NOT NULL, oid TEXT NOT NULL, tenant TEXT NOT NULL,
                    disabled INTEGER NOT NULL DEFAULT 0);
                -- Policy targeting changed at run time; policy_key NULL = untargeted.
                CREATE TABLE policy_assignment (account_key TEXT PRIMARY KEY NOT NULL, policy_key TEXT);
                CREATE TABLE sign_in (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    app TEXT NOT NULL, account_key TEXT NOT NULL,
                    UNIQUE (app, account_key));
                -- identity NULL = unset (nil); '' = the unmanaged identity.
                CREATE TABLE process_identity (app TEXT PRIMARY KEY NOT NULL, identity TEXT);
                CREATE TABLE ui_identity (
                    app TEXT NOT NULL, window TEXT NOT NULL, identity TEXT,
                    PRIMARY KEY (app, window));
                CREATE TABLE file_owner (
                    path TEXT PRIMARY KEY NOT NULL,     -- relative to the device directory
                    container_kind TEXT NOT NULL,       -- 'sandbox' or 'group'
                    container_id TEXT NOT NULL,         -- folded bundle id or group id
                    writer TEXT NOT NULL,               -- folded bundle id of the app that wrote it
                    owner TEXT NOT NULL, owner_key TEXT NOT NULL,
                    encrypted INTEGER NOT NULL);
                CREATE INDEX file_owner_by_owner ON file_owner (owner_key);
                CREATE TABLE keychain_item (
                    access_group TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
                    owner TEXT NOT NULL, owner_key TEXT NOT NULL,
                    PRIMARY KEY (access_group, key));
                CREATE TABLE pin_state (account_key TEXT PRIMARY KEY NOT NULL, pin TEXT, failed_attempts INTEGER NOT NULL);
                -- Host-held data-protection keys; never sent to a child.
                CREATE TABLE encryption_key (account_key TEXT PRIMARY KEY NOT NULL, key BLOB NOT NULL);
                CREATE TABLE app_state (
                    app TEXT PRIMARY KEY NOT NULL, last_check_in REAL,
                    app_version TEXT, sdk_version TEXT);
                CREATE TABLE audit (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    time REAL NOT NULL, scenario TEXT NOT NULL, step TEXT NOT NULL, verb TEXT NOT NULL,
                    source_app TEXT NOT NULL, source_identity TEXT NOT NULL,
                    destination_app TEXT NOT NULL, destination_identity TEXT NOT NULL,
                    owner TEXT NOT NULL, decision TEXT NOT NULL, reason TEXT NOT NULL,
                    explanation TEXT NOT NULL);
                """)
        }
        m.registerMigration("v2: keychain item writer") { db in
            // The app that stored the item (an extension's containing app): a selective wipe
            // removes what the wiped app wrote, not what other apps keep in a shared group.
            // '' = stored before this column existed.
            try db.execute(sql: "ALTER TABLE keychain_item ADD COLUMN writer TEXT NOT NULL DEFAULT ''")
        }
        m.registerMigration("v3: app lifecycle") { db in
            // Why conditional launch blocked the app's access to org data at its last launch
            // or resume (NULL = not blocked).
            try db.execute(sql: "ALTER TABLE app_state ADD COLUMN access_blocked TEXT")
            // 0 = the policy targets the account but does not apply: another account was the
            // device's managed account when it was assigned (RULES.md §5).
            try db.execute(sql: "ALTER TABLE policy_assignment ADD COLUMN applied INTEGER NOT NULL DEFAULT 1")
        }
        m.registerMigration("v4: managed app declarations") { db in
            // DDM declarations with their asset data, and the keys and certificates the device
            // made for SCEP/ACME identities (and its simulated CA, asset "" ): sealed under
            // store.key, since they hold secrets.
            try db.execute(sql: """
                CREATE TABLE declaration (identifier TEXT PRIMARY KEY NOT NULL, body BLOB NOT NULL);
                CREATE TABLE generated_identity (asset TEXT PRIMARY KEY NOT NULL, key BLOB NOT NULL, certificate BLOB NOT NULL);
                """)
        }
        m.registerMigration("v5: audit without AUTOINCREMENT") { db in
            // The host inserts a row per decision; AUTOINCREMENT updated sqlite_sequence on
            // every one (about a fifth of an insert). Audit rows are never deleted, so the
            // plain rowid (the largest plus one) numbers them the same way.
            try db.execute(sql: """
                CREATE TABLE audit_v5 (
                    seq INTEGER PRIMARY KEY,
                    time REAL NOT NULL, scenario TEXT NOT NULL, step TEXT NOT NULL, verb TEXT NOT NULL,
                    source_app TEXT NOT NULL, source_identity TEXT NOT NULL,
                    destination_app TEXT NOT NULL, destination_identity TEXT NOT NULL,
                    owner TEXT NOT NULL, decision TEXT NOT NULL, reason TEXT NOT NULL,
                    explanation TEXT NOT NULL);
                INSERT INTO audit_v5 SELECT seq, time, scenario, step, verb, source_app, source_identity, destination_app,
                    destination_identity, owner, decision, reason, explanation FROM audit;
                DROP TABLE audit;
                ALTER TABLE audit_v5 RENAME TO audit;
                """)
        }
        m.registerMigration("v6: tenant keys apart from declared identities") { db in
            // The token service's signing keys lived in generated_identity as rows
            // `tenant:<id>`, beside the identities DDM declarations name: a declaration whose
            // identifier was `tenant:<id>` replaced the tenant's key and could sign its tokens.
            // Each row moves as it is, still sealed with the label it was sealed with.
            try db.execute(sql: """
                CREATE TABLE tenant_key (tenant TEXT PRIMARY KEY NOT NULL, key BLOB NOT NULL);
                INSERT INTO tenant_key SELECT substr(asset, 8), key FROM generated_identity WHERE asset LIKE 'tenant:%';
                DELETE FROM generated_identity WHERE asset LIKE 'tenant:%';
                """)
        }
        m.registerMigration("v7: PIN age and history") { db in
            // When the PIN was set (periodBeforePinReset) and the PINs it replaced, newest first,
            // as a JSON array (previousPinBlockCount). A PIN set before has no age: it never
            // expires.
            try db.execute(sql: """
                ALTER TABLE pin_state ADD COLUMN set_at REAL;
                ALTER TABLE pin_state ADD COLUMN previous TEXT NOT NULL DEFAULT '';
                """)
        }
        m.registerMigration("v8: windows that show several accounts") { db in
            // setUIPolicyAccountIds: the identities a window shows, as a JSON array, when it
            // shows more than one; `identity` stays the one that owns what it shows.
            try db.execute(sql: "ALTER TABLE ui_identity ADD COLUMN accounts TEXT")
        }
        m.registerMigration("v9: the enrollment lifecycle and the service's time") { db in
            try db.execute(sql: """
                -- Per app and account: registered (a failed enrollment the SDK tries again at
                -- retry_at) or enrolled; the last status the app's delegate got; the policy the
                -- app holds for the account (its key, NULL = none) and whether it holds one.
                CREATE TABLE enrollment (
                    app TEXT NOT NULL, account_key TEXT NOT NULL, state TEXT NOT NULL, status INTEGER NOT NULL,
                    since REAL NOT NULL, retry_at REAL, held_policy TEXT, holds INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (app, account_key));
                -- Every status an app's delegate received, in order: the report's timeline.
                CREATE TABLE enrollment_event (
                    time REAL NOT NULL, app TEXT NOT NULL, account TEXT NOT NULL, kind TEXT NOT NULL,
                    status INTEGER NOT NULL, via TEXT NOT NULL, detail TEXT NOT NULL);
                -- serviceFault: the next `remaining` calls of `call` answer `status`.
                CREATE TABLE service_fault (call TEXT PRIMARY KEY NOT NULL, status INTEGER NOT NULL, remaining INTEGER NOT NULL);
                -- Licence and assignment changes, visible to the service from visible_at on.
                CREATE TABLE license (account_key TEXT PRIMARY KEY NOT NULL, licensed INTEGER NOT NULL, previous INTEGER NOT NULL, visible_at REAL NOT NULL);
                CREATE TABLE assignment_change (account_key TEXT PRIMARY KEY NOT NULL, previous TEXT, visible_at REAL NOT NULL);
                -- An administrator's selective wipe the app has not checked in for yet.
                CREATE TABLE pending_wipe (app TEXT NOT NULL, account_key TEXT NOT NULL, PRIMARY KEY (app, account_key));
                """)
        }
        m.registerMigration("v10: a PIN per publisher, and its last access") { db in
            // RULES.md §8: the apps of one publisher (Apple team id, '' for apps that name none)
            // share the PIN; last_access starts the recheck window. A PIN kept before was the
            // device's one PIN: it stays the PIN of the apps that name no team.
            try db.execute(sql: """
                CREATE TABLE pin_by_publisher (
                    account_key TEXT NOT NULL, publisher TEXT NOT NULL DEFAULT '', pin TEXT, failed_attempts INTEGER NOT NULL,
                    set_at REAL, previous TEXT NOT NULL DEFAULT '', last_access REAL,
                    PRIMARY KEY (account_key, publisher));
                INSERT INTO pin_by_publisher (account_key, publisher, pin, failed_attempts, set_at, previous)
                    SELECT account_key, '', pin, failed_attempts, set_at, previous FROM pin_state;
                DROP TABLE pin_state;
                ALTER TABLE pin_by_publisher RENAME TO pin_state;
                """)
        }
        m.registerMigration("v11: the policy a conditional-launch block was decided under") { db in
            // `account_key` TAB the policy's catalogue key: a block stands while the app holds
            // that policy for that account; once it holds another (set at once, or received at
            // a check-in) the block came from a policy it no longer has (SCENARIOS.md v1.3).
            try db.execute(sql: "ALTER TABLE app_state ADD COLUMN access_blocked_under TEXT")
        }
        m.registerMigration("v12: accounts deregistered from an app") { db in
            // Per app (the enrollment owner: an extension's containing app) and account: the SDK
            // deregistered it — unenrolled, signed out, wiped by the admin. Its policy is not
            // active there until it enrolls or signs in again (Fleet.inactive).
            try db.execute(sql: "CREATE TABLE deregistered (app TEXT NOT NULL, account_key TEXT NOT NULL, PRIMARY KEY (app, account_key))")
            // A registered (refused) record the app's own enrollment call made: its policy is not
            // active until the SDK's retry succeeds. One a sign-in made keeps contract v1's
            // reading — a policy set by a step reaches the app at once (SCENARIOS.md v1.3).
            try db.execute(sql: "ALTER TABLE enrollment ADD COLUMN refused_by_call INTEGER NOT NULL DEFAULT 0")
        }
        return m
    }
}
