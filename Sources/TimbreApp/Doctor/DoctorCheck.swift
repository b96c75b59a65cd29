import TimbreCore

/// One line of `timbre doctor`: what was checked, how it went, and the fix when there is one.
public struct DoctorCheck: Sendable, Equatable {
    public enum Level: String, Sendable { case ok, warn, fail }

    public var level: Level
    public var name: String
    public var text: String

    public init(_ level: Level, _ name: String, _ text: String) {
        self.level = level
        self.name = name
        self.text = text
    }

    /// What was found: the text before its " — fix: ".
    public var detail: String { text.range(of: Self.fixMarker).map { String(text[..<$0.lowerBound]) } ?? text }

    /// What to do about it; empty when nothing needs doing.
    public var fix: String { text.range(of: Self.fixMarker).map { String(text[$0.upperBound...]) } ?? "" }

    static let fixMarker = " — fix: "

    /// One check of `timbre doctor --json`: `{"name", "level", "detail", "fix"}`, the text made safe to show.
    public var json: JSONValue {
        .object([
            ("name", .string(name)), ("level", .string(level.rawValue)),
            ("detail", .string(TerminalText.sanitize(detail))), ("fix", .string(TerminalText.sanitize(fix))),
        ])
    }
}
