import Foundation

/// Key sequences bound in `[keys]` (`"g p" = "add-to"`), as vim's: a key that starts a sequence
/// waits for the next; the whole sequence runs its command (with the count typed before it);
/// a key that continues none lets the keys typed so far do what they do alone, then itself. Esc
/// drops the keys waiting.
extension TUIState {
    /// The effects when `key` is part of a sequence (waiting, completed or broken); nil when it is
    /// not, and the usual binding applies.
    mutating func sequenceKey(_ key: Key) -> [Effect]? {
        let keys = pendingKeys + [key]
        if let command = keymap.sequences[keys] {
            pendingKeys = []
            let count = pendingCount
            pendingCount = nil
            return apply(command, count: count)
        }
        if keymap.startsSequence(keys) {
            pendingKeys = keys
            return []
        }
        guard let first = pendingKeys.first else { return nil }
        let rest = pendingKeys.dropFirst() + [key]
        pendingKeys = []
        if key.name == "Esc" {
            pendingCount = nil
            return []
        }
        let count = pendingCount
        pendingCount = nil
        // `gg` while `g` starts a sequence (`"g p"` bound): vim's `gg`, the top (or row N).
        if rest.count == 1, key == first, case .cursor(.top, _)? = keymap.command(for: first) { return apply(.cursor(.top, count: 1), count: count) }
        var effects = keymap.command(for: first).map { apply($0, count: count) } ?? []
        for next in rest { effects += handle(.key(next)) }
        return effects
    }
}
