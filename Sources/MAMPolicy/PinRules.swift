/// The app PIN as the device remembers it for the managed account (RULES.md §8).
///
/// A value passed in and handed back by `Enforcer.switchIdentity`, so the rules stay pure:
/// the host stores whatever comes back.
public struct PinState: Sendable, Hashable {
    /// The PIN set on the first switch to a managed identity; `nil` until then or after a
    /// reset.
    public var pin: String?
    /// Wrong entries in a row since the last correct one.
    public var failedAttempts: Int

    public init(pin: String? = nil, failedAttempts: Int = 0) {
        self.pin = pin
        self.failedAttempts = failedAttempts
    }
}

enum PinRules {
    /// Why `candidate` cannot become the PIN under `policy`, or `nil` when it can.
    ///
    /// Our reading of `alphanumericAndSymbol` ("Passcode"): at least one letter and one digit,
    /// symbols allowed. `simplePinBlocked` refuses a PIN of one repeated character (`1111`)
    /// or a run ascending or descending by one (`1234`, `4321`, `abcd`).
    static func problem(with candidate: String, policy: IosManagedAppProtection) -> String? {
        let minimum = max(policy.minimumPinLength, 1)
        if candidate.count < minimum {
            return "the PIN must have at least \(minimum) characters (minimumPinLength = \(policy.minimumPinLength))"
        }
        switch policy.pinCharacterSet {
        case .numeric:
            if !candidate.allSatisfy({ $0.isASCII && $0.isNumber }) {
                return "the PIN must be digits only (pinCharacterSet = numeric)"
            }
        case .alphanumericAndSymbol:
            if !candidate.contains(where: \.isLetter) || !candidate.contains(where: \.isNumber) {
                return "the passcode must contain at least one letter and one digit (pinCharacterSet = alphanumericAndSymbol)"
            }
        }
        if policy.simplePinBlocked, isSimple(candidate) {
            return "the PIN must not be a repeated or sequential run like 1111 or 1234 (simplePinBlocked = true)"
        }
        return nil
    }

    static func isSimple(_ pin: String) -> Bool {
        let scalars = pin.lowercased().unicodeScalars.map(\.value)
        guard scalars.count > 1 else { return true }
        let steps = zip(scalars.dropFirst(), scalars).map { Int($0) - Int($1) }
        guard let first = steps.first, [-1, 0, 1].contains(first) else { return false }
        return steps.allSatisfy { $0 == first }
    }
}
