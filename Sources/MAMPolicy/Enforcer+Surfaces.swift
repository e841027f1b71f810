public import MAMModel

/// An OS surface an app's data can meet outside the app (SCENARIOS v1.4 `useSurface`).
public enum OSSurface: String, Sendable, Hashable, CaseIterable {
    case writingTools, genmoji, imagePlayground, askSiri, pictureInPicture, screenRecording, callKit, textViewLink
}

extension Enforcer {
    /// Whether the managed data `identity` shows in `app` may meet `surface` (RULES.md §7):
    /// Writing Tools by `writingToolsConfigurationState`; Genmoji and Image Playground (Apple
    /// Intelligence's image generation, our reading for Image Playground) by
    /// `genmojiConfigurationState`; "Ask Siri" about the screen, picture-in-picture and screen
    /// recording by `screenCaptureConfigurationState` (each `blocked` blocks it, `allowed` and
    /// `notConfigured` do not); a CallKit call by the dialer setting (anything short of
    /// `allApps` restricts calling, SDK 22.2); a text view's link menu by the managed-browser
    /// setting (SDK 21.8: it never opens an unmanaged browser). Unmanaged data meets them all.
    public static func useSurface(_ surface: OSSurface, as identity: Account?, app: BundleID, in fleet: Fleet) -> Verdict {
        guard let e = fleet.managedEntry(identity, in: app), let p = e.policy else {
            return .allowed("\(unmanagedReason(identity, in: app, fleet)): nothing restricts \(surface.rawValue)")
        }
        func state(_ s: FeatureConfigurationState, _ key: String, _ what: String) -> Verdict {
            s == .blocked
                ? .blocked(.featureRestricted, because: "\(e.subject) keeps its data from \(what) (\(key) = blocked)")
                : .allowed("\(e.subject) lets its data reach \(what) (\(key) = \(s.rawValue))")
        }
        switch surface {
        case .writingTools: return state(p.writingToolsConfigurationState, "writingToolsConfigurationState", "Writing Tools")
        case .genmoji: return state(p.genmojiConfigurationState, "genmojiConfigurationState", "Genmoji")
        case .imagePlayground: return state(p.genmojiConfigurationState, "genmojiConfigurationState", "Image Playground")
        case .askSiri: return state(p.screenCaptureConfigurationState, "screenCaptureConfigurationState", "\"Ask Siri\" about the screen")
        case .pictureInPicture: return state(p.screenCaptureConfigurationState, "screenCaptureConfigurationState", "picture-in-picture")
        case .screenRecording: return state(p.screenCaptureConfigurationState, "screenCaptureConfigurationState", "screen recording")
        case .callKit:
            return p.dialerRestrictionLevel == .allApps
                ? .allowed("\(e.subject) lets any app call (dialerRestrictionLevel = allApps)")
                : .blocked(.featureRestricted, because: "\(e.subject) restricts calling (dialerRestrictionLevel = \(p.dialerRestrictionLevel.rawValue)): a CallKit call from its data is blocked")
        case .textViewLink:
            return p.managedBrowserToOpenLinksRequired
                ? .blocked(.featureRestricted, because: "\(e.subject) opens links only in \(managedBrowserName(p)) (managedBrowserToOpenLinksRequired = true): a text view's link menu offers no other browser")
                : .allowed("\(e.subject) does not restrict web links (managedBrowserToOpenLinksRequired = false)")
        }
    }
}
