import TimbreNet

/// What the requests of a command are counted as in `timbre quota` (`RequestKind`): an edit's
/// reads are part of the edit, `api`, `doctor` and sign-in are "other"; the others (the interface
/// above all, and `demo`, whose sign-in alone is "other") leave it to each request's method and
/// path (`RequestKind.classify`).
public enum RequestUse {
    static let edits: Set<String> = [
        "add", "remove", "move", "copy", "dedupe", "shuffle", "sort", "create", "edit", "delete", "rename", "undo", "redo", "import",
        "like", "unlike", "restore",
    ]
    static let others: Set<String> = ["api", "doctor", "login", "logout", "status", "token", "pins", "update", "show"]

    /// The kind for the command named `command` (its last word), nil: per request.
    static func kind(forCommand command: String) -> RequestKind? {
        if command == "sync" { return .sync }
        if command == "search" { return .search }
        if edits.contains(command) { return .edit }
        if others.contains(command) { return .other }
        return nil
    }

    /// Runs `body` with its requests counted as the command `command` says.
    public static func running<T>(command: String, _ body: () async throws -> T) async throws -> T {
        guard let kind = kind(forCommand: command) else { return try await body() }
        return try await RequestKind.$current.withValue(kind) { try await body() }
    }
}
