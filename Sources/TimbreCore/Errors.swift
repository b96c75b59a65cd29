/// Process exit codes, as docs/CLI.md lists them.
public enum ExitStatus: Int32, Sendable {
    case success = 0
    case failure = 1
    case usage = 2
    case partial = 3
    case authenticationRequired = 4
    case trustFailure = 5
    /// An edit that refers to positions, on a playlist that changed on Spotify since it was synced.
    case conflict = 6
    /// An edit of a playlist the user neither owns nor collaborates on.
    case notPermitted = 7
}

/// Every error timbre shows a user conforms: a sentence saying what went wrong, what to do next,
/// and which exit code it ends the process with.
public protocol UserFacingError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in one sentence a user understands.
    var message: String { get }
    /// What to do next, when there is something useful to say.
    var hint: String? { get }
    var exitStatus: ExitStatus { get }
}

extension UserFacingError {
    public var hint: String? { nil }
    public var description: String {
        if let hint { return "\(message)\n  hint: \(hint)" }
        return message
    }
}
