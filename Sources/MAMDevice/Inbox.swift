import MAMDeviceState
import MAMModel
import MAMPolicy

/// A destination's Inbox, where a shared file lands: the sender's file copied from its
/// container at delivery (not when the share was decided), under a name the host chooses,
/// owned as the share was stamped.
struct Inbox {
    let state: DeviceState
    let identities: Identities

    /// Why a file could not be placed: the sender's answer.
    struct NotPlaced: Error {
        var verdict: Verdict
    }

    /// The sender's file at `path` copied into the target's Inbox, owned (and protected) by
    /// the share's final owner: its path there. The copy keeps its owner where that account is
    /// signed in to the target; an app without the account (policy allowed the transfer) gets
    /// a personal copy.
    func place(_ path: String, of item: Item, from sender: AppSpec, in target: AppSpec, finalOwner: Account?) -> Result<String, NotPlaced> {
        let data: [UInt8]
        do {
            data = try state.readFile(app: sender.bundleID, path: ContainerPath(parsing: path))
        } catch let error as DeviceStateError where error.reason != .internalError {
            return .failure(NotPlaced(verdict: .failed(.badRequest, "\(sender.handle) cannot share \(path): \(error)")))
        } catch {
            let v = internalFailure(error, doing: "read \(path) to share it")
            return .failure(NotPlaced(verdict: .failed(v.reason ?? .internalError, v.explanation)))
        }
        do {
            let keeps = try finalOwner.map { o in try identities.accounts(of: target).contains { $0.isSame(as: o) } } ?? false
            let inbox = try landing(for: item, in: target)
            _ = try state.writeFile(app: target.bundleID, path: ContainerPath(parsing: inbox), data: data, owner: keeps ? finalOwner?.upn : nil)
            return .success(inbox)
        } catch {
            let v = internalFailure(error, doing: "place the file in \(target.handle)'s Inbox")
            return .failure(NotPlaced(verdict: .failed(v.reason ?? .internalError, v.explanation)))
        }
    }

    /// Where a delivered file lands in the destination's Inbox. The host names it:
    /// `Inbox/<item id>-<file name>` (ids are validated, the name is its last component made
    /// safe), and a name already taken gets a number (`Inbox/<id>-2-<name>`), so a sender can
    /// never replace a file delivered earlier.
    private func landing(for item: Item, in target: AppSpec) throws -> String {
        let last = item.fileName.split(separator: "/").last.map(String.init) ?? ""
        let safe = String(last.unicodeScalars.map { $0.properties.generalCategory == .control || $0 == "\\" ? "_" : Character($0) }.prefix(128))
        let name = safe.isEmpty || safe == "." || safe == ".." ? "item" : safe
        var candidate = "Inbox/\(item.id)-\(name)"
        var n = 2
        while try state.fileOwner(app: target.bundleID, path: ContainerPath(parsing: candidate)) != nil {
            candidate = "Inbox/\(item.id)-\(n)-\(name)"
            n += 1
        }
        return candidate
    }
}
