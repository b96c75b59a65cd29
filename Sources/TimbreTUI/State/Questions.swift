import Foundation

/// A question takes its answers only: y, n and Esc (no), r or s when it offers them. `?` and `M`
/// (as bound) open the help and the messages over it, and closing them comes back to it; any other
/// key, and a resize, leaves it waiting — reading it is never an answer.
extension TUIState {
    mutating func questionKey(_ event: Terminal.InputEvent) -> [Effect] {
        guard let question else { return [] }
        let key: Key?
        switch event {
        case .resize: return []
        case .key(let named):
            if named.name == "Esc" { return answer(key: nil) }
            key = named
        case .character(let character):
            if let lower = character.lowercased().first, question.answers.contains(lower) { return answer(key: character) }
            key = Key(String(character))
        }
        switch key.flatMap(keymap.command(for:)) {
        case .help?:
            parkedQuestion = question
            mode = .help(Overlay())
        case .messages?:
            parkedQuestion = question
            mode = .messages(Overlay())
        default: break
        }
        return []
    }

    /// Help or messages close: back to the question they opened over, if any.
    mutating func closeOverlay() {
        mode = parkedQuestion.map { .confirm($0) } ?? .normal
        parkedQuestion = nil
    }
}

extension TUIState.Question {
    /// The keys that answer it: y and n, and r or s when it offers them.
    var answers: Set<Character> {
        var keys: Set<Character> = ["y", "n"]
        if rewrite != nil { keys.insert("r") }
        if skip != nil { keys.insert("s") }
        return keys
    }

    /// The text without its keys (`(y/n)`, `(y/r/n)`, `(y/n/s=skip them)`, wherever they are in
    /// it), and those keys.
    var sentenceAndKeys: (sentence: String, keys: String) {
        guard let open = text.range(of: "(y/", options: .backwards), let close = text[open.upperBound...].firstIndex(of: ")") else { return (text, "") }
        let keys = String(text[open.lowerBound...close])
        let before = text[..<open.lowerBound].trimmingCharacters(in: .whitespaces)
        let after = text[text.index(after: close)...].trimmingCharacters(in: .whitespaces)
        return (after.isEmpty ? before : before + " " + after, keys)
    }

    /// As the screen shows it: the sentence, then its keys at the end.
    var shown: String {
        let (sentence, keys) = sentenceAndKeys
        return keys.isEmpty ? sentence : sentence + " " + keys
    }
}
