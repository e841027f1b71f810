import Foundation
import MAMDeviceState
import MAMLoop
import MAMModel
import MAMWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child's end: deadlines swept, disconnects of hostile children, exits explained (with the
/// stderr tail and a missing module named), the SDK's relaunch, and the host's teardown.
extension Supervisor {
    /// Starts the sweep if it is not running; it stops itself when nothing has a deadline.
    func watchDeadlines() {
        sweep.watch()
    }

    /// One look at every deadline (the sweep's body, given to it when the supervisor is made).
    func sweepDeadlines() {
        let now = loop.now
        var anything = false
        for child in Array(children.values) + Array(retiring.values) {
            if child.life.frameOverdue(now: now, timeout: configuration.frameTimeout.milliseconds) {
                disconnect(child, because: "started a frame and did not finish it within \(configuration.frameTimeout) (\(child.value.decoder.bufferedByteCount) bytes of it received)")
            }
            if child.life.helloOverdue(now: now) {
                disconnect(child, because: "sent no hello within \(configuration.handshakeTimeout)")
            }
            if child.life.launchOverdue(now: now) { launchFinished(child, late: true) }
            let late = child.pendingCommands.filter { $0.value.deadline <= now }
            for (seq, pending) in late.sorted(by: { $0.key < $1.key }) {
                child.pendingCommands[seq] = nil
                pending.completion(.error(.timeout, "\(child.handle) did not answer \(pending.command.name) within \(configuration.commandTimeout)"))
            }
            router?.expireDeliveries(of: child, now: now)
            if let step = child.life.teardownDue(now: now) { takeTeardownStep(step, of: child) }
            if child.state != .exited, child.hasDeadlines { anything = true }
        }
        if !anything { sweep.stop() }
    }

    // MARK: - Exits and disconnects

    /// Cuts a child off: tells it why (best effort), stops listening, and kills it.
    func disconnect(_ child: ChildConnection, because why: String, hostile: Bool = true) {
        guard child.state != .exited else { return }
        if hostile { onEvent(.hostile(handle: child.handle, what: why, disconnected: true)) }
        if child.life.cutOff(why, forking: child.forking) {
            child.send(.error(code: .badRequest, message: why))
            child.pipe.flush()
        }
        child.pipe.stopReading()
        child.signal(SIGKILL)
    }

    func channelEnded(_ child: ChildConnection, _ error: UVError?) {
        // The process exit callback does the bookkeeping; a child whose channel closed but
        // that keeps running is of no use to anyone.
        if child.life.channelEnded() {
            if !child.life.exitExpected, let error {
                onEvent(.note("\(child.handle): channel ended: \(error)"))
            }
            child.signal(SIGTERM)
        }
    }

    func childExited(_ child: ChildConnection, _ exit: ChildProcess.Exit) {
        let answeredHandshake = child.life.exited()
        // What it started ends with it, wherever it went (a daemon out of its session too).
        if let cgroup = child.cgroup {
            cgroups.end(cgroup)
            child.cgroup = nil
        }
        onEvent(.exited(handle: child.handle, pid: child.pid, exit: exit, expected: child.life.exitExpected))
        let commands = child.pendingCommands
        child.pendingCommands.removeAll()
        let how = Self.describe(exit, of: child)
        for (_, c) in commands.sorted(by: { $0.key < $1.key }) {
            c.completion(.error(.appNotRunning, "\(child.handle) \(how)"))
        }
        router?.childWentAway(child, exit: exit, how: how)
        child.pipe.close()
        child.process?.close()
        retiring[ObjectIdentifier(child)] = nil
        // A newer instance of the same extension may be starting: its waiters are not ours.
        if children[child.key] === child {
            children[child.key] = nil
            if !child.life.endedForRelaunch {
                let relaunch = child.life.isSDKRelaunch ? "restarted by the Intune SDK after its first policy; it ended again: " : ""
                let error: HostError = answeredHandshake && child.life.finishingLaunch
                    ? .exitedBeforeFinishingLaunch(child.handle, relaunch + how)
                    : .exitedDuringHandshake(child.handle, relaunch + how)
                finishWaiters(child.key, .failure(error))
            }
        }
        if shuttingDown { teardownProgress() }
        let after = child.onExit
        child.onExit.removeAll()
        for f in after { f() }
    }

    /// How a child ended, with why when the host knows it: the protocol mistake it was cut off
    /// for, and the last lines it wrote to stderr (a program that says what it misses).
    static func describe(_ exit: ChildProcess.Exit, of child: ChildConnection) -> String {
        var text = "\(exit)"
        if let why = child.life.cutOffReason { text += " (the host cut it off: \(why))" }
        if !child.life.exitExpected || child.life.cutOffReason != nil, let path = child.stderrLog, let tail = stderrTail(path), !tail.isEmpty {
            text += "; its stderr ended with: \(tail)"
            if let hint = missingModuleHint(tail) { text += " (\(hint))" }
        }
        return text
    }

