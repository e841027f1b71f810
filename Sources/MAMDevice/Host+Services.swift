import MAMDeviceState
import MAMModel
import MAMPolicy
import MAMWire

/// `ServiceRequest`s from children: the OS and SDK services a real app calls, answered with
/// the identities the host holds for the app. A child names paths inside its own containers
/// and never an owner it does not have.
extension Host {
    func service(_ request: ServiceRequest, for child: ChildConnection) -> ServiceResult {
        let result = perform(request, for: child)
        // Every decision goes to the audit log; plain file and protection calls do not.
        let decisions: Set<String> = ["copy", "paste", "canSave", "canOpen", "print", "notify", "keychainSet", "keychainGet"]
        if decisions.contains(request.op) {
            let verb = ["canSave": "save", "canOpen": "open"][request.op] ?? request.op
            let target = request.args["location"].map { loc in request.args["account"].map { "\(loc) (\($0))" } ?? loc }
                ?? request.args["group"].map { "keychain \($0)" } ?? ""
            audit(verb: verb, source: child.handle, sourceIdentity: currentIdentity(of: child.spec)?.upn ?? "",
                  destination: target, destinationIdentity: request.args["as"] ?? "", owner: request.args["account"] ?? "",
                  decision: result.ok ? "allowed" : (result.reason.isEmpty ? "failed" : "blocked"),
                  reason: result.reason, explanation: result.explanation)
        }
        return result
    }

    private func perform(_ request: ServiceRequest, for child: ChildConnection) -> ServiceResult {
        let app = child.handle
        let bundle = child.bundleID
        let a = request.args
        func refused(_ d: Decision) -> ServiceResult {
            ServiceResult(ok: false, reason: d.blockedBy?.rawValue ?? "", explanation: d.explanation)
        }
        func answer(_ d: Decision, values: [String: String] = [:]) -> ServiceResult {
            d.isAllowed ? ServiceResult(ok: true, explanation: d.explanation, values: values) : refused(d)
        }
        func account(_ key: String) -> Account? {
            guard let v = a[key], !v.isEmpty else { return nil }
            return fleet.account(named: v) ?? Account(upn: v)
        }
        /// `as`: absent = the app's own identity; `""` = unmanaged.
        func receiver() -> Account?? {
            guard let v = a["as"] else { return .none }
            return .some(v.isEmpty ? Account(upn: "") : (fleet.account(named: v) ?? Account(upn: v)))
        }
        do {
            switch request.op {
            case "writeFile":
                guard let path = a["path"] else { return missing("path") }
                // A file is owned by the effective file identity unless the app names one of
                // its own accounts.
                let owner = try a["owner"] ?? state.effectiveIdentity(app: identityOwner(of: child.spec), for: .file)
                if let o = owner, !o.isEmpty, !accounts(of: child.spec).contains(where: { $0.matches(o) }) {
                    onEvent(.hostile(handle: app, what: "wrote a file as \(o), which is not signed in to it", disconnected: false))
                    return ServiceResult(ok: false, reason: Reason.notSignedIn.rawValue, explanation: "\(o) is not signed in to \(bundle); a file can be owned only by an account of the app")
                }
                let info = try state.writeFile(app: bundle, path: ContainerPath(parsing: path), data: request.data, owner: owner)
                return ServiceResult(ok: true, explanation: "wrote \(path)", values: ["owner": info.owner, "encrypted": "\(info.isEncrypted)"])
            case "readFile":
                guard let path = a["path"] else { return missing("path") }
                return ServiceResult(ok: true, data: try state.readFile(app: bundle, path: ContainerPath(parsing: path)))
            case "fileOwner":
                guard let path = a["path"] else { return missing("path") }
                let owner = try state.fileOwner(app: bundle, path: ContainerPath(parsing: path))
                return ServiceResult(ok: true, values: ["owner": owner ?? ""])
            case "protect":
                let owner = a["owner"] ?? currentIdentity(of: child.spec)?.upn ?? ""
                return ServiceResult(ok: true, data: try state.protect(data: request.data, owner: owner))
            case "unprotect":
                return ServiceResult(ok: true, data: try state.unprotect(data: request.data))
            case "protectionInfo":
                guard let info = state.protectionInfo(data: request.data) else { return ServiceResult(ok: true, values: ["protected": "false"]) }
                return ServiceResult(ok: true, values: ["protected": "true", "owner": info.owner, "encrypted": "\(info.isEncrypted)"])
            case "keychainSet":
                guard let key = a["key"] else { return missing("key") }
                let r = try state.keychainSet(app: bundle, group: a["group"], key: key, value: request.data, owner: currentIdentity(of: child.spec)?.upn)
                return ServiceResult(ok: r.status == .success, reason: r.decision.blockedBy?.rawValue ?? "", explanation: r.decision.explanation, values: ["group": r.group ?? ""], status: r.status.rawValue)
            case "keychainGet":
                guard let key = a["key"] else { return missing("key") }
                let r = try state.keychainGet(app: bundle, group: a["group"], key: key)
                return ServiceResult(ok: r.status == .success, reason: r.decision.blockedBy?.rawValue ?? "", explanation: r.decision.explanation, data: r.value ?? [], status: r.status.rawValue)
            case "copy":
                return answer(copy(app, text: String(decoding: request.data, as: UTF8.self)))
            case "paste":
                let p = paste(app, as: receiver() ?? nil)
                return p.decision.isAllowed
                    ? ServiceResult(ok: true, explanation: p.decision.explanation, values: ["text": p.text])
                    : ServiceResult(ok: false, reason: p.decision.blockedBy?.rawValue ?? "", explanation: p.decision.explanation, values: ["text": p.text])
            case "canSave":
                guard let raw = a["location"] else { return missing("location") }
                guard let location = SaveLocation(rawValue: raw) else { return badValue("location", raw, SaveLocation.allCases.map(\.rawValue)) }
                return answer(save(app, to: location, locationAccount: account("account")))
            case "canOpen":
                guard let raw = a["location"] else { return missing("location") }
                guard let location = OpenLocation(rawValue: raw) else { return badValue("location", raw, OpenLocation.allCases.map(\.rawValue)) }
                return answer(open(app, from: location, locationAccount: account("account"), as: receiver() ?? nil))
            case "print":
                return answer(print(app))
            case "notify":
                let n = notify(app, account: account("account") ?? Account(upn: ""), text: String(decoding: request.data, as: UTF8.self))
                return n.shownText.map { ServiceResult(ok: true, explanation: n.decision.explanation, values: ["shown": $0]) } ?? refused(n.decision)
            case "shareTargets":
                let types = (a["types"] ?? "").split(separator: ",").map(String.init)
                return ServiceResult(ok: true, values: ["targets": shareTargets(app, types: types).joined(separator: ",")])
            default:
                return ServiceResult(ok: false, reason: Reason.badRequest.rawValue, explanation: "the host offers no service \"\(request.op)\"")
            }
        } catch let error as DeviceStateError {
            return ServiceResult(ok: false, reason: error.reason.rawValue, explanation: error.message)
        } catch {
            return ServiceResult(ok: false, reason: Reason.badRequest.rawValue, explanation: "\(error)")
        }
    }

    private func missing(_ key: String) -> ServiceResult {
        ServiceResult(ok: false, reason: Reason.badRequest.rawValue, explanation: "the request needs \(key)=")
    }

    private func badValue(_ key: String, _ value: String, _ allowed: [String]) -> ServiceResult {
        ServiceResult(ok: false, reason: Reason.badRequest.rawValue, explanation: "\(key) \"\(value)\" is not one of \(allowed.joined(separator: ", "))")
    }
}
