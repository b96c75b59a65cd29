import Foundation

/// A line being typed at `:`, `/`, `F` or `a`, edited as readline does: the cursor moves
/// (Left/Right, Home/End, C-a/C-e), C-w deletes the word before it, C-u everything before it,
/// Delete the character under it; Up/Down walk the prompt's history; Tab completes the word before
/// the cursor and, pressed again, cycles through the candidates. Pure: no I/O.
public struct PromptLine: Sendable, Equatable {
    public internal(set) var text: String
    /// Characters before the cursor (0 … text.count).
    public internal(set) var cursor: Int
    /// While Up/Down walk the history: the entry shown, and the line as it was before the walk.
    var historyIndex: Int?
    var draft = ""
    /// While Tab cycles: the text before and after the completed word, the candidates, which one is shown.
    var completion: Completion?
    /// At `/`: the filter in force when the prompt opened, which Esc puts back.
    var previous = ""

    struct Completion: Sendable, Equatable {
        var before: String
        var after: String
        var candidates: [String]
        var index: Int
    }

    public init(_ text: String = "") {
        self.text = text
        cursor = text.count
    }

    /// A key that edits the line (Enter and Esc are the prompt's, not the line's).
    public enum Edit: Sendable, Equatable {
        case insert(Character)
        case backspace, deleteForward, deleteWord, deleteToStart
        case left, right, home, end
    }

    var beforeCursor: String { String(text.prefix(cursor)) }
    var afterCursor: String { String(text.dropFirst(cursor)) }

    /// Applies an edit; any edit ends a history walk and a Tab cycle.
    mutating func edit(_ edit: Edit) {
        historyIndex = nil
        completion = nil
        var before = beforeCursor
        var after = afterCursor
        switch edit {
        case .insert(let character): before.append(character)
        case .backspace: if !before.isEmpty { before.removeLast() }
        case .deleteForward: if !after.isEmpty { after.removeFirst() }
        case .deleteWord:
            // As readline's C-w: the spaces before the cursor, then the word before them.
            while before.last == " " { before.removeLast() }
            while let last = before.last, last != " " { before.removeLast() }
        case .deleteToStart: before = ""
        case .left:
            cursor = max(0, cursor - 1)
            return
        case .right:
            cursor = min(text.count, cursor + 1)
            return
        case .home:
            cursor = 0
            return
        case .end:
            cursor = text.count
            return
        }
        text = before + after
        cursor = before.count
    }

    /// Up (`older: true`) or Down through `history` (oldest first). Down past the newest entry
    /// gives back the line as it was before Up.
    mutating func walk(_ history: [String], older: Bool) {
        completion = nil
        guard !history.isEmpty else { return }
        var index: Int?
        if older {
            index = historyIndex.map { max(0, $0 - 1) } ?? history.count - 1
            if historyIndex == nil { draft = text }
        } else {
            guard let current = historyIndex else { return }
            index = current + 1 < history.count ? current + 1 : nil
        }
        historyIndex = index
        replace(with: index.map { history[$0] } ?? draft)
    }

    /// Tab (`forward: true`) or BackTab. The first Tab finds the candidates for the word before
    /// the cursor (`candidates` is given that word's line up to it) and shows the first; each
    /// further Tab the next one, wrapping around.
    mutating func complete(forward: Bool, candidates: (_ before: String) -> (word: String, matches: [String])) {
        historyIndex = nil
        if var cycle = completion, !cycle.candidates.isEmpty {
            let count = cycle.candidates.count
            cycle.index = ((cycle.index + (forward ? 1 : -1)) % count + count) % count
            show(cycle)
            return
        }
        let before = beforeCursor
        let (word, matches) = candidates(before)
        guard !matches.isEmpty else { return }
        let cycle = Completion(before: String(before.dropLast(word.count)), after: afterCursor, candidates: matches, index: forward ? 0 : matches.count - 1)
        show(cycle)
    }

    private mutating func show(_ cycle: Completion) {
        let chosen = cycle.candidates[cycle.index]
        text = cycle.before + chosen + cycle.after
        cursor = (cycle.before + chosen).count
        completion = cycle
    }

    private mutating func replace(with line: String) {
        text = line
        cursor = line.count
    }
}

/// What the lines typed at each prompt were, for Up/Down, kept for the session.
public struct PromptHistory: Sendable, Equatable {
    private var lines: [TUIState.Prompt: [String]] = [:]
    public static let limit = 100

    public init() {}

    public func lines(for prompt: TUIState.Prompt) -> [String] { lines[prompt] ?? [] }

    /// Adds a line (not a blank one, nor the same as the newest again).
    public mutating func add(_ line: String, for prompt: TUIState.Prompt) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, lines[prompt]?.last != line else { return }
        lines[prompt, default: []].append(line)
        if let count = lines[prompt]?.count, count > Self.limit { lines[prompt]?.removeFirst(count - Self.limit) }
    }
}
