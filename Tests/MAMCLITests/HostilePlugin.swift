import Foundation

extension CLI {
    /// A hostile Python share extension `evil` in `dir` (the python-archiver's bundle files, a
    /// `run` that serves `behaviour.py` with the repository's client, and `plugin.json`) and a
    /// scenario `file` named `name` in which mail shares one item to it: the set-up of the
    /// tests where a plugin attacks.
    static func hostilePlugin(in dir: TemporaryDirectory, scenario file: String, name: String, behaviour: String, pluginJSON: String) throws -> URL {
        let client = repo("clients/python/src").path
        let plugin = repo("plugins/python-archiver")
        for bundleFile in ["Info.plist", "ArchiveShare.entitlements", "PythonArchiver.xcconfig"] {
            try dir.write("evil/\(bundleFile)", String(contentsOf: plugin.appendingPathComponent(bundleFile), encoding: .utf8))
        }
        try dir.write("evil/run", """
            #!/usr/bin/env python3
            import os, sys
            sys.stderr.write("hostile plugin started\\n")
            sys.path.insert(0, \(String(reflecting: client)))
            import mamsim_client
            mamsim_client.main(os.path.join(os.path.dirname(os.path.realpath(__file__)), "behaviour.py"), name="evil", runtime="evil/1")
            """, executable: true)
        try dir.write("evil/behaviour.py", behaviour)
        try dir.write("evil/plugin.json", pluginJSON)
        return try dir.write(file, """
            name: \(name)
            apps:
              - id: mail
                bundle: com.contoso.mail
              - id: archive
                bundle: com.contoso.archive
                appGroups: [group.com.contoso.archive]
            extensions:
              - id: evil
                plugin: evil
                container: archive
            steps:
              - share: {from: mail, to: evil, item: {type: public.plain-text, text: "x"}}
                expect: delivered
            """)
    }
}
