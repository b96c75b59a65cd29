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
}
