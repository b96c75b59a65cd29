import Foundation
import TimbreCore

/// New orders and duplicate finding over a playlist as Spotify holds it (`LivePlaylist`): the
/// entries' metadata by position, an entry Spotify cannot name (null track) kept where it is in
/// relative order at the end of a sort.
public enum Reordering {
    typealias SortKey = LibraryChange.SortKey

    /// One entry by position; nil where Spotify sent no track.
    static func entries(of live: LivePlaylist) -> [CachedEntry?] {
        var byPosition = [CachedEntry?](repeating: nil, count: live.uris.count)
        for item in live.items.items where byPosition.indices.contains(item.position) { byPosition[item.position] = item }
        return byPosition
    }

    /// A random order of `count` entries; with a seed, always the same one for that seed and count.
    static func shuffled(_ count: Int, seed: UInt64? = nil) -> [Int] {
        var order = Array(0..<count)
        var generator = SeededGenerator(state: seed ?? UInt64.random(in: .min ... .max))
        // A shuffle that changes nothing is no shuffle (two entries can come out in place).
        for _ in 0..<5 {
            order.shuffle(using: &generator)
            if count < 2 || order != Array(0..<count) { break }
        }
        return order
    }

    /// A stable sort: equal keys keep their order; entries without a track go last.
    static func sorted(_ entries: [CachedEntry?], by key: SortKey, reverse: Bool) -> [Int] {
        func text(_ entry: CachedEntry) -> String {
            switch key {
            case .title: return SearchText.fold(entry.name)
            case .artist: return SearchText.fold(entry.artists.first ?? "")
            case .album: return SearchText.fold(entry.album ?? "")
            case .added: return entry.addedAt ?? ""
            case .year: return entry.releaseDate ?? ""
            case .duration: return String(entry.durationMS).leftPadded(to: 12)
            }
        }
        let keyed = entries.indices.map { ($0, entries[$0].map(text)) }
        let usable = keyed.filter { $0.1 != nil }.sorted { a, b in
            guard let x = a.1, let y = b.1 else { return false }
            if x == y { return a.0 < b.0 }
            return reverse ? x > y : x < y
        }
        return usable.map(\.0) + keyed.filter { $0.1 == nil }.map(\.0)
    }

    /// A duplicate found by `dedupe`: the entry at `position` repeats the one at `duplicateOf`.
    struct Duplicate: Sendable, Equatable {
        var position: Int
        var uri: String
        var duplicateOf: Int
    }

    /// Keep-first: every later copy. Exact = the same URI (a track id, or a local file's URI);
    /// fuzzy = also the same normalised title and first artist, durations within 2,000 ms.
    static func duplicates(_ entries: [CachedEntry?], uris: [String], fuzzy: Bool) -> [Duplicate] {
        var firstByURI: [String: Int] = [:]
        var firstByTitle: [String: [Int]] = [:]
        var found: [Duplicate] = []
        for position in uris.indices {
            let uri = uris[position]
            guard !LivePlaylist.isUnusable(uri) else { continue }
            if let first = firstByURI[uri] {
                found.append(Duplicate(position: position, uri: uri, duplicateOf: first))
                continue
            }
            if fuzzy, let entry = entries[position] {
                let key = normalisedTitle(entry.name) + "\u{1F}" + SearchText.fold(entry.artists.first ?? "")
                if let match = firstByTitle[key]?.first(where: { other in entries[other].map { abs($0.durationMS - entry.durationMS) <= 2_000 } ?? false }) {
                    found.append(Duplicate(position: position, uri: uri, duplicateOf: match))
                    continue
                }
                firstByTitle[key, default: []].append(position)
            }
            firstByURI[uri] = position
        }
        return found
    }

    /// What makes two rows the same song for a search: normalised title and folded first artist.
    public static func key(title: String, artist: String) -> String {
        normalisedTitle(title) + "\u{1F}" + SearchText.fold(artist)
    }

    /// Case and accents folded, and version suffixes dropped: "Song - Remastered 2011",
    /// "Song (2011 Remaster)", "Song - Live at …", "Song [Mono]".
    public static func normalisedTitle(_ title: String) -> String {
        var text = SearchText.fold(title)
        let patterns = [#"\s+-\s+.*$"#, #"\s*[\(\[][^\)\]]*(remaster|version|mono|stereo|live|edit|mix|deluxe|bonus)[^\)\]]*[\)\]]"#]
        for pattern in patterns {
            text = text.replacingOccurrences(of: pattern, with: "", options: .regularExpression)
        }
        return text.trimmingCharacters(in: .whitespaces)
    }
}
