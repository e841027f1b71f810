import MAMModel

/// The SDK's names for a location differ from Graph's: a policy export says
/// `allowedDataStorageLocations: [localStorage, photoLibrary]`, and the SDK asks
/// `isSaveToAllowedForLocation:` with `LocalDrive` and `CameraRoll` (open: `LocalStorage`,
/// `PhotoLibrary` is `Photos`). A scenario may use either; the Graph spelling is read as the
/// SDK's with a warning that names it.
protocol GraphAliased {
    /// The value a Graph name stands for, and a note saying so.
    static func alias(_ name: String) -> (Any, String)?
}

extension SaveLocation: GraphAliased {
    static func alias(_ name: String) -> (Any, String)? {
        switch name.lowercased() {
        case "localstorage": (SaveLocation.localDrive, "Graph's name (allowedDataStorageLocations) for what the SDK's save calls localDrive")
        case "photolibrary": (SaveLocation.cameraRoll, "Graph's name (allowedDataStorageLocations) for what the SDK's save calls cameraRoll")
        default: nil
        }
    }
}

extension OpenLocation: GraphAliased {
    static func alias(_ name: String) -> (Any, String)? {
        switch name.lowercased() {
        case "photolibrary": (OpenLocation.photos, "Graph's name (allowedDataIngestionLocations) for what the SDK's open calls photos")
        case "localdrive": (OpenLocation.localStorage, "the save location's name; the SDK's open calls it localStorage")
        case "cameraroll": (OpenLocation.photos, "the save location's name; the SDK's open calls the photo library photos")
        default: nil
        }
    }
}
