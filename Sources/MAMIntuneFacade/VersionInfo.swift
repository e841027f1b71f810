import Foundation

/// The SDK's version, as `IntuneMAMVersionInfo.sdkVersion()` reports it: the release of the
/// Intune App SDK for iOS whose public interface this façade re-declares (Facade.swift).
open class IntuneMAMVersionInfo {
    public class func sdkVersion() -> String { "21.7.1" }
}
