import TimbreCore

/// A write that must not be repeated was sent, and no answer says whether the server applied it
/// (a 5xx, a reset, a timeout after the request left). The caller reads the server's state and
/// reconciles; it never resends blindly.
public struct WriteOutcomeUnknown: UserFacingError, Equatable {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var message: String {
        "no answer to the write on \(TerminalText.sanitize(path)) (\(TerminalText.sanitize(reason))): Spotify may or may not have applied it"
    }
    public var hint: String? { "timbre checks the playlist before doing anything else; run `timbre history` to see where the edit stands" }
    public var exitStatus: ExitStatus { .failure }
}
