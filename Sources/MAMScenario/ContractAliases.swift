import Yams

/// The names of the scenario contract (v1.2, listed in docs/SCENARIOS.md) where this project
/// chose others: a scenario written to the contract loads and means the same. Each alias is
/// rewritten to our name before the step, app or extension is read, keeping the nodes' lines,
/// so an error in an aliased step still names its line. docs/SCENARIOS.md lists them.
enum ContractAliases {
    /// v1.2 verbs → ours, with their argument keys renamed (`nil`: the key is dropped).
    static let verbs: [String: (verb: String, keys: [String: String?])] = [
        "setAuthenticator": ("setDevice", ["installed": "authenticator"]),
        "setAppManaged": ("manageApp", [:]),
        "setOSVersion": ("setDevice", ["version": "osVersion"]),
        "awaitCompliance": ("finishRemediation", [:]),
    ]

    /// One step's verb and arguments as we name them; `nil` when nothing is aliased.
    static func step(_ key: String, _ args: Node) -> (String, Node)? {
        if let alias = verbs[key] { return (alias.verb, renaming(args, alias.keys)) }
        guard case .mapping(let m) = args else { return nil }
        let keys = Set(m.keys.compactMap { $0.scalar?.string })
        switch key {
        case "switchIdentity" where keys.contains("accounts"):
            // A multi-account view is a window showing several accounts (setUIPolicyAccountIds).
            return ("showAccounts", renaming(args, ["account": nil]))
        case "switchIdentity" where keys.contains("mainThreadIdentity"):
            return (key, renaming(args, ["mainThreadIdentity": "mainThread"]))
        case "managedConfig" where keys.contains("source"):
            guard let source = m[Node("source")]?.scalar?.string else { return nil }
            let flag = Node.scalar(Node.Scalar(source == "legacy" ? "true" : "false", Tag(.bool), .plain, m[Node("source")]?.mark))
            return (key, replacing(args, "source", with: ("legacy", flag)))
        case "appConfig" where m[Node("query")]?.scalar?.string == "fullData":
            return ("appConfigData", renaming(args, ["query": nil, "key": nil, "type": nil]))
        case "canReceive" where keys.contains("as") || keys.contains("file") || keys.contains("item"):
            var out = renaming(args, ["as": "account", "file": "path"])
            if case .mapping(let item)? = m[Node("item")] {
                // An item provider's owner tag: the item's `owner`, personal data when it has none.
                out = replacing(out, "item", with: ("owner", item[Node("owner")] ?? Node("")))
            }
            return (key, out)
        default:
            return nil
        }
    }

    /// An expectation written with the contract's names, for the step's verb as written.
    static func expectation(_ verb: String, _ expect: Node) -> Node {
        guard case .mapping(let m) = expect, m.count >= 1 else { return expect }
        let keys = Set(m.keys.compactMap { $0.scalar?.string })
        switch verb {
        case "awaitCompliance" where keys.contains("statuses"):
            guard case .sequence(let list)? = m[Node("statuses")] else { return expect }
            let renamed = list.map { renaming($0, ["status": "compliance"]) }
            return replacing(expect, "statuses", with: ("statuses", Node.sequence(Node.Sequence(renamed, list.tag, list.style, list.mark))))
        case "appConfig" where keys.contains("data"):
            return renaming(expect, ["data": "fullData"])
        case "acquireToken" where keys.contains("claims"):
            return renaming(expect, ["claims": "token"])
        case "openURL" where keys == ["delivered"]:
            return renaming(expect, ["delivered": "openedIn"])
        default:
            return expect
        }
    }

    /// App keys of v1.2 → our `delegate:` answers (`acceptsIdentitySwitch: false` is
    /// `identitySwitch: refuse`, `wipeReturns: true` is `wipe: app`, `restartsItself: true` is
    /// `restart: app`).
    static let delegateKeys: [String: (key: String, yes: String, no: String)] = [
        "acceptsIdentitySwitch": ("identitySwitch", "accept", "refuse"),
        "wipeReturns": ("wipe", "app", "sdk"),
        "restartsItself": ("restart", "app", "sdk"),
    ]

    /// Expected notification names of v1.2 → ours.
    static let notifications: [String: String] = ["blockAccountId": "blockAccount"]

    // MARK: Nodes

    static func renaming(_ node: Node, _ keys: [String: String?]) -> Node {
        guard case .mapping(let m) = node else { return node }
        var pairs: [(Node, Node)] = []
        for (k, v) in m {
            guard let name = k.scalar?.string, let renamed = keys[name] else { pairs.append((k, v)); continue }
            guard let renamed else { continue }
            pairs.append((Node.scalar(Node.Scalar(renamed, Tag(.str), .plain, k.mark)), v))
        }
        return Node.mapping(Node.Mapping(pairs, m.tag, m.style, m.mark))
    }

    static func replacing(_ node: Node, _ key: String, with pair: (String, Node)) -> Node {
        guard case .mapping(let m) = node else { return node }
        var pairs: [(Node, Node)] = []
        for (k, v) in m {
            if k.scalar?.string == key {
                pairs.append((Node.scalar(Node.Scalar(pair.0, Tag(.str), .plain, k.mark)), pair.1))
            } else {
                pairs.append((k, v))
            }
        }
        return Node.mapping(Node.Mapping(pairs, m.tag, m.style, m.mark))
    }
}
