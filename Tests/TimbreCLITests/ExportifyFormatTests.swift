import Foundation
import Testing
import TimbreCore
import TimbreLibrary

@testable import TimbreApp

/// Exportify's files as they are found: the headers and quirks of real exports, each layout. The
/// watsonbox line is the one its own tests expect (watsonbox/exportify, src/components/PlaylistTable.test.tsx);
/// the other layouts are built the way pavelkomarov/exportify's exportify.js builds them (BOM, bare
/// `\n`, artists joined by `;` — or, before September 2024, bare ids under `Spotify ID`).
@Suite struct ExportifyFormatTests {
    static let watsonboxHeader =
        #""Track URI","Track Name","Artist URI(s)","Artist Name(s)","Album URI","Album Name","Album Artist URI(s)","Album Artist Name(s)","Album Release Date","Album Image URL","Disc Number","Track Number","Track Duration (ms)","Track Preview URL","Explicit","Popularity","ISRC","Added By","Added At""#
    static let watsonboxCrying =
        #""spotify:track:1GrLfs4TEvAZ86HVzXHchS","Crying","spotify:artist:4TXdHyuAOl3rAOFmZ6MeKz","Six by Seven","spotify:album:4iwv7b8gDPKztLkKCbWyhi","Best of Six By Seven","spotify:artist:4TXdHyuAOl3rAOFmZ6MeKz","Six by Seven","2017-02-17","https://i.scdn.co/image/ab67616d0000b273f485821b346237acbbca07ea","1","3","198093","https://p.scdn.co/mp3-preview/daf08df57a49c215c8c53dc5fe88dec5461f15c9?cid=9950ac751e34487dbbe027c4fd7f8e99","false","2","UK4UP1300002","","2020-07-19T09:24:39Z""#
    static let pavelHeader =
        "Track URI,Track Name,Album Name,Artist Name(s),Release Date,Duration (ms),Popularity,Explicit,Added By,Added At,Genres,Record Label,Danceability,Energy,Key,Loudness,Mode,Speechiness,Acousticness,Instrumentalness,Liveness,Valence,Tempo,Time Signature"
    static let pavelOldHeader =
        "Spotify ID,Artist IDs,Track Name,Album ID,Album Name,Artist Name(s),Release Date,Duration (ms),Popularity,Added By,Added At,Genres,Label,Total Album Tracks,Album Type,Danceability,Energy,Key,Loudness,Mode,Speechiness,Acousticness,Instrumentalness,Liveness,Valence,Tempo,Time Signature"

    @Test func watsonboxLayoutReadsURIsAndEscapedArtists() throws {
        let escaped =
            #""","Ohio","","Crosby\, Stills\, Nash & Young, Neil Young","","4 Way Street","","","1971-04-07","","1","5","180000","","false","","","","""#
        let rows = try PlaylistImport.rows([Self.watsonboxHeader, Self.watsonboxCrying, escaped].joined(separator: "\n") + "\n")
        #expect(rows.map(\.uri) == ["spotify:track:1GrLfs4TEvAZ86HVzXHchS", nil])
        #expect(rows.map(\.artist) == ["Six by Seven", "Crosby, Stills, Nash & Young"])
        #expect(rows[1] == PlaylistImport.Row(line: 3, uri: nil, title: "Ohio", artist: "Crosby, Stills, Nash & Young", durationMS: 180_000))
    }

