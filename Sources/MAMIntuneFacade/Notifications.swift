public import Foundation

// The SDK's notification names and userInfo keys. Their string values are mamsim's own (the
// SDK publishes the names only); code compares them by name, never by value.

extension NSNotification.Name {
    public static let IntuneMAMPolicyDidChange = Notification.Name("IntuneMAMPolicyDidChangeNotification")
    public static let IntuneMAMAppConfigDidChange = Notification.Name("IntuneMAMAppConfigDidChangeNotification")
    public static let IntuneMAMAllowedAccountsDidChange = Notification.Name("IntuneMAMAllowedAccountsDidChangeNotification")
    public static let IntuneMAMWipeDidComplete = Notification.Name("IntuneMAMWipeDidCompleteNotification")
}

/// userInfo key of `IntuneMAMPolicyDidChange`: the account whose policy changed (its OID).
public let IntuneMAMPolicyDidChangeNotificationAccountId = "IntuneMAMPolicyDidChangeNotificationAccountId"
/// userInfo key of `IntuneMAMAppConfigDidChange`: the account whose configuration changed.
public let IntuneMAMAppConfigDidChangeNotificationAccountId = "IntuneMAMAppConfigDidChangeNotificationAccountId"
/// userInfo key naming the account an SDK lifecycle event is about.
public let IntuneMAMSDKLifecycleEventAccountId = "IntuneMAMSDKLifecycleEventAccountId"
