import Testing
import TimbreCore
import TimbreLibrary
import TimbreTestSupport

@testable import TimbreTUI

/// Marks, yank/paste, moves and the `:` verbs become exactly the edits the CLI would make — or,
/// for a playlist the user cannot change, a message and no effect at all.
@Suite struct ManagingTests {
    static let rows = (0..<6).map { i in
        EntryRow(
            position: i, title: "Song \(i)", artist: i % 2 == 0 ? "Nina Simone" : "Massive Attack", album: "Album \(i / 2)",
            durationMS: 150_000 + i * 20_000, addedAt: "2024-01-0\(i + 1)T00:00:00Z", uri: "spotify:track:\(String(repeating: "a", count: 21))\(i)",
            year: 1985 + i * 4)
    }

    /// Playlists: Liked Songs, two of the user's, one of someone else's; "mine000000000000000000" open on the tracks pane.
    func state(open id: String = "mine000000000000000000", rows: [EntryRow] = rows) -> TUIState {
        var state = TUIState()
        state.setPlaylists([
            PlaylistRow(id: "liked", name: "Liked Songs", trackCount: 2, owner: "me", unavailable: false),
            PlaylistRow(id: "mine000000000000000000", name: "Mine", trackCount: 6, owner: "me", unavailable: false),
            PlaylistRow(id: "other00000000000000000", name: "Other", trackCount: 1, owner: "me", unavailable: false),
            PlaylistRow(id: "theirs0000000000000000", name: "Theirs", trackCount: 6, owner: "someone", unavailable: false, editable: false),
        ])
        if let row = state.paneRows.firstIndex(where: { state.playlistIndex(of: $0).map { state.playlists[$0].id == id } ?? false }) {
            state.apply(.cursor(.down, count: row))
        }
        #expect(state.apply(.open) == [.loadTracks(id)])
        state.setTracks(rows, of: id)
        return state
    }

    @Test func spaceMarksAndMovesDownVMarksARangeEscClearsMarksBeforeTheFilter() throws {
        var s = state()
        s.apply(.mark)
        s.apply(.mark)
        #expect(s.marks == [0, 1] && s.trackCursor == 2)
        s.apply(.cursor(.up, count: 1))
        s.apply(.mark)
        #expect(s.marks == [0] && s.trackCursor == 2, "Space on a marked entry unmarks it")
        s.apply(.mark)
        #expect(s.marks == [0, 2] && s.trackCursor == 3)
        s.apply(.markRange)
        s.apply(.cursor(.down, count: 1))
        #expect(s.effectiveMarks == [0, 2, 3, 4] && s.marks == [0, 2], "the range follows the cursor")
        s.apply(.markRange)
        #expect(s.marks == [0, 2, 3, 4] && s.rangeAnchor == nil)
        #expect(Screen.statusText(s).contains("4 marked"))
        let screen = Screen.render(s, rows: 20, columns: 100).map { $0.map(\.text).joined() }
        #expect(screen.filter { $0.contains("•") }.count == 4, "each marked row shows it")
        s.apply(.filter("song"))
        s.apply(.clear)
        #expect(s.marks.isEmpty && s.trackFilter == "song", "Esc clears the marks first")
        s.apply(.clear)
        #expect(s.trackFilter == "")
    }