    @Test func pavelkomarovLayoutsReadURIsBareIDsSemicolonsAndDurationMS() throws {
        let current =
            "\u{FEFF}" + Self.pavelHeader + "\n"
            + #"spotify:track:1GrLfs4TEvAZ86HVzXHchS,"Crying","Best of Six By Seven","Six by Seven;Guest, Jr.",2017-02-17,198093,2,false,someone,2020-07-19T09:24:39Z,"rock,indie","Label",0.5,0.6,1,-5,1,0.03,0.1,0.0,0.1,0.4,120,4"#
            + "\n"
            + #","Lost","Album","Guest, Jr.;Six by Seven",2001,201500,0,true,someone,2020-07-19T09:24:39Z,"","",,,,,,,,,,,,"# + "\n"
        let rows = try PlaylistImport.rows(current)
        #expect(rows.map(\.uri) == ["spotify:track:1GrLfs4TEvAZ86HVzXHchS", nil])
        #expect(rows.map(\.artist) == ["Six by Seven", "Guest, Jr."], "`;` separates names; a comma is part of one")
        #expect(rows.map(\.durationMS) == [198_093, 201_500], "Duration (ms) is read")

        let old =
            "\u{FEFF}" + Self.pavelOldHeader + "\n"
            + #"1GrLfs4TEvAZ86HVzXHchS,"4TXdHyuAOl3rAOFmZ6MeKz","Crying",4iwv7b8gDPKztLkKCbWyhi,"Best of Six By Seven","Six by Seven",2017-02-17,198093,2,spotify:user:someone,2020-07-19T09:24:39Z,"rock","Label",12,album,0.5,0.6,1,-5,1,0.03,0.1,0.0,0.1,0.4,120,4"#
            + "\n"
            + #",,"A local file",,"","Someone,Else",,61000,0,,,"","",,,,,,,,,,,,,,"# + "\n"
        let oldRows = try PlaylistImport.rows(old)
        #expect(oldRows.map(\.uri) == ["spotify:track:1GrLfs4TEvAZ86HVzXHchS", nil], "bare ids are track URIs")
        #expect(oldRows[1].artist == "Someone" && oldRows[1].durationMS == 61_000)
    }

    /// A watsonbox export opened and saved again by a spreadsheet: a byte-order mark, CRLF, `;`
    /// between cells (a comma-decimal locale), quotes only where needed, a short row, and the
    /// blank records spreadsheets leave at the end.
    @Test func spreadsheetReSavesWithSemicolonsShortRowsAndBlankRecords() throws {
        let resaved =
            "\u{FEFF}" + Self.watsonboxHeader.replacingOccurrences(of: "\",\"", with: ";").replacingOccurrences(of: "\"", with: "") + "\r\n"
            + "spotify:track:1GrLfs4TEvAZ86HVzXHchS;Crying;spotify:artist:4TXdHyuAOl3rAOFmZ6MeKz;Six by Seven;;Best of;;;17.02.2017;;1;3;198093;;FALSE;2;UK4UP1300002;;19.07.2020 09:24\r\n"
            + ";Short row;;\"A; B\\, C\"\r\n"
            + ";;;;;;;;;;;;;;;;;;\r\n;;;;;;;;;;;;;;;;;;\r\n"
        let rows = try PlaylistImport.rows(resaved)
        #expect(rows.map(\.line) == [2, 3], "blank records are no rows")
        #expect(rows.map(\.uri) == ["spotify:track:1GrLfs4TEvAZ86HVzXHchS", nil])
        #expect(rows[1].title == "Short row" && rows[1].artist == "A" && rows[1].durationMS == nil)
        // Tab-separated (a spreadsheet's "text" export) too.
        let tabbed = "Track URI\tTrack Name\tArtist Name(s)\r\nspotify:track:1GrLfs4TEvAZ86HVzXHchS\tCrying\tSix by Seven\r\n"
        #expect(try PlaylistImport.rows(tabbed).map(\.uri) == ["spotify:track:1GrLfs4TEvAZ86HVzXHchS"])
        // A comma anywhere in the first line keeps `,` (a name with `;` inside quotes is text).
        #expect(CSVReader.separator(of: "\"a;b\",c\n") == ",")
        #expect(CSVReader.separator(of: "\"a,b\";c\n") == ";")
        #expect(CSVReader.separator(of: "spotify:track:1GrLfs4TEvAZ86HVzXHchS\n") == ",")
    }

    @Test func theFirstArtistOfEveryJoining() {
        #expect(PlaylistImport.firstArtist("A;B") == "A")
        #expect(PlaylistImport.firstArtist("A; B") == "A")
        #expect(PlaylistImport.firstArtist("A, B") == "A")
        #expect(PlaylistImport.firstArtist("A,B") == "A")
        #expect(PlaylistImport.firstArtist(#"Earth\, Wind & Fire, Someone"#) == "Earth, Wind & Fire")
        #expect(PlaylistImport.firstArtist(#"AC\DC"#) == #"AC\DC"#, "a backslash before anything but a comma is text")
        #expect(PlaylistImport.firstArtist(#"Trailing\"#) == #"Trailing\"#)
        #expect(PlaylistImport.firstArtist("") == "")
    }

