import Foundation
@testable import MAMLoop
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Each end of a host↔child channel holds a fixed number of bytes unread, whatever the
/// machine's default (`net.core.wmem_default`): larger buffers made the broker up to 28 %
/// slower (`System.channelSendBuffer`).
@Suite struct ChannelBufferTests {
    static func sendBuffer(_ fd: Int32) -> Int32 {
        var size: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        #expect(getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, &length) == 0)
        return size
    }

    @Test func bothEndsOfAChannelHoldThePinnedSize() throws {
        #if os(Linux)
        let (a, b) = try System.socketPair()
        defer { System.close(a); System.close(b) }
        // Linux doubles what is asked, for its own bookkeeping. (The default, 208 KiB unless
        // tuned, is another size, so without the pin this fails on an untuned machine.)
        #expect(Self.sendBuffer(a) == 2 * System.channelSendBuffer)
        #expect(Self.sendBuffer(b) == 2 * System.channelSendBuffer)
        #endif
    }
}
