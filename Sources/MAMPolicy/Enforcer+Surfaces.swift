public import MAMModel

/// An OS surface an app's data can meet outside the app (SCENARIOS v1.4 `useSurface`).
public enum OSSurface: String, Sendable, Hashable, CaseIterable {
    case writingTools, genmoji, imagePlayground, askSiri, pictureInPicture, screenRecording, callKit, textViewLink
}

extension Enforcer {
    /// Whether the managed data `identity` shows in `app` may meet `surface` (RULES.md §7):
    /// Writing Tools by `writingToolsConfigurationState`; Genmoji and Image Playground (Apple
    /// Intelligence's image generation, our reading for Image Playground) by
    /// `genmojiConfigurationState` for Genmoji; Image Playground by the device's MDM restriction
    /// (`allowImagePlayground`: no app protection setting names it); "Ask Siri" about the
    /// screen, screen recording and picture-in-picture by the screen-capture rule
    /// (`screenCaptureRule`, the one `screenCapture` answers by; for picture-in-picture the
    /// answer says that capturing its content is what SDK 20.6.0 blocks); a CallKit call by the dialer setting (anything short of
    /// `allApps` restricts calling, SDK 22.2); a text view's link menu by the managed-browser
    /// setting (SDK 21.8: it never opens an unmanaged browser). Unmanaged data meets them all.
    /// A surface's answer from the screen-capture rule: its verdict, refused as a surface is
    /// (`feature-restricted`, SCENARIOS.md v1.4).
    public static func surfaceVerdict(_ capture: Verdict) -> Verdict {
        capture.isAllowed ? capture : .blocked(.featureRestricted, because: capture.explanation)
    }

    public static func useSurface(_ surface: OSSurface, as identity: Account?, app: BundleID, in fleet: Fleet) -> Verdict {
        // The device's restriction holds for every account's data.
        if surface == .imagePlayground, fleet.device.restrictions["allowImagePlayground"] == false {
            return .blocked(.featureRestricted, because: "the device's MDM restriction allowImagePlayground = false keeps Image Playground off; no app protection setting governs it")
        }
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
        case .imagePlayground:
            // No app protection setting names Image Playground (Graph has none; Apple's MDM
            // restricts it apart from Genmoji, `allowImagePlayground`): the device decides.
            return .allowed("no app protection setting governs Image Playground (\(e.subject) restricts Genmoji by genmojiConfigurationState, a separate feature), and the device does not restrict it (allowImagePlayground)")
        case .askSiri, .screenRecording:
            // One rule with `screenCapture` (`screenCaptureRule`).
            return surfaceVerdict(screenCaptureRule(for: identity, app: app, sdkVersion: fleet.app(app)?.sdkVersion, appConfigControl: nil, in: fleet))
        case .pictureInPicture:
            // By the screen-capture rule (SCENARIOS v1.4), and what it blocks said: SDK 20.6.0
            // blocks capturing picture-in-picture content, not picture-in-picture itself.
            let capture = screenCaptureRule(for: identity, app: app, sdkVersion: fleet.app(app)?.sdkVersion, appConfigControl: nil, in: fleet)
            return capture.isAllowed
                ? .allowed("picture-in-picture content may be captured (\(capture.explanation))")
                : .blocked(.featureRestricted, because: "screen capture within picture-in-picture is blocked (SDK 20.6.0): the surface's content cannot be captured — \(capture.explanation)")
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
