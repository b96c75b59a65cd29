import Foundation

/// The shell asking for completions (ArgumentParser's `CompletionShell.requesting`, from the
/// `SAP_SHELL` its scripts export).
public enum CompletingShell: String, Sendable, CaseIterable {
    case bash, zsh, fish
}

/// How a completion candidate reaches the shell that asked as literal text, and how the word being
/// completed is read back from what the shell passed. A playlist name is data anyone can choose
/// (a playlist the user follows, a folder from a restored backup): it must never be read as code.
public enum ShellWords {
    /// The environment variable timbre's own bash script sets when it calls timbre for
    /// candidates: it takes each line as one literal word. Without it (an older script, which gave
    /// the candidates to `compgen -W`, and `compgen -W` expands `$(…)`, backticks and `$VAR`),
    /// only words nothing in them expands are offered.
    public static let literalMarker = "TIMBRE_COMPLETION"
    public static let literalValue = "literal"

    /// The longest candidate, in characters: a longer name is offered as a shorter start of it
    /// that still names it, or as its id (zsh 5.9 crashed on a 10,000-character word).
    public static let longest = 200

    /// `text` can be offered as a word at all: on one line, with no control character (a newline
    /// or tab would split it into several candidates, an escape would reach the terminal), no
    /// bidirectional override, not read as an option (`-…`), and at most `longest` characters.
    public static func offerable(_ text: String) -> Bool {
        !text.isEmpty && text.count <= longest && !text.hasPrefix("-")
            && !text.unicodeScalars.contains { scalar in
                scalar.properties.generalCategory == .control || (0x2028...0x202E).contains(scalar.value)
                    || (0x2066...0x2069).contains(scalar.value)
            }
    }

    /// `candidate` written for `shell`, so that the shell inserts exactly it (quoting it as the
    /// command line around it needs, inside an open quote too); nil when it cannot be offered
    /// safely there. `literal`: the script reads each line as one word (`literalMarker`).
    public static func written(_ candidate: String, for shell: CompletingShell?, literal: Bool) -> String? {
        guard offerable(candidate) else { return nil }
        switch shell {
        case .bash? where literal:
            // Each line becomes one COMPREPLY entry; `complete -o filenames` has readline quote it.
            return candidate
        case .zsh?:
            // `_describe` reads `word:description`: a colon in the word, and the backslash that
            // escapes it, are escaped; compadd quotes the rest.
            return candidate.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:")
        case .fish?:
            // Each line of the command substitution is one candidate, never expanded; fish quotes
            // it when it inserts it.
            return candidate
        case .bash?, nil:
            // An older bash script (compgen -W), or a caller we do not know: only words nothing
            // in them would expand, split or unquote.
            let expands = candidate.contains { "$`\\'\"".contains($0) } || candidate.hasPrefix("~")
            return expands ? nil : candidate
        }
    }

    /// The word being completed as the shell passed it (bash, zsh and fish 4 pass it as typed,
    /// quotes included) without its quoting: backslash escapes, '…' and "…", and a quote still
    /// open at the end runs to the end ("ana's → ana's, 'ana → ana, ana\'s\ c → ana's c).
    public static func unquoted(_ word: String) -> String {
        var text = ""
        var quote: Character?
        var escaped = false
        for character in word {
            if escaped {
                // Inside "…" a backslash escapes only $ ` " \ (else it is itself).
                if quote == "\"", !"$`\"\\".contains(character) { text.append("\\") }
                text.append(character)
                escaped = false
                continue
            }
            switch (quote, character) {
            case ("'"?, "'"): quote = nil
            case ("'"?, _): text.append(character)
            case ("\""?, "\""): quote = nil
            case (_, "\\"): escaped = true
            case (nil, "'"), (nil, "\""): quote = character
            default: text.append(character)
            }
        }
        return text
    }
}
