// An example app written against MAMKit's async API, the way a team would write a simulated
// app of its own: it connects on fd 3, takes each item delivered to it from the
// `deliveries` sequence, and shares it on to the app named on its command line, as the
// account it received it as. The host decides every hop.
import MAMKit
import MAMModel
#if canImport(Glibc)
import Glibc
import MAMWire
#endif

@main
struct RelayApp {
    static func main() async {
        let target = CommandLine.arguments.dropFirst().first ?? "app0"
        let app: MAMApp
        do {
            app = try await MAMApp.connect(runtime: "ExampleRelayApp/1")
        } catch {
            report("ExampleRelayApp: \(error)")
            exit(2)
        }
        for await delivery in app.deliveries {
            var item = delivery.item
            item.id = "relayed-\(item.id)"
            // The owner is the host's to stamp; a child's claim would be ignored anyway.
            item.ownership = nil
            let outcome = await app.share(item, to: target, as: delivery.receivedAs)
            report("ExampleRelayApp \(app.bundleID): \(item.id) → \(target): \(outcome)")
        }
        app.close()
    }

    static func report(_ line: String) {
        var bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}