    /// What to do when an interpreter died for a module it could not read: under the sandbox a
    /// plugin reads only its folder and what `plugin.json`'s `sandbox.read` grants.
    static func missingModuleHint(_ tail: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        func interpreter(_ name: String) -> String? {
            for dir in (environment["PATH"] ?? "").split(separator: ":") {
                let path = "\(dir)/\(name)"
                if FileManager.default.isExecutableFile(atPath: path) {
                    let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
                    return (real as NSString).deletingLastPathComponent.hasSuffix("/bin") ? ((real as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent : real
                }
            }
            return nil
        }
        if tail.contains("No module named 'encodings'") || tail.contains("Could not find platform independent libraries") {
            return "Python cannot read its own standard library: add its installation\(interpreter("python3").map { " (\($0))" } ?? "") to plugin.json's sandbox.read"
        }
        if tail.contains("No module named"), !tail.contains("pip install") {
            return "a Python module the plugin imports is not readable to it: add its folder (the mamsim client is clients/python/src) to plugin.json's sandbox.read\(interpreter("python3").map { "; the python3 found is \($0)" } ?? "")"
        }
        if tail.contains("Cannot find module") {
            return "a Node module the plugin requires is not readable to it: add its folder (the mamsim client is clients/node) to plugin.json's sandbox.read\(interpreter("node").map { "; the node found is \($0)" } ?? "")"
        }
        return nil
    }

    /// The last lines of a child's stderr log (at most 3 lines, 600 characters), printable,
    /// after the first line that names an error when the last ones do not (Node prints
    /// "Error: Cannot find module …" and then its require stack).
    static func stderrTail(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: size > 4096 ? size - 4096 : 0)
        guard let data = try? handle.readToEnd() else { return nil }
        let all = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
        let last = all.suffix(3)
        var text = String(last.joined(separator: " | ").suffix(600))
        if let fatal = all.last(where: { $0.contains("Fatal error: ") }) {
            // A Swift program that stopped (a thrown error at top level, a fatalError): its one
            // line says why; what follows is the runtime's backtrace, which says nothing to a
            // reader of the run (the whole of it stays in the child's log).
            text = String(fatal.drop { $0 == " " }.prefix(600)) + " (its backtrace is in the device's logs/)"
        } else if let error = all.first(where: isErrorLine), !last.contains(where: isErrorLine) {
            text = String(error.prefix(300)) + " … " + text
        }
        // What a child wrote never drives the user's terminal.
        return String(text.unicodeScalars.map { UntrustedText.isUnsafe($0) ? "?" : Character($0) })
    }

    /// A line that says what went wrong: `Error: …`, `TypeError: …`, `error: …`, a Python
    /// traceback's last line, Swift's `Fatal error: …`.
    private static func isErrorLine(_ line: Substring) -> Bool {
        let t = line.drop { $0 == " " }
        return t.hasPrefix("Error:") || t.hasPrefix("error:") || t.hasPrefix("Fatal error:") || t.range(of: #"^[A-Za-z]*(Error|Exception): "#, options: .regularExpression) != nil
    }

    /// Kills a child as a crash would (SIGKILL by default). Its pending work fails.
    func kill(_ spec: AppSpec, signal: Int32) -> Bool {
        guard let child = children[spec.key], child.isLive else { return false }
        child.signal(signal)
        return true
    }

    // MARK: - Teardown

    /// Ends one child by walking `HostConfiguration.teardown` (an extension with nothing
    /// left to do, or every child at shutdown).
    /// A child already closing (it said bye, its channel ended, it was cut off) is walked
    /// through the list too, so one that lingers is still signalled and killed.
    func end(_ child: ChildConnection, reason: String) {
        guard child.life.beginTeardown(reason: reason) else { return }
        takeTeardownStep(0, of: child)
    }

    private func takeTeardownStep(_ index: Int, of child: ChildConnection) {
        guard child.life.takesTeardownStep(index, of: configuration.teardown.count) else { return }
        let wait: Duration
        switch configuration.teardown[index] {
        case .ask(let w):
            // A child still being forked has no channel yet; it is killed once it exists.
            if child.forking { child.signal(SIGKILL) } else { child.send(.bye(reason: child.life.byeReason)) }
            wait = w
        case .signal(let s, let w):
            child.signal(s)
            wait = w
        case .kill:
            child.signal(SIGKILL)
            wait = .zero
        }
        child.life.tookTeardownStep(index, of: configuration.teardown.count, nextAt: loop.now + wait.milliseconds)
        watchDeadlines()
    }

    /// Ends every child (see `end`); `completion` runs when no child is left.
    func shutdown(_ completion: @escaping () -> Void) {
        guard shutdown.begin(completion) else { return }
        // No app starts from now on. The template ends with the last child: an app it is
        // forking now must still be answered for, so that it is killed and reaped, not lost.
        for child in Array(children.values) + Array(retiring.values) {
            end(child, reason: "the device is shutting down")
        }
        teardownProgress()
    }

    func teardownProgress() {
        guard shuttingDown, children.isEmpty, retiring.isEmpty else { return }
        let closing = template.take()
        closing?.close()
        cpus.release()
        sweep.close()
        cgroups.removeAll()
        storage?.close()
        for w in shutdown.takeSignalWatchers() { w.close() }
        let done = shutdown.finished()
        done?()
    }

    /// SIGINT and SIGTERM to the host tear the fleet down gracefully, then call `then`.
    func handleTerminationSignals(then: @escaping (Int32) -> Void) throws {
        for sig in [SIGINT, SIGTERM] {
            let watcher = try SignalWatcher(loop: loop)
            try watcher.start(signal: sig) { [weak self] s in
                guard let self else { return }
                self.onEvent(.note("signal \(s): tearing the fleet down"))
                self.shutdown { then(s) }
            }
            shutdown.watch(watcher)
        }
    }
}
