import Foundation
import Testing
import TimbreCore
import TimbreTestSupport

@testable import TimbreLibrary

/// Issue #31, item 8: the CSV formula guard decides on the first Unicode scalar. A formula leader
/// followed by a combining mark, a joiner or an enclosing mark — or a leading CRLF — is one
/// `Character` that is not `=`/`-`/CR, yet a spreadsheet runs it all the same. The names are put
/// into a real cache file; `timbre tracks --csv` (the real binary) writes them.
@Suite(.tags(.integration), .integrationTier)
struct CSVFormulaCLITests {
    static let id = "37i9dQZF1DXcBWIGoYBM5M"

    @Test func aFormulaLeaderFollowedByAMarkStillGetsTheQuote() async throws {
        let cli = try TimbreCLI()
        try await withCleanup({ cli.remove() }) {
            let names = [
                "=\u{301}HYPERLINK(\"http://x.example\")", "=\u{200D}1+1", "-\u{20DD}2+3", "\r\n=cmd|' /C calc'!A0", "+\u{301}1", "@\u{200D}SUM(1)",
                "''=\u{301}2", "plain",
            ]
            let cache = try LibraryCache.open(path: cli.home.appendingPathComponent("cache/timbre/library.sqlite").path, warn: { _ in })
            let items = names.enumerated().map { index, name in
                CachedEntry(
                    position: index, kind: .track, id: "4uLU6hMCjMI75M1A2tKUQC", uri: "spotify:track:4uLU6hMCjMI75M1A2tKUQC", name: name,
                    artists: ["A"], album: "Al", durationMS: 1000, addedAt: nil)
            }
            let meta = PlaylistMeta(
                id: Self.id, name: "P", ownerID: "me", ownerName: nil, snapshotID: "s1", total: names.count,
                collaborative: false, isPublic: true)
            _ = try await cache.replaceEntries(of: meta, trackCount: names.count, items: items)

            let result = try await cli.run(["tracks", Self.id, "--csv"])
            #expect(result.status == 0, "\(result.stderr)")
            let output = Data(result.stdout.utf8)
            for name in names.dropLast() {
                let cell = "\"'" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                #expect(output.range(of: Data(cell.utf8)) != nil, "\(name.debugDescription) not neutralised: \(result.stdout.debugDescription)")
            }
            #expect(output.range(of: Data(",plain,".utf8)) != nil, "\(result.stdout.debugDescription)")
        }
    }
}
