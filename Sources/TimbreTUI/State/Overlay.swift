import Foundation

/// Help (`?`) and messages (`M`) as scrolled text over the body: j/k, C-d/C-u, C-f/C-b, g/G
/// scroll, `/` searches (n/N to the next and previous line holding the text), Esc or q closes
/// (and `M` the messages); any other key does nothing.
extension TUIState {
    /// The lines the open overlay shows, as plain text (titles of the help don't start with a space).
    var overlayText: [String] {
        switch mode {
        case .help: return KeyHelp.lines(for: keymap, width: columns)
        case .messages: return messageText(width: columns)
        default: return []
        }
    }

    /// Rows the body has (set from the layout through `pageSize`).
    var bodyRows: Int { pageSize + 1 }

    /// Every message, newest first: its time, then its text wrapped to `width` under it.
    func messageText(width: Int) -> [String] {
        let indent = "  " + String(repeating: " ", count: 10)
        return messages.reversed().flatMap { message -> [String] in
            let wrapped = TextWidth.wrap(message.text, columns: max(10, width - indent.count))
            return wrapped.enumerated().map { index, line in (index == 0 ? "  \(message.time)  " : indent) + line }
        }
    }

    /// The first line of the overlay that `bodyRows` can start at and still be full.
    private var lastTop: Int { max(0, overlayText.count - bodyRows) }

    mutating func overlayKey(_ event: Terminal.InputEvent) -> [Effect] {
        guard var overlay = currentOverlay else { return [] }
        let name: String
        switch event {
        case .key(let key): name = key.name
        case .character(let character): name = String(character)
        case .resize: return []
        }
        if overlay.typingQuery {
            typeQuery(name, event: event, into: &overlay)
        } else {
            let page = max(1, bodyRows - 1)
            switch name {
            case "Esc", "q":
                closeOverlay()
                return []
            case "M" where mode.kind == .messages:
                closeOverlay()
                return []
            case "j", "Down": overlay.top += 1
            case "k", "Up": overlay.top -= 1
            case "C-d": overlay.top += max(1, page / 2)
            case "C-u": overlay.top -= max(1, page / 2)
            case "C-f", "PageDown", "Space", " ": overlay.top += page
            case "C-b", "PageUp": overlay.top -= page
            case "g", "Home": overlay.top = 0
            case "G", "End": overlay.top = lastTop
            case "/":
                overlay.typingQuery = true
                overlay.query = ""
            case "n": overlay.top = match(overlay.query, from: overlay.top + 1, forward: true) ?? overlay.top
            case "N": overlay.top = match(overlay.query, from: overlay.top - 1, forward: false) ?? overlay.top
            default: return []
            }
        }
        overlay.top = min(max(0, overlay.top), lastTop)
        setOverlay(overlay)
        return []
    }

    /// Typing the `/` query of an overlay: Enter goes to the first line holding it (from the
    /// top of the view), Esc drops it.
    private mutating func typeQuery(_ name: String, event: Terminal.InputEvent, into overlay: inout Overlay) {
        switch (name, event) {
        case ("Enter", _):
            overlay.typingQuery = false
            overlay.top = match(overlay.query, from: overlay.top, forward: true) ?? match(overlay.query, from: 0, forward: true) ?? overlay.top
            message = overlay.query.isEmpty || match(overlay.query, from: 0, forward: true) != nil ? nil : "“\(overlay.query)” is not in this list"
        case ("Esc", _):
            overlay.typingQuery = false
            overlay.query = ""
        case ("Backspace", _):
            if overlay.query.isEmpty { overlay.typingQuery = false } else { overlay.query.removeLast() }
        case (_, .character(let character)): overlay.query.append(character)
        default: break
        }
    }

    /// The first line at or after `from` (or at or before it) that holds `query`, ignoring case.
    private func match(_ query: String, from: Int, forward: Bool) -> Int? {
        let lines = overlayText
        guard !query.isEmpty, !lines.isEmpty else { return nil }
        let needle = query.lowercased()
        let indices: [Int]
        if forward {
            indices = from < lines.count ? Array(max(0, from)..<lines.count) : []
        } else {
            indices = from >= 0 ? Array((0...min(from, lines.count - 1)).reversed()) : []
        }
        return indices.first { lines[$0].lowercased().contains(needle) }
    }

    var currentOverlay: Overlay? {
        switch mode {
        case .help(let overlay), .messages(let overlay): return overlay
        default: return nil
        }
    }

    private mutating func setOverlay(_ overlay: Overlay) {
        switch mode {
        case .help: mode = .help(overlay)
        case .messages: mode = .messages(overlay)
        default: break
        }
    }
}
