import ProjectDescription
import ProjectDescriptionHelpers

let baseSettings: SettingsDictionary = [
    "PRODUCT_BUNDLE_IDENTIFIER": "com.example.whisperboard.keyboard",
    "MARKETING_VERSION": "2.1",
]

enum ExtensionKind {
    case keyboard

    var point: String {
        switch self {
        case .keyboard: return "com.apple.keyboard-service"
        }
    }
}

func appTarget(_ flavour: Flavour) -> Target {
    .target(
        name: "WhisperBoard" + flavour.suffix,
        destinations: .iOS,
        product: .app,
        bundleId: bundleId("WhisperBoard" + flavour.suffix),
        infoPlist: .extendingDefault(with: ["CFBundleDisplayName": .string("WhisperBoard \(flavour.rawValue)")]),
        sources: ["App/**"],
        dependencies: flavour == .stable ? [.target(name: "Keyboard")] : []
    )
}

let keyboard = Target.target(
    name: "Keyboard",
    destinations: .iOS,
    product: .appExtension,
    bundleId: "$(PRODUCT_BUNDLE_IDENTIFIER)",
    infoPlist: .extendingDefault(with: [
        "NSExtension": ["NSExtensionPointIdentifier": .string(ExtensionKind.keyboard.point),
                        "NSExtensionPrincipalClass": "$(PRODUCT_MODULE_NAME).KeyboardViewController"],
    ]),
    sources: ["Keyboard/**"],
    settings: .settings(base: baseSettings)
)

let project = Project(
    name: "WhisperBoard",
    targets: Flavour.allCases.map(appTarget) + [keyboard]
)
