import Testing
import TimbreCore

@testable import TimbreTUI

@Suite struct FoldedColumnsTests {
    static func row(_ position: Int, _ title: String, _ artist: String = "", _ album: String = "") -> EntryRow {
        EntryRow(position: position, title: title, artist: artist, album: album, durationMS: 0, addedAt: nil)
    }

    /// What `rows(matching:)` must equal: a plain scan of every row's fields.
    static func reference(_ rows: [EntryRow], _ query: String) -> [Int] {
        let needle = SearchText.fold(query)
        return rows.indices.filter { index in
            [rows[index].title, rows[index].artist, rows[index].album].contains { SearchText.fold($0).contains(needle) }
        }
    }

    @Test func matchesLikeAScanOfEveryRow() {
        let rows = [
            Self.row(0, "Halo", "Beyoncé", "I Am... Sasha Fierce"), Self.row(1, "Ångström", "Sigur Rós"), Self.row(2, "river", "Leon Bridges"),
            Self.row(3, "日本の歌", "アーティスト"), Self.row(4, "", "", ""), Self.row(5, "Cry Me a River", "Justin"), Self.row(6, "RIVERS"),
            Self.row(7, "x\u{1F}y\u{1E}z", "ctl"), Self.row(8, "Ｆｕｌｌｗｉｄｔｈ"),
        ]
        let columns = FoldedColumns(rows)
        #expect(columns.count == rows.count)
        for query in ["river", "beyonce", "BEYONCÉ", "angstrom", "ros", "日本", "a", "e", "zzqx", "x y", "fullwidth", "halo beyonce", "n", "s"] {
            #expect(columns.rows(matching: SearchText.foldedBytes(query)) == Self.reference(rows, query), "\(query)")
        }
        #expect(columns.rows(matching: []) == Array(rows.indices))
    }

    @Test func matchesNeverSpanTwoFieldsOrRows() {
        let columns = FoldedColumns([Self.row(0, "abc", "def"), Self.row(1, "ghi")])
        #expect(columns.rows(matching: SearchText.foldedBytes("cd")).isEmpty, "title and artist are separate")
        #expect(columns.rows(matching: SearchText.foldedBytes("fg")).isEmpty, "rows are separate")
        #expect(columns.text(0, .artist) == "def" && columns.text(1, .album) == "")
    }

    @Test func narrowingKeepsTheGivenOrder() {
        let rows = (0..<50).map { Self.row($0, $0 % 3 == 0 ? "love song \($0)" : "other \($0)") }
        let columns = FoldedColumns(rows)
        let visible = Array((0..<50).reversed())
        #expect(columns.rows(matching: SearchText.foldedBytes("love"), among: visible) == visible.filter { $0 % 3 == 0 })
    }

    @Test func sortKeysCompareFoldedBytes() {
        let columns = FoldedColumns([Self.row(0, "beta"), Self.row(1, "Alpha"), Self.row(2, "alp"), Self.row(3, "Érable")])
        let sorted = (0..<4).sorted { columns.precedes($0, $1, by: .title) }
        #expect(sorted == [2, 1, 0, 3], "alp < alpha < beta < erable")
    }

    @Test func manyRowsMatchTheReference() {
        var rows: [EntryRow] = []
        let words = ["river", "night", "ghost", "Beyoncé", "mañana", "東京", "love", "x"]
        for i in 0..<20_000 {
            rows.append(Self.row(i, "\(words[i % 8]) \(i)", words[(i / 8) % 8], i % 5 == 0 ? "Album \(i % 97)" : ""))
        }
        let columns = FoldedColumns(rows)
        // Single letters and digits (answered by the masks), punctuation and non-ASCII bytes
        // (masks shared with other bytes), anchors at every position of the needle.
        let queries = ["river 1", "beyonce", "97", "東", "zz", "r", "7", " ", "ñ", "x 1", "ma", "night 19", "album 9", "ost 2"]
        // Candidates in a shuffled order, few (each row read) and many (one scan, then the order kept).
        var generator = SystemRandomNumberGenerator()
        let shuffled = Array(rows.indices).shuffled(using: &generator)
        for query in queries {
            let needle = SearchText.foldedBytes(query)
            let expected = Self.reference(rows, query)
            #expect(columns.rows(matching: needle) == expected, "\(query)")
            let matching = Set(expected)
            for candidates in [Array(shuffled.prefix(500)), shuffled] {
                #expect(columns.rows(matching: needle, among: candidates) == candidates.filter { matching.contains($0) }, "\(query)")
            }
        }
    }

    @Test func rarestByteAnchorsTheScan() {
        #expect(SearchText.rarestIndex(Array("the night".utf8)) == 6, "g is rarer than t, h, e, n, i and the space")
        #expect(SearchText.rarestIndex(Array("zzqx".utf8)) == 0)
        #expect(SearchText.rarestIndex(Array("a1".utf8)) == 1, "digits count as rare")
    }
}
