import MAMLoop
@testable import MAMDevice
import MAMModel
import Testing

/// The callbacks a child's own pipe and process keep, and answers that may come after it ended,
/// reach it through its `ChildLink`: it names the child while the child lives and nothing once
/// the child is gone, so a late callback finds no child instead of a freed one.
@Suite struct ChildLinkTests {
    @Test func aLinkNamesItsChildUntilTheChildIsGone() throws {
        let loop = try EventLoop()
        let spec = AppSpec(handle: "app0", descriptor: AppDescriptor(bundleID: "com.contoso.app0"))
        var child: ChildConnection? = ChildConnection(spec: spec, pipe: try Pipe(loop: loop), maximumFrameSize: 1 << 20)
        let link = try #require(child?.link)
        #expect(link.child === child)
        #expect(link.child?.handle == "app0")
        child = nil
        #expect(link.child == nil)
        #expect(loop.close() == 0)
    }

    /// Each child has a link of its own: a later launch of the same app is not reached through
    /// the link of the one before it.
    @Test func aRelaunchedAppHasANewLink() throws {
        let loop = try EventLoop()
        let spec = AppSpec(handle: "app0", descriptor: AppDescriptor(bundleID: "com.contoso.app0"))
        var first: ChildConnection? = ChildConnection(spec: spec, pipe: try Pipe(loop: loop), maximumFrameSize: 1 << 20)
        let firstLink = try #require(first?.link)
        first = nil
        let second = ChildConnection(spec: spec, pipe: try Pipe(loop: loop), maximumFrameSize: 1 << 20)
        #expect(firstLink.child == nil)
        #expect(second.link !== firstLink)
        #expect(second.link.child === second)
        #expect(loop.close() == 0)
    }
}
