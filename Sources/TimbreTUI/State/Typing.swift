import Foundation

/// Typing at `:`, `/`, `F` and `a`: the line is edited as readline does (PromptLine.swift), Up and
/// Down walk that prompt's history, Tab completes (Completion.swift), Enter runs the line.
extension TUIState {
    public enum TypedKey: Sendable, Equatable {
        case character(Character), backspace, enter, escape
        /// Cursor movement and deletions other than Backspace.
        case edit(PromptLine.Edit)
        /// Up (`older: true`) and Down.
        case history(older: Bool)
        /// Tab (`forward: true`) and BackTab.
        case complete(forward: Bool)
    }

    /// The editing keys of a prompt, by name.
    static let typingKeys: [String: TypedKey] = [
        "Enter": .enter, "Esc": .escape, "Backspace": .backspace, "Delete": .edit(.deleteForward),
        "Left": .edit(.left), "Right": .edit(.right), "Home": .edit(.home), "End": .edit(.end),
        "C-a": .edit(.home), "C-e": .edit(.end), "C-w": .edit(.deleteWord), "C-u": .edit(.deleteToStart),
        "Up": .history(older: true), "Down": .history(older: false),
        "Tab": .complete(forward: true), "BackTab": .complete(forward: false),
    ]

    mutating func typingKey(_ event: Terminal.InputEvent) -> [Effect] {
        switch event {
        case .character(let character): return type(.character(character))
        case .key(let key): return Self.typingKeys[key.name].map { type($0) } ?? []
        case .resize: return []
        }
    }

    /// A key in an input mode. Enter runs what was typed at `:` (through `apply`) or starts the
    /// search; at `/` every change filters at once.
    @discardableResult
    public mutating func type(_ key: TypedKey) -> [Effect] {
        guard case .typing(let prompt, var line) = mode else {
            // Outside a typing mode only Esc does something: back to normal.
            if key == .escape { mode = .normal }
            return []
        }
        let before = line.text
        switch key {
        case .escape:
            // Esc at `/` cancels: the filter in force before it (none, or the previous pattern).
            if prompt == .filter, currentFilter != line.previous { setFilter(line.previous) }
            mode = .normal
            return []
        case .enter:
            return enter(prompt, line.text)
        case .backspace where line.text.isEmpty && prompt != .filter:
            mode = .normal
            return []
        case .character(let character): line.edit(.insert(character))
        case .backspace: line.edit(.backspace)
        case .edit(let edit): line.edit(edit)
        case .history(let older): line.walk(promptHistory.lines(for: prompt), older: older)
        case .complete(let forward): line.complete(forward: forward) { completions(for: prompt, before: $0) }
        }
        mode = .typing(prompt, line)
        if prompt == .filter, line.text != before { setFilter(line.text) }
        return []
    }

    private mutating func enter(_ prompt: Prompt, _ text: String) -> [Effect] {
        promptHistory.add(text, for: prompt)
        mode = .normal
        switch prompt {
        case .filter:
            if !text.isEmpty { lastPattern[focus] = text }
            return []
        case .command:
            do {
                return apply(try Command.parse(text))
            } catch {
                reportError("\(error)")
                return []
            }
        case .search, .catalog:
            let query = text.trimmingCharacters(in: .whitespaces)
            guard !query.isEmpty else { return [] }
            return apply(prompt == .search ? .search(query) : .add(query))
        }
    }
}