    @Test func dAsksNamingHowManyAndOnlyYesRemovesExactlyThoseEntries() throws {
        var s = state()
        s.apply(.mark)
        s.apply(.cursor(.down, count: 2))
        s.apply(.mark)
        #expect(s.handle(.character("d")) == [])
        // Each entry is named by its number as the interface shows it (from 1).
        #expect(s.mode.kind == .confirm && s.question?.text == "Remove 2 entries from “Mine”? (y/n) #1 Song 0 — Nina Simone, #4 Song 3 — Massive Attack")
        let line = Screen.render(s, rows: 20, columns: 100)[18].map(\.text).joined()
        // On screen the entries it names come before its keys, which end it.
        #expect(
            line.contains("Remove 2 entries from “Mine”? #1 Song 0") && line.trimmingCharacters(in: .whitespaces).hasSuffix("Massive Attack (y/n)"), "\(line)")
        #expect(s.handle(.character("n")) == [])
        #expect(s.mode.kind == .normal && s.message == "cancelled; nothing was sent" && s.marks == [0, 3])
        #expect(s.handle(.character("d")) == [])
        #expect(s.handle(.character("y")) == [.edit(.entries(.test("mine000000000000000000"), .removePositions([0, 3])))])
        #expect(s.marks.isEmpty)
        // Nothing marked: the entry under the cursor.
        s.apply(.cursor(.top, count: 1))
        s.apply(.cursor(.down, count: 1))
        _ = s.apply(.remove)
        #expect(s.question?.text == "Remove 1 entry from “Mine”? (y/n) #2 Song 1 — Massive Attack")
        let escape = try #require(Key("Esc"))
        #expect(s.handle(.key(escape)) == [], "any other key cancels")
    }

    @Test func yankedEntriesPasteAfterOrBeforeTheCursorInAnotherPlaylist() {
        var s = state()
        s.apply(.cursor(.down, count: 1))
        s.apply(.markRange)
        s.apply(.cursor(.down, count: 2))
        s.apply(.yank)
        #expect(s.register == Array(Self.rows[1...3].map(\.uri)) && s.marks.isEmpty)
        // Open "Other" and paste after its second entry, then before its first.
        s.apply(.focus(.playlists))
        s.apply(.cursor(.down, count: 1))
        #expect(s.selectedPlaylist?.id == "other00000000000000000")
        s.apply(.open)
        s.setTracks(
            Array(Self.rows[4...5]).enumerated().map {
                var row = $1
                row.position = $0
                return row
            }, of: "other00000000000000000")
        s.apply(.cursor(.down, count: 1))
        #expect(s.apply(.paste(.after)) == [.edit(.entries(.test("other00000000000000000"), .add(uris: s.register, position: 2)))])
        s.apply(.cursor(.top, count: 1))
        #expect(s.apply(.paste(.before)) == [.edit(.entries(.test("other00000000000000000"), .add(uris: s.register, position: 0)))])
    }

    @Test func aPlaylistOfSomeoneElseIsLockedAndEveryEditOfItSendsNothing() {
        var s = state(open: "theirs0000000000000000")
        s.apply(.mark)
        for command: Command in [
            .remove, .paste(.after), .shift(.down), .dedupe(fuzzy: false), .shuffle, .sort(.artist, reverse: false, save: true), .saveOrder,
            .add("x"), .importFile("a.csv"), .rename("New"),
        ] {
            s.apply(.yank)
            #expect(s.apply(command) == [], "\(command)")
            #expect(s.mode.kind != .confirm)
        }
        _ = s.apply(.remove)
        #expect(s.message?.contains("🔒") == true && s.message?.contains("nothing was sent") == true)
        #expect(Screen.rightHeader(s).contains("🔒 read-only"))
        let screen = Screen.render(s, rows: 20, columns: 100).map { $0.map(\.text).joined() }
        #expect(screen.contains { $0.contains("🔒Theirs") }, "the lock shows in the playlists pane")
        // Reading it is fine: export and statistics.
        #expect(s.apply(.export("t.csv")) == [.edit(.transfer(.export(.playlist(.test("theirs0000000000000000")), path: "t.csv")))])
        #expect(s.apply(.info) == [.loadInfo("theirs0000000000000000")])
    }

    @Test func jAndKMoveOneRunInPlaylistOrderAndTheMarksFollow() {
        var s = state()
        s.apply(.cursor(.down, count: 1))
        s.apply(.mark)
        s.apply(.mark)
        #expect(s.marks == [1, 2])
        #expect(s.apply(.shift(.down)) == [.edit(.entries(.test("mine000000000000000000"), .move(start: 1, length: 2, to: 2)))])
        #expect(s.marks == [2, 3])
        #expect(s.apply(.shift(.up)) == [.edit(.entries(.test("mine000000000000000000"), .move(start: 2, length: 2, to: 1)))])
        s.apply(.cursor(.top, count: 1))
        s.apply(.clear)
        #expect(s.apply(.shift(.up)) == [] && s.message == "already at the top")
        s.apply(.cursor(.bottom, count: 1))
        #expect(s.apply(.shift(.down)) == [] && s.message == "already at the end")
        s.apply(.mark)
        s.apply(.cursor(.top, count: 1))
        s.apply(.mark)
        #expect(s.apply(.shift(.down)) == [], "marks 0 and 5 are not one run")
        s.apply(.clear)
        s.apply(.order(.set(.title, .desc)))
        #expect(s.apply(.shift(.down)) == [] && s.message?.contains("sort position") == true)
    }

    /// J moves the rows in the view at once (ahead of Spotify), marked pending; the list read
    /// after the edit replaces them.
    @Test func jMovesTheViewAheadAndMarksThePendingRows() {
        var s = state()
        let titles = s.tracks.map(\.title)
        #expect(s.apply(.shift(.down)).count == 1)
        #expect(s.apply(.shift(.down)).count == 1)
        #expect(s.tracks.map(\.title) == [titles[1], titles[2], titles[0]] + titles[3...])
        #expect(s.tracks.map(\.position) == Array(0..<titles.count))
        #expect(s.pendingRows == [2], "the moved row, where it is now")
        #expect(s.selectedTrack?.title == titles[0], "the cursor follows the row")
        s.setTracks(Self.rows, of: "mine000000000000000000")
        #expect(s.pendingRows.isEmpty)
    }

    /// A removal leaves the view at once; while an edit the view cannot show (a paste) is under
    /// way, positional edits of that playlist wait — their positions could name other entries.
    @Test func removalsShowAtOnceAndPositionsWaitForEditsTheViewCannotShow() {
        var s = state()
        let titles = s.tracks.map(\.title)
        s.editStarted(.entries(.test("mine000000000000000000"), .removePositions([1, 3])))
        #expect(s.tracks.map(\.title) == [titles[0], titles[2], titles[4], titles[5]])
        #expect(s.tracks.map(\.position) == [0, 1, 2, 3])
        s.editEnded(.entries(.test("mine000000000000000000"), .removePositions([1, 3])))
        let paste = TUIEdit.entries(.test("mine000000000000000000"), .add(uris: ["spotify:track:x"], position: 0))
        s.editStarted(paste)
        #expect(s.positionsUnsure("mine000000000000000000") && !s.positionsUnsure("other00000000000000000"))
        #expect(s.apply(.shift(.down)) == [] && s.message?.contains("wait for it") == true)
        #expect(s.apply(.remove) == [] && s.mode.kind != .confirm)
        #expect(s.tracks.count == 4, "nothing moved in the view")
        s.editEnded(paste)
        #expect(s.apply(.shift(.down)).count == 1)
        s.editStarted(.undo)
        #expect(s.positionsUnsure("other00000000000000000"), "an undo may change any playlist")
        s.editEnded(.undo, all: true)
        #expect(!s.positionsUnsure("mine000000000000000000"))
    }

    /// Who sees a playlist shows in the pane (◦ private, ⇄ collaborative) and in the header.
    @Test func visibilityShowsInThePaneAndTheHeader() {
        var s = state()
        s.setPlaylists([
            PlaylistRow(id: "mine000000000000000000", name: "Mine", trackCount: 6, owner: "me", unavailable: false, visibility: .private),
            PlaylistRow(id: "other00000000000000000", name: "Shared", trackCount: 1, owner: "me", unavailable: false, visibility: .collaborative),
        ])
        s.setTracks(Self.rows, of: "mine000000000000000000")
        #expect(Screen.rightHeader(s).contains("· private"))
        let screen = Screen.render(s, rows: 20, columns: 100).map { $0.map(\.text).joined() }
        #expect(screen.contains { $0.contains("Mine") && $0.contains("◦6") })
        #expect(screen.contains { $0.contains("Shared") && $0.contains("⇄1") })
    }

    @Test func likedSongsRemovalUnlikesAndHasNoOrderToChange() {
        var s = state(open: "liked", rows: Array(Self.rows[0...1]))
        _ = s.apply(.remove)
        #expect(s.question?.text == "Unlike 1 song? (y/n)")
        #expect(s.answer(true) == [.edit(.change(.unlike([Self.rows[0].uri])))])
        #expect(s.apply(.shuffle) == [] && s.message?.contains("no order") == true)
    }

    @Test func verbsAtThePromptBecomeEdits() {
        var s = state()
        func typed(_ text: String) -> [TUIState.Effect] {
            s.apply(.prompt)
            for character in text { _ = s.type(.character(character)) }
            return s.type(.enter)
        }
        #expect(typed("dedupe fuzzy") == [.edit(.entries(.test("mine000000000000000000"), .dedupe(fuzzy: true)))])
        #expect(typed("shuffle") == [.edit(.entries(.test("mine000000000000000000"), .shuffle))])
        #expect(typed("sort! artist") == [.edit(.entries(.test("mine000000000000000000"), .sort(.artist, reverse: false)))])
        #expect(typed("sort! year reverse") == [.edit(.entries(.test("mine000000000000000000"), .sort(.year, reverse: true)))])
        #expect(typed("rename Road Trip ’26") == [.edit(.change(.details(.test("mine000000000000000000"), PlaylistDetails(name: "Road Trip ’26"))))])
        #expect(typed("new Fresh") == [.edit(.change(.create(PlaylistDetails(name: "Fresh", isPublic: false))))])
        #expect(typed("new --public Out Loud") == [.edit(.change(.create(PlaylistDetails(name: "Out Loud", isPublic: true))))])
        #expect(typed("new --private Shh") == [.edit(.change(.create(PlaylistDetails(name: "Shh", isPublic: false))))])
        #expect(typed("new --public ") == [] && s.message?.contains("--public NAME") == true)
        #expect(typed("export /tmp/mine.csv") == [.edit(.transfer(.export(.playlist(.test("mine000000000000000000")), path: "/tmp/mine.csv")))])
        #expect(typed("import /tmp/list.csv") == [.edit(.transfer(.importFile(path: "/tmp/list.csv", into: .test("mine000000000000000000"))))])
        #expect(typed("undo") == [.edit(.undo)])
        #expect(typed("delete") == [] && s.mode.kind == .confirm)
        #expect(s.answer(true) == [.edit(.change(.delete([.test("mine000000000000000000")])))])
        #expect(typed("sort next") == [] && s.sortField == .title, "`sort next` still orders the view")
    }

    /// `:sort` orders the view only (ncspot's habit) and is remembered per playlist; `:sort!` and
    /// `:save-order` are what save an order on Spotify.
    @Test func sortOrdersTheViewAndSortBangOrSaveOrderSaves() {
        var s = state()
        func typed(_ text: String) -> [TUIState.Effect] {
            s.apply(.prompt)
            for character in text { _ = s.type(.character(character)) }
            return s.type(.enter)
        }
        #expect(typed("save-order") == [] && s.message?.contains("nothing to save") == true, "the view is in position order")
        #expect(typed("sort added desc") == [], "no edit: the view only")
        #expect(s.sortField == .added && s.sortOrder == .desc)
        #expect(s.message?.contains(":sort! added reverse") == true)
        #expect(typed("save-order") == [.edit(.entries(.test("mine000000000000000000"), .sort(.added, reverse: true)))])
        // Another playlist opens in its own order; back to this one, the view order is remembered.
        s.setTracks(Self.rows, of: "other00000000000000000")
        #expect(s.sortField == .position && s.sortOrder == .asc)
        s.setTracks(Self.rows, of: "mine000000000000000000")
        #expect(s.sortField == .added && s.sortOrder == .desc)
        s.apply(.order(.set(.position, .asc)))
        s.setTracks(Self.rows, of: "other00000000000000000")
        s.setTracks(Self.rows, of: "mine000000000000000000")
        #expect(s.sortField == .position, "back in position order, nothing is remembered")
    }

    /// `:sort`/`:shuffle` saving more than 20 moves: the edit waits on y / r / n with both costs.
    @Test func aLongOrderChangeAsksYesRewriteOrNo() {
        var s = state()
        let cost = OrderCost(op: .sort, playlistName: "Everything", key: "title", entries: 2_500, moves: 2_431, rewriteWrites: 25, canRewrite: true)
        #expect(cost.needsAsking)
        #expect(
            cost.question
                == "Sort “Everything” by title: 2,431 moves, ≈ 4 min at Spotify's pace, dates kept — or r to rewrite in 25 writes (every date becomes today). (y/r/n)"
        )
        s.askOrder(cost)
        #expect(s.mode.kind == .confirm && s.question?.text == cost.question)
        #expect(s.handle(.character("r")) == [.answerOrder(.rewrite)] && s.mode.kind == .normal)
        s.askOrder(cost)
        #expect(s.handle(.character("y")) == [.answerOrder(.moves)])
        s.askOrder(cost)
        #expect(s.handle(.character("n")) == [.answerOrder(.cancel)] && s.message == "cancelled; nothing was sent")
        // A y/n question has no r: r does not answer it (only y, n and Esc do).
        s.apply(.mark)
        _ = s.apply(.remove)
        #expect(s.handle(.character("r")) == [] && s.mode.kind == .confirm && s.marks == [0])
        #expect(s.handle(.character("n")) == [] && s.mode.kind == .normal)
        // A list with local files cannot be rewritten: y / n only; r leaves it waiting.
        var locals = cost
        locals.canRewrite = false
        s.askOrder(locals)
        #expect(s.question?.text.hasSuffix("(y/n)") == true)
        #expect(s.handle(.character("r")) == [] && s.mode.kind == .confirm)
        #expect(s.handle(.character("n")) == [.answerOrder(.cancel)])
        // Few moves: no question.
        #expect(!OrderCost(op: .shuffle, playlistName: "x", key: nil, entries: 21, moves: 20, rewriteWrites: 1, canRewrite: true).needsAsking)
    }

    @Test func fieldFiltersNarrowTheOpenPlaylistTogetherWithText() {
        var s = state()
        s.apply(.filter("year:1990-1999"))
        #expect(s.visibleTracks.map { s.tracks[$0].position } == [2, 3], "years 1993 and 1997")
        s.apply(.filter("duration:<3:30 artist:nina"))
        #expect(s.visibleTracks.map { s.tracks[$0].position } == [0, 2], "150 s and 190 s by Nina Simone")
        s.apply(.filter("artist:\"massive attack\" song 5"))
        #expect(s.visibleTracks.map { s.tracks[$0].position } == [5] && s.trackFilter == "song 5")
        #expect(Screen.rightHeader(s).contains("filter artist:\"massive attack\""))
        s.apply(.clear)
        #expect(s.entryFilter.isEmpty && s.visibleTracks.count == 6)
        s.apply(.filter("year:nineties"))
        #expect(s.message?.contains("is not a year") == true && s.visibleTracks.count == 6)
        s.apply(.order(.set(.year, .desc)))
        #expect(s.visibleTracks.map { s.tracks[$0].position } == [5, 4, 3, 2, 1, 0])
    }

    @Test func entryFilterTerms() throws {
        #expect(EntryFilter.years("1990-1999") == 1990...1999)
        #expect(EntryFilter.years("<2000") == 0...1999)
        #expect(EntryFilter.years(">=2010") == 2010...9_999)
        #expect(EntryFilter.durations("<3:00") == 0...179_999)
        #expect(EntryFilter.durations("2:30-4:00") == 150_000...240_000)
        #expect(EntryFilter.durations(">1:00:00") == 3_600_001...Int(Int32.max))
        #expect(EntryFilter.durations("3:xx") == nil && EntryFilter.years("1999-1990") == nil)
        #expect(throws: EntryFilter.Problem.self) { try EntryFilter.parse("duration:") }
        let (filter, rest) = try EntryFilter.parse("hello year:2001 world")
        #expect(filter.years == 2001...2001 && rest == "hello world")
    }

    @Test func foldersShowAsATreeAndEnterOrOTogglesAndKeepsTheState() {
        var s = TUIState()
        let playlists = ["liked", "a", "b", "c"].map { PlaylistRow(id: $0, name: $0.uppercased(), trackCount: 1, owner: "me", unavailable: false) }
        s.setPlaylists(playlists, folders: [FolderRow(name: "Road", expanded: false, playlists: ["b", "c"])])
        #expect(s.paneRows == [.playlist(0, inFolder: false), .folder(0), .playlist(1, inFolder: false)])
        s.apply(.cursor(.down, count: 1))
        #expect(s.apply(.open) == [.edit(.folder(.setExpanded("Road", true)))])
        #expect(
            s.paneRows == [
                .playlist(0, inFolder: false), .folder(0), .playlist(2, inFolder: true), .playlist(3, inFolder: true), .playlist(1, inFolder: false),
            ])
        let pane = Screen.render(s, rows: 20, columns: 100).map { $0.map(\.text).joined() }
        #expect(pane.contains { $0.hasPrefix(" ▾ Road") } && pane.contains { $0.hasPrefix("     B") })
        #expect(s.apply(.toggle) == [.edit(.folder(.setExpanded("Road", false)))])
        #expect(s.selectedFolder?.name == "Road", "the cursor stays on the folder")
        s.apply(.cursor(.down, count: 1))
        #expect(s.apply(.folder(.add("Road"))) == [.edit(.folder(.add(playlistID: "a", to: "Road")))])
        #expect(s.apply(.folder(.add("road "))) == [.edit(.folder(.add(playlistID: "a", to: "Road")))], "matched ignoring case")
        #expect(s.apply(.folder(.add("Chill Out"))) == [], "a new folder is asked about first")
        #expect(s.question?.text == "No folder “Chill Out” — create it? (y/n)")
        #expect(s.answer(false) == [] && s.mode == .normal, "n creates nothing")
        _ = s.apply(.folder(.add("Chill Out")))
        #expect(s.answer(true) == [.edit(.folder(.add(playlistID: "a", to: "Chill Out")))])
        #expect(s.apply(.folder(.remove)) == [] && s.message == "the selected playlist is in no folder")
        // A filter shows matching playlists flat, wherever they are.
        s.apply(.filter("c"))
        #expect(s.paneRows == [.playlist(3, inFolder: false)])
    }

    @Test func catalogResultsAreMarkedAndAddedToTheEndOfTheOpenPlaylist() {
        var s = state()
        #expect(s.apply(.add(nil)) == [] && s.mode.kind == .catalogInput)
        for character in "teardrop" { _ = s.type(.character(character)) }
        #expect(s.type(.enter) == [.catalogSearch("teardrop")])
        let hits = (0..<3).map {
            CatalogHit(
                uri: "spotify:track:\(String(repeating: "b", count: 21))\($0)", title: "Teardrop \($0)", artist: "Massive Attack", album: "Mezzanine",
                durationMS: 330_000)
        }
        s.showCatalogResults(hits, query: "teardrop")
        s.apply(.mark)
        s.apply(.cursor(.down, count: 1))
        s.apply(.mark)
        #expect(s.catalogMarks == [0, 2])
        #expect(s.apply(.open) == [.edit(.entries(.test("mine000000000000000000"), .add(uris: [hits[0].uri, hits[2].uri], position: nil)))])
        #expect(s.mode.kind == .normal)
    }

    @Test func everyNewBindingIsListedByHelp() {
        let listed = Set(Keymap().helpLines.map(\.command))
        for command in [
            "mark", "mark-range", "remove", "yank", "paste after", "paste before", "shift down", "shift up", "undo", "redo",
            "add", "info", "toggle", "order next", "order reverse",
        ] {
            #expect(listed.contains(command), "\(command)")
        }
        var s = TUIState()
        s.apply(.help)
        let screen = Screen.render(s, rows: 90, columns: 140).map { $0.map(\.text).joined() }.joined(separator: "\n")
        for text in ["Space", "mark a range", "C-r", ":dedupe", ":filter year:", ":folder add"] { #expect(screen.contains(text), "\(text)") }
    }
}
