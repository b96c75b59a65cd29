import Foundation

/// The lines under the body at any width ≥ 60: the keys to try (the least needed left out when the
/// line is narrow), a question or a message wrapped whole, the `:` prompt's candidates.
extension Screen {
    /// The keys to try, in the order shown; those dropped first when the line is narrow come first
    /// in `dropOrder`.
    static let normalHints = ["? help", "/ filter", "F search all", "Space mark", "d remove", "y/p copy", "u undo", ": commands", "q quit"]
    static let overlayHints = ["j k C-d C-u g G scroll", "/ search", "n N next, previous", "Esc or q closes"]
    static let dropOrder = ["y/p copy", "u undo", "Space mark", "d remove", "n N next, previous", "F search all", "/ filter", "/ search"]

    /// `items` joined by " · ", leaving out the least needed until the line fits `width`: the first
    /// and the last (help, quit) always stay.
    static func hint(_ items: [String], width: Int) -> String {
        var shown = items
        func line() -> String { " " + shown.joined(separator: " · ") }
        for drop in dropOrder where TextWidth.width(of: line()) > width {
            shown.removeAll { $0 == drop }
        }
        return line()
    }

    /// The lines under the body (at most `room`): a question or a message wrapped to the width,
    /// the `:` prompt with the candidates for what is typed under it; else the one `inputLine`.
    static func bottomLines(_ state: TUIState, width: Int, room: Int) -> [Segment] {
        let room = max(1, room)
        switch state.mode {
        case .confirm(let question): return questionLines(question, width: width, room: room)
        case .typing(.command, _): return [inputLine(state, width: width)] + candidateLines(state, width: width, room: room - 1)
        case .normal, .searchResults, .catalogResults, .info, .versions:
            guard let message = state.message else { break }
            return messageLines(message, more: state.messages.last?.text == message, width: width, room: room)
        default: break
        }
        return [inputLine(state, width: width)]
    }

    /// A question wrapped onto as many lines as it needs (at most `room`), its keys always at the
    /// end: when it is longer than that, its sentence is cut and the keys kept.
    static func questionLines(_ question: TUIState.Question, width: Int, room: Int) -> [Segment] {
        let columns = max(10, width - 2)
        var lines = TextWidth.wrap(question.shown, columns: columns)
        if lines.count > room {
            let (sentence, keys) = question.sentenceAndKeys
            let tail = keys.isEmpty ? "" : "… " + keys
            lines = Array(TextWidth.wrap(sentence, columns: columns).prefix(max(1, room)))
            let last = lines.removeLast()
            lines.append(TextWidth.fit(last, columns: max(1, columns - TextWidth.width(of: tail))) + tail)
        }
        return lines.map { Segment(TextWidth.pad(" " + $0, columns: width), .warning) }
    }

    /// A message wrapped to the width: whole on up to two lines (four for one not kept in `M`),
    /// else cut there with "(M for more)".
    static func messageLines(_ message: String, more: Bool, width: Int, room: Int) -> [Segment] {
        let columns = max(10, width - 2)
        let all = TextWidth.wrap(message, columns: columns)
        let limit = max(1, min(more ? 2 : 4, room))
        var lines = Array(all.prefix(limit))
        if all.count > limit {
            let suffix = more ? " (M for more)" : "…"
            lines[limit - 1] = TextWidth.fit(lines[limit - 1], columns: columns - TextWidth.width(of: suffix)) + suffix
        }
        return lines.map { Segment(TextWidth.pad(" " + $0, columns: width), .warning) }
    }

    /// Under the `:` prompt: what the word before the cursor can become, each with what it does
    /// (the one Tab shows now highlighted), at most `room` and never more than eight.
    static func candidateLines(_ state: TUIState, width: Int, room: Int) -> [Segment] {
        let (items, selected) = state.promptCandidates()
        let limit = min(8, room, items.count)
        guard limit > 0 else { return [] }
        // The window follows the one Tab shows.
        let first = min(max(0, (selected ?? 0) - limit + 1), items.count - limit)
        let usageWidth = min(28, items.map { TextWidth.width(of: $0.text) }.max() ?? 0)
        return (first..<(first + limit)).map { index in
            let item = items[index]
            let text = "  " + TextWidth.pad(item.text, columns: usageWidth) + (item.help.isEmpty ? "" : "  " + item.help)
            let more = index == first + limit - 1 && items.count > first + limit ? "  (+\(items.count - first - limit) more)" : ""
            let fitted = TextWidth.fit(text, columns: width - TextWidth.width(of: more)) + more
            return Segment(TextWidth.pad(fitted, columns: width), index == selected ? .selected : .dim)
        }
    }
}
