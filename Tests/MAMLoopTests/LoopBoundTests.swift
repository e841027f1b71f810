import Foundation
import Testing
@testable import MAMLoop

/// `LoopBound.value` is reached by the address it computes from the object's header and the
/// value's alignment: that address must be where the stored property lies, for every shape of
/// state, or a subclass would read and write another object's bytes.
@Suite struct LoopBoundTests {
    private struct Small { var flag = true }
    private struct Mixed { var a: UInt8 = 1; var b: UInt64 = 2; var c: String = "three"; var d: [Int] = [4] }
    private struct Wide { var v: SIMD16<UInt8> = .init(repeating: 9); var tail: UInt8 = 1 }
    private final class Subclass<V>: LoopBound<V> {
        let after: UInt64 = 0xABCD
    }

    private func check<V>(_ initial: V, change: (inout V) -> Void, same: (V, V) -> Bool) {
        let box = Subclass(initial)
        let computed = UnsafeRawPointer(box.address)
        let stored = withUnsafeMutablePointer(to: &box.storage) { UnsafeRawPointer($0) }
        #expect(computed == stored, "\(V.self): the value's address is not its stored property's")
        change(&box.value)
        #expect(same(box.storage, box.value), "\(V.self): a change through `value` is not the stored property's")
        #expect(box.after == 0xABCD, "\(V.self): the subclass's own property was written over")
    }

    @Test func theValueIsTheStoredPropertyWhateverItsShape() {
        check(Small(), change: { $0.flag = false }, same: { $0.flag == $1.flag && !$0.flag })
        check(Mixed(), change: { $0.c += "!"; $0.d.append(5); $0.b = 7 }, same: { (x: Mixed, y: Mixed) -> Bool in
            let strings = x.c == y.c && x.c == "three!"
            return strings && x.d == y.d && x.b == y.b
        })
        check(Wide(), change: { $0.v = .init(repeating: 3); $0.tail = 2 }, same: { $0.v == $1.v && $0.tail == $1.tail && $0.tail == 2 })
        check(UInt8(1), change: { $0 = 200 }, same: { $0 == $1 && $0 == 200 })
    }

    /// The thread check's answer: before its loop runs, any thread may set an object up; once
    /// a thread ran it, only that one (swift-nio's `NIOLoopBound`). A debug build stops the
    /// program on another thread's access (`assertOnLoopThread`).
    @Test func onlyTheThreadRunningTheLoopMayTouchItsObjects() async throws {
        let loop = try EventLoop()
        let elsewhere = { (loop: EventLoop) -> Bool in
            final class Answer: @unchecked Sendable { var value = false }
            let answer = Answer()
            let unsafeLoop = UncheckedLoop(loop: loop)
            let thread = Thread { answer.value = unsafeLoop.loop.isCallerOnLoopThread }
            thread.start()
            while !thread.isFinished { usleep(1000) }
            return answer.value
        }
        #expect(loop.isCallerOnLoopThread && elsewhere(loop), "not run yet: any thread sets it up")
        _ = loop.runOnce(wait: false)
        #expect(loop.isCallerOnLoopThread, "the thread that ran it")
        #if DEBUG
        #expect(!elsewhere(loop), "another thread, once it ran")
        #endif
        let bound = Subclass(Small(), loop: loop)
        bound.value.flag = false
        #expect(!bound.value.flag)
        #expect(loop.close() == 0)
    }
}

/// Carries a loop to another thread for `isCallerOnLoopThread`, the one call made there.
private struct UncheckedLoop: @unchecked Sendable { let loop: EventLoop }
