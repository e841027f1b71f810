// The one mamsim call (connecting to the device that plays iOS) and where the app shows what
// it found: files in its container's Documents/, which a scenario reads back.
import Foundation
import ManagedApp

enum Screen {
    /// Shows `text` as the screen `name` (Documents/NAME.txt of the app's container).
    static func show(_ name: String, _ text: String) {
        let container = ProcessInfo.processInfo.environment["MAMSIM_CONTAINER"] ?? FileManager.default.currentDirectoryPath
        let documents = URL(fileURLWithPath: container).appendingPathComponent("Documents")
        try? FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        try? Data(text.utf8).write(to: documents.appendingPathComponent(name + ".txt"), options: .atomic)
    }
}

ManagedAppFacade.run(runtime: "WWDCLandmarks/1", finishesLaunching: true) { app in
    await Landmarks.launch()
    app.finishedLaunching()
    for await _ in app.deliveries {}
    app.close()
}
