internal import MAMModel

/// The Swift values some messages stand for, and back: the `adapter=` messages of the .proto,
/// whose generated mirrors (`Wire…`) are not what the rest of mamsim handles. Each pair is the
/// one place such a message meets its Swift value.
enum WireAdapters {
    // MARK: Verdict: allowed, or blocked / failed with a reason

    static func verdict(_ v: Verdict) -> WireVerdict {
        switch v {
        case .allowed(let why): WireVerdict(status: .allowed, explanation: why)
        case .blocked(let reason, let why): WireVerdict(status: .blocked, reason: reason, explanation: why)
        case .failed(let reason, let why): WireVerdict(status: .failed, reason: reason, explanation: why)
        }
    }

    static func verdict(_ w: WireVerdict, _ path: () -> String) throws(WireError) -> Verdict {
        switch w.status {
        case .allowed: return .allowed(w.explanation)
        case .blocked: return .blocked(try reason(w, path), w.explanation)
        case .failed: return .failed(try reason(w, path), w.explanation)
        }
    }

    /// A verdict that is not allowed must say why.
    private static func reason(_ w: WireVerdict, _ path: () -> String) throws(WireError) -> Reason {
        guard let reason = w.reason else { throw .badEnum(field: WireCodec.sub(path, "reason"), value: 0) }
        return reason
    }

    // MARK: Allowed accounts: nil when no list is targeted

    static func allowedAccounts(_ allowed: [String]?) -> WireAllowedAccountsChanged {
        WireAllowedAccountsChanged(restricted: allowed != nil, allowed: allowed ?? [])
    }

    static func allowedAccounts(_ w: WireAllowedAccountsChanged, _ path: () -> String) -> [String]? {
        w.restricted ? w.allowed : nil
    }

    // MARK: Protection info: nil when the data carries no protection header

    static func protection(_ summary: ProtectionSummary?) -> WireProtectionInfo {
        guard let summary else { return WireProtectionInfo() }
        return WireProtectionInfo(protected: true, owner: summary.owner, encrypted: summary.encrypted)
    }

    static func protection(_ w: WireProtectionInfo, _ path: () -> String) -> ProtectionSummary? {
        w.protected ? ProtectionSummary(owner: w.owner, encrypted: w.encrypted) : nil
    }

    // MARK: App configuration: one dictionary per configuration policy

    static func appConfig(_ dictionaries: [[String: String]]) -> WireAppConfigData {
        // Sorted, so the same configuration always encodes to the same bytes.
        WireAppConfigData(dictionaries: dictionaries.map { dictionary in
            WireAppConfigData.Dictionary(entries: dictionary.sorted { $0.key < $1.key }.map { WireKeyValue(key: $0.key, value: $0.value) })
        })
    }

    static func appConfig(_ w: WireAppConfigData, _ path: () -> String) -> [[String: String]] {
        w.dictionaries.map { dictionary in
            Dictionary(dictionary.entries.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        }
    }

    // MARK: ManagedApp secrets: an identity comes as its certificate only

    static func managedSecret(_ secret: ManagedSecretValue) -> WireManagedSecretAnswer {
        switch secret {
        case .password(let user, let password): WireManagedSecretAnswer(kind: .password, userName: user, password: password)
        case .certificate(let der): WireManagedSecretAnswer(kind: .certificate, certificate: der)
        case .identity(let der): WireManagedSecretAnswer(kind: .identity, certificate: der)
        }
    }

    static func managedSecret(_ w: WireManagedSecretAnswer, _ path: () -> String) -> ManagedSecretValue {
        switch w.kind {
        case .password: .password(userName: w.userName, password: w.password)
        case .certificate: .certificate(w.certificate)
        case .identity: .identity(certificate: w.certificate)
        }
    }
}
