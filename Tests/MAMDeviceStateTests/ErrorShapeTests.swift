import Foundation
import MAMDeviceState
import MAMModel
import Testing

/// The state layer's one error shape keeps what caused a failure.
@Suite struct ErrorShapeTests {
    @Test func aWrappedErrorKeepsItsCauseAndComparesByReasonAndMessage() throws {
        let cause = CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: "/device/containers/x"])
        let wrapped = DeviceStateError.wrapping(cause, doing: "delete Documents/q3.txt while wiping")
        #expect(wrapped.reason == .internalError)
        #expect(wrapped.message.hasPrefix("the device could not delete Documents/q3.txt while wiping: "))
        let kept = try #require(wrapped.underlying as? CocoaError)
        #expect(kept.code == .fileWriteNoPermission)
        #expect(wrapped == DeviceStateError(.internalError, wrapped.message))
        // An error of this layer is passed on as it is, not wrapped again.
        let own = DeviceStateError(.unknownApp, "com.contoso.x is not installed")
        #expect(DeviceStateError.wrapping(own, doing: "anything") == own)
        #expect(DeviceStateError.wrapping(own, doing: "anything").underlying == nil)
    }
}
