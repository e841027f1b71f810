/// The app PIN as the device remembers it for the managed account and one publisher (the
/// apps of one Apple team id share it; RULES.md §8).
///
/// A value passed in and handed back by `Enforcer.switchIdentity`, so the rules stay pure:
/// the host stores whatever comes back.
public struct PinState: Sendable, Hashable {
    /// The PIN set on the first switch to a managed identity; `nil` until then or after a
    /// reset.
    public var pin: String?
    /// Wrong entries in a row since the last correct one.
    public var failedAttempts: Int
    /// When the PIN was set (`nil`: not known, as for a PIN set before this was kept): the
    /// start of `periodBeforePinReset`.
    public var setAt: Instant?
    /// The PINs it replaced, newest first (kept for the record: `previousPinBlockCount`, the
    /// PIN history, is Android's and never refuses a PIN on iOS).
    public var previous: [String]

    /// When the account's data was last opened in an app of this PIN's publisher (a switch,
    /// launch or resume to the managed identity that passed): within
    /// `periodOnlineBeforeAccessCheck` of it, the PIN is not asked again (RULES.md §8).
    public var lastAccess: Instant?

    public init(pin: String? = nil, failedAttempts: Int = 0, setAt: Instant? = nil, previous: [String] = [], lastAccess: Instant? = nil) {
        self.pin = pin
        self.failedAttempts = failedAttempts
        self.setAt = setAt
        self.previous = previous
        self.lastAccess = lastAccess
    }

    /// Whether the PIN is asked now under `p`: to set it (none yet); once the PIN has expired
    /// (`periodBeforePinReset`); and after `periodOnlineBeforeAccessCheck` of inactivity since
    /// the last access (a period of zero or less asks every time). Never when no PIN is
    /// required.
    public func isAsked(under p: IosManagedAppProtection, at now: Instant) -> Bool {
        guard p.pinRequired else { return false }
        guard pin != nil else { return true }
        if let setAt, p.periodBeforePinReset.seconds > 0, now.seconds(since: setAt) >= p.periodBeforePinReset.seconds { return true }
        guard let lastAccess, p.periodOnlineBeforeAccessCheck.seconds > 0 else { return true }
        return now.seconds(since: lastAccess) >= p.periodOnlineBeforeAccessCheck.seconds
    }

    /// The most former PINs kept.
    public static let historyLimit = 24
}

enum PinRules {
    /// Why `candidate` cannot become the PIN under `policy`, or `nil` when it can.
    ///
    /// As Microsoft documents the settings: a passcode (`alphanumericAndSymbol`) needs at least
    /// one letter or one special character while simple PINs are allowed, and a digit, a
    /// letter and a special character when they are blocked. `simplePinBlocked` checks every
    /// 3-character window: none may repeat one character (`111`) or run up or down by one
    /// (`123`, `cba`), so `1235` and `1112` are refused and `1122` is accepted.
    static func problem(with candidate: String, policy: IosManagedAppProtection) -> String? {
        let minimum = max(policy.minimumPinLength, 1)
        if candidate.count < minimum {
            return "the PIN must have at least \(minimum) characters (minimumPinLength = \(policy.minimumPinLength))"
        }
        let letters = candidate.contains(where: \.isLetter)
        let digits = candidate.contains { $0.isASCII && $0.isNumber }
        let specials = candidate.contains { !$0.isLetter && !$0.isNumber }
        switch policy.pinCharacterSet {
        case .numeric:
            if !candidate.allSatisfy({ $0.isASCII && $0.isNumber }) {
                return "the PIN must be digits only (pinCharacterSet = numeric)"
            }
        case .alphanumericAndSymbol:
            if policy.simplePinBlocked, !(letters && digits && specials) {
                return "the passcode must contain at least one letter, one digit and one special character (pinCharacterSet = alphanumericAndSymbol, simplePinBlocked = true)"
            }
            if !policy.simplePinBlocked, !(letters || specials) {
                return "the passcode must contain at least one letter or one special character (pinCharacterSet = alphanumericAndSymbol)"
            }
        }
        if policy.simplePinBlocked, let window = simpleWindow(in: candidate) {
            return "the PIN must not contain a repeated or sequential run of three like 111 or 123; it has \"\(window)\" (simplePinBlocked = true)"
        }
        return nil
    }

    /// The first 3-character window of one repeated character or a run up or down by one
    /// (case-insensitive), or `nil`. A PIN shorter than three is judged as a whole.
    static func simpleWindow(in pin: String) -> String? {
        let characters = Array(pin.lowercased())
        let values = characters.map { $0.unicodeScalars.first.map { Int($0.value) } ?? 0 }
        guard values.count >= 3 else {
            guard values.count == 2 else { return values.isEmpty ? nil : pin }
            return abs(values[1] - values[0]) <= 1 ? pin : nil
        }
        for i in 0...(values.count - 3) {
            let a = values[i + 1] - values[i], b = values[i + 2] - values[i + 1]
            if a == b, [-1, 0, 1].contains(a) { return String(characters[i..<(i + 3)]) }
        }
        return nil
    }
}