    /// Export → import: the names come back through Exportify's escaping.
    @Test func exportWritesTheNineteenColumnsAndItsArtistEscaping() throws {
        let full = CachedEntry(
            position: 0, kind: .track, id: "1GrLfs4TEvAZ86HVzXHchS", uri: "spotify:track:1GrLfs4TEvAZ86HVzXHchS",
            name: "Crying", artists: ["Crosby, Stills & Nash", "Six by Seven"], album: "Best of", durationMS: 198_093,
            addedAt: "2020-07-19T09:24:39Z", albumID: "4iwv7b8gDPKztLkKCbWyhi", releaseDate: "2017-02-17",
            artistIDs: ["", "4TXdHyuAOl3rAOFmZ6MeKz"], discNumber: 2, trackNumber: 3, explicit: true,
            isrc: "UK4UP1300002", addedBy: "someone")
        let old = CachedEntry(
            position: 1, kind: .track, id: "7ouMYWpwJ422jRcDASZB7P", uri: "spotify:track:7ouMYWpwJ422jRcDASZB7P",
            name: "=1+1", artists: ["A"], album: nil, durationMS: 5, addedAt: nil)
        let csv = PlaylistExport.csv([full, old])
        let records = try CSVReader.records(csv)
        #expect(records.map(\.fields.count) == [19, 19, 19])
        #expect(records[0].fields == PlaylistExport.header)
        #expect(
            PlaylistExport.header.joined(separator: ", ")
                == "Track URI, Track Name, Artist URI(s), Artist Name(s), Album URI, Album Name, Album Artist URI(s), Album Artist Name(s), Album Release Date, Album Image URL, Disc Number, Track Number, Track Duration (ms), Track Preview URL, Explicit, Popularity, ISRC, Added By, Added At"
        )
        #expect(
            records[1].fields == [
                "spotify:track:1GrLfs4TEvAZ86HVzXHchS", "Crying", ", spotify:artist:4TXdHyuAOl3rAOFmZ6MeKz",
                #"Crosby\, Stills & Nash, Six by Seven"#, "spotify:album:4iwv7b8gDPKztLkKCbWyhi", "Best of", "", "",
                "2017-02-17", "", "2", "3", "198093", "", "true", "", "UK4UP1300002", "spotify:user:someone",
                "2020-07-19T09:24:39Z",
            ])
        #expect(
            records[2].fields == ["spotify:track:7ouMYWpwJ422jRcDASZB7P", "'=1+1", "", "A", "", "", "", "", "", "", "", "", "5", "", "", "", "", "", ""],
            "what an older cache does not know stays empty; a formula is neutralised")
        let back = try PlaylistImport.rows(csv)
        #expect(back.map(\.artist) == ["Crosby, Stills & Nash", "A"])
        #expect(back.map(\.title) == ["Crying", "=1+1"])
        #expect(back.map(\.durationMS) == [198_093, 5])
    }

    /// Searches are counted before the first is sent: one per distinct title and artist without a URI.
    @Test func searchesAreCountedAndCappedBeforeAnyIsSent() throws {
        func row(_ line: Int, _ title: String, uri: String? = nil) -> PlaylistImport.Row {
            PlaylistImport.Row(line: line, uri: uri, title: title, artist: "X", durationMS: nil)
        }
        let rows = (0..<600).map { row($0 + 2, "Song \($0 % 501)") } + [row(700, "With URI", uri: "spotify:track:1GrLfs4TEvAZ86HVzXHchS"), row(701, "")]
        #expect(PlaylistImport.searchKeys(rows).count == 501, "repeats, rows with a URI and rows without a title are no search")
        #expect(throws: Never.self) { try PlaylistImport.checkSearches(rows, max: 501) }
        do {
            try PlaylistImport.checkSearches(rows, max: PlaylistImport.defaultMaxSearches)
            Issue.record("501 searches pass a cap of 500")
        } catch let error as InvalidInput {
            #expect(error.message == "would search 501 rows: more than 500 — pass --max-searches 501")
            #expect(error.exitStatus == .usage)
        }
        let many = (0..<3_000).map { row($0 + 2, "Song \($0)") }
        #expect(throws: InvalidInput.self) { try PlaylistImport.checkSearches(many, max: 500) }
        #expect((try? PlaylistImport.checkSearches(many, max: 500)) == nil)
        do { try PlaylistImport.checkSearches(many, max: 500) } catch let error as InvalidInput {
            #expect(error.message == "would search 3,000 rows: more than 500 — pass --max-searches 3000")
        }
    }
}
