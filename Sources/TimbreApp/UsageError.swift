import TimbreCore

/// Input timbre's own checks refuse (exit 2). `showsHelp`: the command's help follows the message.
public struct UsageError: UserFacingError {
    public let message: String
    public var hint: String?
    public var showsHelp: Bool

    public init(message: String, hint: String? = nil, showsHelp: Bool = false) {
        self.message = message
        self.hint = hint
        self.showsHelp = showsHelp
    }

    public var exitStatus: ExitStatus { .usage }
}
