import ArgumentParser
import Foundation
import TimbreCore
import TimbreLibrary

extension Root {
    struct Playlists: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the cached playlists (offline: reads the cache, sends no request).",
            discussion: "Liked Songs first, then your playlists in Spotify's order. Run `timbre sync` to fill the cache.")

        @Flag(help: "Print a JSON array (see README for the shape).")
        var json = false

        func run() async throws {
            let context = try AppContext.load()
            guard let cache = try context.existingCache() else {
                if json { Output.json(.array([])) }
                Output.warning("the cache is empty — run `timbre sync` first")
                return
            }
            let playlists = try cache.playlists()
            if json {
                Output.json(.array(playlists.map(\.json)))
                return
            }
            var lines: [String] = []
            for playlist in playlists {
                let count = String(playlist.trackCount).leftPadded(to: 6)
                var flags: [String] = []
                if playlist.unavailable { flags.append("unavailable") }
                if playlist.collaborative { flags.append("collaborative") }
                let suffix = flags.isEmpty ? "" : "  [\(flags.joined(separator: ", "))]"
                lines.append("\(playlist.id.padding(toLength: 22, withPad: " ", startingAt: 0))  \(count)  \(TerminalText.sanitize(playlist.name))\(suffix)")
            }
            Output.lines(lines)
        }
    }

    struct Tracks: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a cached playlist's items (offline).",
            discussion: """
                REF is a playlist ID (22 letters and digits), spotify:playlist:ID, \
                https://open.spotify.com/playlist/ID, or `liked` for Liked Songs. Items whose track \
                Spotify returns as null are left out, so positions may have gaps.
                """)

        @Argument(help: "The playlist: ID, spotify:playlist:ID, open.spotify.com link, or liked.")
        var ref: String

        @Flag(help: "Print a JSON array.")
        var json = false

        @Flag(help: "Print CSV (RFC 4180): position,name,artists,album,duration_ms,added_at,uri.")
        var csv = false

        func validate() throws {
            if json && csv { throw ValidationError("'--csv' and '--json' cannot be used together") }
        }

        func run() async throws {
            let reference = try PlaylistRef.parse(ref)
            let context = try AppContext.load()
            guard let cache = try context.existingCache(), let items = try cache.items(of: reference) else {
                throw NotCached(reference: reference)
            }
            if json {
                Output.json(.array(items.map(\.json)))
            } else if csv {
                Output.lines([CachedItem.csvHeader] + items.map(\.csvRow), terminator: "\r\n")
            } else {
                Output.lines(items.map { item in
                    let artists = item.artists.joined(separator: ", ")
                    let minutes = item.durationMS / 60_000, seconds = (item.durationMS / 1000) % 60
                    let duration = "\(minutes):" + String(seconds).leftPadded(to: 2, with: "0")
                    let album = item.album.map { " · \($0)" } ?? ""
                    return TerminalText.sanitize("\(String(item.position).leftPadded(to: 5))  \(item.name) — \(artists)\(album)  \(duration)")
                })
            }
        }
    }
}

struct NotCached: UserFacingError {
    let reference: PlaylistRef
    var message: String { reference == .liked ? "Liked Songs are not in the cache" : "playlist \(reference) is not in the cache" }
    var hint: String? { "run `timbre sync` (or `timbre sync --playlist \(reference)`) first; `timbre playlists` lists what is cached" }
    var exitStatus: ExitStatus { .failure }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = " ") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
