import Testing
import TimbreCore
import TimbreLibrary
import TimbreTestSupport

@testable import TimbreTUI

/// The interface at 80×24 as a vim user types it (#44): questions whole with their keys, vim's
/// `G`/`gg`/`n`, the `:` prompt's candidates, and nothing a user needs cut.
@Suite struct EightyColumnsTests {
    func key(_ name: String) throws -> Terminal.InputEvent { .key(try #require(Key(name))) }

    func rows(_ count: Int) -> [EntryRow] {
        (0..<count).map {
            EntryRow(
                position: $0, title: $0 % 10 == 3 ? "River \($0)" : "Song \($0)", artist: "Artist \($0 % 7)", album: "Album",
                durationMS: 1000 * $0, addedAt: nil, uri: "spotify:track:\(String(repeating: "a", count: 20))\($0 % 10)")
        }
    }

    func opened(_ count: Int = 100) -> TUIState {
        var state = TUIState()
        state.setPlaylists([PlaylistRow(id: "mine000000000000000000", name: "Morning Coffee", trackCount: count, owner: "me", unavailable: false)])
        state.apply(.open)
        state.setTracks(rows(count), of: "mine000000000000000000")
        return state
    }

    func screen(_ state: TUIState, rows: Int = 24, columns: Int = 80) -> [String] {
        Screen.render(state, rows: rows, columns: columns).map { $0.map(\.text).joined() }
    }

    /// Lines that end in "…" where the text is a sentence: the lines without the pane separator
    /// (questions, messages, hints, the status line, notices), and the right pane's header.
    func cutSentences(_ lines: [String]) -> [String] {
        lines.enumerated().filter { index, line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if index == 0, let header = trimmed.split(separator: "│").last { return header.trimmingCharacters(in: .whitespaces).hasSuffix("…") }
            return !line.contains("│") && trimmed.hasSuffix("…")
        }.map(\.element)
    }

    // MARK: vim

    @Test func oneGIsTheFirstRowAndNGTheEntryLabelledN() {
        var state = opened()
        state.apply(.cursor(.bottom, count: 1))
        for character in "1G" { _ = state.handle(.character(character)) }
        #expect(state.trackCursor == 0, "1G: the first row, as vim's")
        // Every third row hidden by a field filter: labels are positions, not visible rows.
        state.apply(.filter("River"))
        for character in "34G" { _ = state.handle(.character(character)) }
        #expect(state.selectedTrack?.position == 33, "34G: the entry labelled 34 (position 33)")
        for character in "40G" { _ = state.handle(.character(character)) }
        #expect(state.selectedTrack?.position == 43, "40G: hidden, so the nearest shown after it")
        #expect(state.message?.contains("entry 40 is hidden by the filter") == true, "\(state.message ?? "")")
        state.apply(.order(.reverse))
        for character in "14G" { _ = state.handle(.character(character)) }
        #expect(state.selectedTrack?.position == 13, "the label wins over the sort")
    }

    @Test func ggIsGAndACountBeforeItIsTheLine() {
        var state = opened()
        state.apply(.cursor(.down, count: 50))
        for character in "gg" { _ = state.handle(.character(character)) }
        #expect(state.trackCursor == 0)
        for character in "5gg" { _ = state.handle(.character(character)) }
        #expect(state.trackCursor == 4, "5gg is line 5, not the top again")
        // Another key between: the next g is a motion of its own again.
        for character in "10j" { _ = state.handle(.character(character)) }
        #expect(state.trackCursor == 14)
        _ = state.handle(.character("g"))
        #expect(state.trackCursor == 0)
        // With a sequence starting with g bound, gg still goes to the top.
        var bound = opened()
        _ = bound.keymap.apply(["g p": "add-to"])
        bound.apply(.cursor(.down, count: 30))
        for character in "gg" { _ = bound.handle(.character(character)) }
        #expect(bound.trackCursor == 0 && bound.pendingKeys.isEmpty)
    }

    @Test func nAfterEscRepeatsTheLastPattern() throws {
        var state = opened()
        _ = state.handle(.character("/"))
        for character in "river" { _ = state.handle(.character(character)) }
        _ = state.handle(try key("Enter"))
        _ = state.handle(try key("Esc"))
        #expect(state.trackFilter.isEmpty && state.visibleTracks.count == 100)
        #expect(state.selectedTrack?.position == 3)
        _ = state.handle(.character("n"))
        #expect(state.selectedTrack?.title == "River 13", "n: the next row holding “river”, not the next row")
        _ = state.handle(.character("N"))
        _ = state.handle(.character("N"))
        #expect(state.selectedTrack?.title == "River 93", "N wraps to the last one")
        #expect(state.message?.contains("continuing at the end") == true)
        _ = state.handle(.character("2"))
        _ = state.handle(.character("n"))
        #expect(state.selectedTrack?.title == "River 13")
    }

    // MARK: Questions

    func asked() -> TUIState {
        var state = opened()
        state.askOrder(
            OrderCost(op: .sort, playlistName: "Morning Coffee", key: "artist", entries: 150, moves: 117, rewriteWrites: 2, canRewrite: true))
        return state
    }

    @Test func onlyItsAnswersAnswerAQuestion() throws {
        var state = asked()
        #expect(state.handle(.resize) == [] && state.mode.kind == .confirm)
        #expect(state.handle(.character("j")) == [] && state.mode.kind == .confirm, "j does not answer")
        #expect(state.handle(try key("Enter")) == [] && state.mode.kind == .confirm)
        // M reads the messages over it; closing them comes back to the question.
        #expect(state.handle(.character("M")) == [] && state.mode.kind == .messages)
        _ = state.handle(.character("M"))
        #expect(state.mode.kind == .confirm, "M again: back to the question")
        _ = state.handle(.character("?"))
        #expect(state.mode.kind == .help)
        _ = state.handle(try key("Esc"))
        #expect(state.mode.kind == .confirm)
        #expect(state.handle(.character("r")) == [.answerOrder(.rewrite)])
        state = asked()
        #expect(state.handle(try key("Esc")) == [.answerOrder(.cancel)], "Esc is no")
        state = asked()
        #expect(state.handle(.character("n")) == [.answerOrder(.cancel)])
        // A y/n question: r is not one of its answers.
        state = opened()
        state.apply(.remove)
        #expect(state.handle(.character("r")) == [] && state.mode.kind == .confirm)
        #expect(state.handle(.character("y")) == [.edit(.entries(.test("mine000000000000000000"), .removePositions([0])))])
    }

    @Test func aQuestionIsWrappedWholeWithItsKeysLastAt80Columns() throws {
        for columns in [60, 80, 100] {
            let lines = screen(asked(), columns: columns)
            let question = lines.dropLast().drop { !$0.hasPrefix(" Sort “Morning Coffee” by artist") }
            let text = question.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            #expect(text.hasPrefix("Sort “Morning Coffee” by artist: 117 moves"), "\(columns): \(lines)")
            #expect(text.hasSuffix("(every date becomes today). (y/r/n)"), "\(columns): the keys at the end:\n\(lines.joined(separator: "\n"))")
            #expect(cutSentences(lines).isEmpty, "\(columns): \(cutSentences(lines))")
            #expect(lines.count == 24 && lines.allSatisfy { TextWidth.width(of: $0) == columns })
        }
        // The entries a removal names come before its keys.
        var state = opened()
        for character in "3d" { _ = state.handle(.character(character)) }
        let lines = screen(state)
        #expect(lines[lines.count - 2].trimmingCharacters(in: .whitespaces).hasSuffix("(y/n)"), "\(lines.suffix(3))")
    }

    // MARK: The `:` prompt

    @Test func theColonPromptListsItsCandidatesFuzzily() throws {
        var state = opened()
        _ = state.handle(.character(":"))
        var listed = state.promptCandidates().items.map(\.text)
        #expect(listed.contains("sort! FIELD [reverse]") && listed.contains("save-order") && listed.contains("dedupe [--fuzzy]"), "\(listed)")
        for character in "srt" { _ = state.handle(.character(character)) }
        listed = state.promptCandidates().items.map(\.text)
        #expect(listed.prefix(2).contains("sort! FIELD [reverse]") && listed.contains { $0.hasPrefix("sort FIELD") }, "fuzzy: \(listed)")
        let lines = screen(state)
        let prompt = try #require(lines.firstIndex { $0.hasPrefix(":srt") }, "\(lines)")
        #expect(lines[prompt + 1].contains("sort"), "\(lines.suffix(4))")
        #expect(prompt < lines.count - 2, "the candidates are under the prompt")
        // Tab completes to the first one and highlights it in the list.
        _ = state.handle(try key("Tab"))
        #expect(state.input == "sort!" || state.input == "sort")
        #expect(state.promptCandidates().selected == 0)
        // Arguments and flags: the sort keys after `sort! `, --fuzzy after `dedupe `, --public after `create `.
        for (typed, expected) in [("sort! ", "artist"), ("dedupe ", "--fuzzy"), ("create ", "--public")] {
            var prompt = opened()
            _ = prompt.handle(.character(":"))
            for character in typed { _ = prompt.handle(.character(character)) }
            #expect(prompt.promptCandidates().items.map(\.text).contains(expected), "\(typed)")
        }
    }

    // MARK: Nothing cut

    @Test func theHintLineKeepsQuitAt80And60Columns() {
        for columns in [60, 80, 120] {
            let hint = screen(opened(), columns: columns)[22].trimmingCharacters(in: .whitespaces)
            #expect(hint.hasPrefix("? help") && hint.hasSuffix("q quit"), "\(columns): \(hint)")
        }
    }

    @Test func theTooSmallNoticeFitsTheSpaceItHas() {
        for (rows, columns) in [(10, 40), (8, 50), (3, 12), (1, 20)] {
            let lines = screen(opened(), rows: rows, columns: columns)
            #expect(cutSentences(lines).isEmpty, "\(columns)×\(rows): \(lines)")
            #expect(lines.joined().contains("60×10"), "\(columns)×\(rows): \(lines)")
        }
        let lines = screen(opened(), rows: 10, columns: 40).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(lines.joined(separator: " ") == "Terminal too small (40×10); timbre needs 60×10.")
    }

    @Test func statisticsWrapInsteadOfBeingCut() {
        var state = opened()
        let long = "Most common artist: Artist 1 (15 entries), then Artist 2 (14 entries), Artist 3 (14 entries) and Artist 4 (14 entries)"
        state.showInfo(["150 entries, 9 h 41 min", long], of: "mine000000000000000000")
        let lines = screen(state)
        #expect(cutSentences(lines).isEmpty)
        let right = lines.compactMap { $0.split(separator: "│", maxSplits: 1).last.map(String.init) }
        #expect(!right.contains { $0.trimmingCharacters(in: .whitespaces).hasSuffix("…") }, "\(right)")
        #expect(right.joined().contains("Artist 4 (14 entries)"))
    }

    @Test func theGreetingIsAMessageNotAWarning() {
        let greeting = "try `timbre --profile demo playlists` in another terminal: the CLI works on this sandbox too"
        let state = TUIApp(source: EmptySource(), sync: nil, status: StatusInfo(), keys: [:], environment: [:], greeting: greeting).stateForTests
        #expect(state.message == greeting && state.messages.isEmpty && state.status.lastMessage == nil)
        let lines = screen(state)
        #expect(!lines.joined().contains("⚠"))
        let text = lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        #expect(text.contains("in another terminal: the CLI works on this sandbox too"), "wrapped whole: \(lines.suffix(3))")
        #expect(cutSentences(lines).isEmpty, "\(cutSentences(lines))")
    }

    @Test func aLongNameIsCutBeforeTheCountAndTheSort() {
        var state = TUIState()
        let name = String(repeating: "Very long title ", count: 12)
        state.setPlaylists([PlaylistRow(id: "mine000000000000000000", name: name, trackCount: 30, owner: "me", unavailable: false)])
        state.apply(.open)
        state.setTracks(rows(30), of: "mine000000000000000000")
        for columns in [60, 80, 120] {
            let header = String(screen(state, columns: columns)[0].split(separator: "│", maxSplits: 1).last ?? "")
            #expect(header.hasPrefix(" Very long title") && !cutSentences([header]).contains(header), "\(columns): \(header)")
            #expect(header.contains(columns == 60 ? "… · 30" : "… · 30 · sort position ↑"), "\(columns): \(header)")
        }
        // A pane too narrow for the sort still keeps the count, and a short name is never cut.
        let narrow = Screen.rightHeader(state, width: 24)
        #expect(narrow.hasSuffix("… · 30") && TextWidth.width(of: narrow) <= 24, "\(narrow)")
        #expect(Screen.rightHeader(opened(), width: 40) == " Morning Coffee · 100 · sort position ↑")
    }

    /// A long list opens with its first rows: the header counts the whole list, and the whole
    /// list (read after that frame) keeps the cursor and the count.
    @Test func aLongListOpensWithItsFirstRowsAndCountsThemAll() {
        var state = TUIState()
        state.setPlaylists([PlaylistRow(id: "mine000000000000000000", name: "Big", trackCount: 30, owner: "me", unavailable: false)])
        state.apply(.open)
        state.setTracks(Array(rows(30).prefix(12)), of: "mine000000000000000000", total: 30)
        #expect(state.tracksToCome == 18 && state.tracks.count == 12)
        #expect(Screen.rightHeader(state, width: 60) == " Big · 30 · sort position ↑ · public")
        state.apply(.cursor(.down, count: 3))
        state.setTracks(rows(30), of: "mine000000000000000000")
        #expect(state.tracksToCome == nil && state.tracks.count == 30 && state.trackCursor == 3)
        #expect(Screen.rightHeader(state, width: 60) == " Big · 30 · sort position ↑ · public")
    }

}
