import TimbreCore
import TimbreLibrary

/// The line a big edit (dedupe, import, `playlist restore`, `restore`, `backup`) prints on stderr
/// before its first write — in the words of the order question shuffle and sort ask — so that a
/// user with a small daily quota sees what it spends before it is spent (issue #42).
enum RequestCost {
    /// "Dedupe “Road”: this sends about 7 requests (of the day's quota), ≈ 1 s at Spotify's pace".
    static func line(_ what: String, requests: Int, dryRun: Bool = false) -> String {
        let noun = requests == 1 ? "request" : "requests"
        return "\(what): this \(dryRun ? "would send" : "sends") about \(OrderCost.grouped(requests)) \(noun) (of the day's quota), "
            + "\(OrderCost.duration(of: requests)) at Spotify's pace"
    }

    /// "Dedupe “Road”".
    static func named(_ verb: String, _ playlist: String) -> String { "\(verb) “\(TerminalText.preview(playlist, limit: 40))”" }

    /// The requests `editor`'s API has sent so far (the start of a command's count).
    static func sent(_ editor: PlaylistEditor) -> Int { editor.webAPI.pacing.requestsSent() }

    /// Has `editor`'s edits say their cost on `console` once planned, before their first write:
    /// the requests the command sent since `start` (its reads, searches, a creation) and those the
    /// edit will send.
    static func announce(_ verb: String, editor: PlaylistEditor, console: Console, since start: Int) {
        let api = editor.webAPI
        editor.tellingRequests { playlist, toCome in
            let total = api.pacing.requestsSent() - start + toCome
            console.say(TerminalText.sanitize(line(named(verb, playlist), requests: total)))
        }
    }
}
