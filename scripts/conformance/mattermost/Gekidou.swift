// The one part of mattermost-mobile's Gekidou module its Intune delegates use: the logger.
// Written for mamsim's third-party conformance run (scripts/conformance-thirdparty); the
// messages go to standard error, where the mamsim host keeps a child's last lines.
import Foundation

public enum GekidouLogLevel {
    case debug, info, warning, error
}

/// `@unchecked Sendable`: it holds no state; each line is one write to standard error.
public final class GekidouLogger: @unchecked Sendable {
    public static let shared = GekidouLogger()

    /// `message` with its `%@`/`%d` arguments put in, one line on standard error.
    public func log(_ level: GekidouLogLevel, _ message: String, _ args: Any...) {
        var text = ""
        var rest = args[...]
        var chars = message[...]
        while let c = chars.first {
            chars = chars.dropFirst()
            if c == "%", let spec = chars.first, "@dsi".contains(spec) {
                chars = chars.dropFirst()
                text += rest.first.map { "\($0)" } ?? ""
                rest = rest.dropFirst()
            } else {
                text.append(c)
            }
        }
        FileHandle.standardError.write(Data("[\(level)] \(text)\n".utf8))
    }
}
