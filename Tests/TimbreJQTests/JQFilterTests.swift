import Testing
import TimbreJQ

/// `--jq EXPR`'s evaluator: libjq in process, printed as gh prints `--jq` (strings raw, every other
/// value compact JSON, one result a line).
@Suite struct JQFilterTests {
    private let playlists = #"[{"id": "a1", "name": "Morning \"Coffee\"", "entries": 3}, {"id": "b2", "name": "Road Trip", "entries": 12}]"#

    @Test func stringsArePrintedRawOneResultALine() throws {
        let filter = try JQFilter(".[].name")
        #expect(try filter.run(json: playlists) == [#"Morning "Coffee""#, "Road Trip"])
    }

    @Test func numbersBooleansAndNullArePrintedAsJSON() throws {
        #expect(try JQFilter(".[].entries").run(json: playlists) == ["3", "12"])
        #expect(try JQFilter(".[0].entries > 2, null").run(json: playlists) == ["true", "null"])
        #expect(try JQFilter("[.[].entries] | add / 2").run(json: playlists) == ["7.5"])
    }

    @Test func arraysAndObjectsAreCompactJSONAndAStringInsideOneIsQuoted() throws {
        #expect(try JQFilter("map(.id)").run(json: playlists) == [#"["a1","b2"]"#])
        #expect(try JQFilter(".[1] | {name, n: .entries}").run(json: playlists) == [#"{"name":"Road Trip","n":12}"#])
    }

    @Test func anExpressionWithNoResultPrintsNothing() throws {
        #expect(try JQFilter(".[] | select(.entries > 100)").run(json: playlists).isEmpty)
        #expect(try JQFilter("empty").run(json: playlists).isEmpty)
    }

    @Test func severalOutputsAndTheSameFilterOverSeveralDocuments() throws {
        let filter = try JQFilter(#".[] | "\(.id)\t\(.entries)""#)
        #expect(try filter.run(json: playlists) == ["a1\t3", "b2\t12"])
        #expect(try filter.run(json: #"[{"id": "c3", "entries": 0}]"#) == ["c3\t0"])
        #expect(try JQFilter("range(3)").run(json: "null") == ["0", "1", "2"])
    }

    @Test func textThatIsNotASCIIStaysAsItIs() throws {
        #expect(try JQFilter(".name").run(json: #"{"name": "Café — 東京 🎧"}"#) == ["Café — 東京 🎧"])
    }

    @Test func aBadExpressionIsRefusedWithJqsOwnMessage() {
        #expect {
            _ = try JQFilter(".[] | select(")
        } throws: { error in
            guard let failure = error as? JQFilter.Failure else { return false }
            return failure.message.contains("syntax error") && failure.message.contains("compile error")
        }
        #expect(throws: JQFilter.Failure.self) { _ = try JQFilter("nosuchfunction(1)") }
    }

    @Test func anErrorWhileRunningCarriesJqsMessage() throws {
        let filter = try JQFilter(".name")
        #expect(throws: JQFilter.Failure(message: #"Cannot index array with string "name""#)) { _ = try filter.run(json: playlists) }
        #expect(throws: JQFilter.Failure(message: "no such playlist")) { _ = try JQFilter(#"error("no such playlist")"#).run(json: "{}") }
        // The filter still works after a failed run.
        #expect(try filter.run(json: #"{"name": "ok"}"#) == ["ok"])
    }
}
