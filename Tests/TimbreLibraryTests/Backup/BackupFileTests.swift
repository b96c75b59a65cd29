import Foundation
import Testing
import TimbreCore

@testable import TimbreLibrary

/// The backup file (docs/BACKUP.md): what `timbre backup` writes reads back the same, and a file
/// that is not a backup, from a newer timbre, damaged or hostile is refused whole (exit 2) before a
/// restore sends anything.
@Suite struct BackupFileTests {
    static let hostile = "Road \u{1B}]52;c;aGk=\u{07}Trip \u{1B}[2J\u{202E}évé 🎧 \"quoted\"\nline"

    static func sample() -> Backup {
        Backup(
            createdAt: "2026-11-26T12:00:00Z", account: .init(id: "sandbox_user", name: hostile),
            playlists: [
                .init(
                    id: "0123456789abcdefABCDEF", name: hostile, description: "a <b>description</b>", isPublic: false, collaborative: true,
                    entries: [
                        .init(uri: "spotify:track:4uLU6hMCjMI75M1A2tKUQC", addedAt: "2024-01-01T00:00:00Z", addedBy: "sandbox_user"),
                        .init(uri: "spotify:local:Artist:Album:Title:123", addedAt: nil),
                        .init(uri: "spotify:episode:1123456789abcdefABCDEF", addedAt: "2024-01-02T00:00:00Z"),
                    ]),
                .init(id: "2123456789abcdefABCDEF", name: "Empty", description: nil, isPublic: true, collaborative: false, entries: []),
            ],
            followed: [.init(id: "3123456789abcdefABCDEF", name: "Theirs", owner: nil)],
            folders: [.init(name: "Mine", playlists: ["0123456789abcdefABCDEF", "3123456789abcdefABCDEF"])],
            liked: [.init(uri: "spotify:track:4uLU6hMCjMI75M1A2tKUQC", addedAt: "2025-01-01T00:00:00Z")])
    }

    @Test func aBackupReadsBackExactlyAsWritten() throws {
        let backup = Self.sample()
        let read = try Backup.decode(backup.data)
        #expect(read == backup)
        #expect(read.playlists[0].addableURIs == ["spotify:track:4uLU6hMCjMI75M1A2tKUQC", "spotify:episode:1123456789abcdefABCDEF"])
        // Self-describing: the format and the version lead the file.
        let text = String(decoding: backup.data, as: UTF8.self)
        #expect(text.hasPrefix("{\"format\":\"timbre-backup\",\"version\":1,"))
        #expect(!text.contains("\u{1B}"), "escape sequences are written as JSON escapes")
    }

    @Test func aNewerVersionIsRefusedWithWhatToDo() throws {
        var object = try #require(try JSONSerialization.jsonObject(with: Self.sample().data) as? [String: Any])
        object["version"] = 2
        let error = try #require(throws: BackupFileError.self) { try Backup.decode(try JSONSerialization.data(withJSONObject: object)) }
        #expect(error.message.contains("version 2, made by a newer timbre"))
        #expect(error.hint?.contains("update timbre") == true)
        #expect(error.exitStatus == .usage)
    }

    @Test func brokenOrForeignFilesAreRefused() throws {
        let whole = Self.sample().data
        let cases: [(Data, String)] = [
            (whole.prefix(whole.count / 2), "not valid JSON"),
            (Data("[1, 2]".utf8), "not valid JSON"),
            (Data("{\"format\": \"exportify\", \"version\": 1}".utf8), "not a timbre backup"),
            (Data("{\"format\": \"timbre-backup\", \"version\": \"one\"}".utf8), "version is missing"),
            (Data("{\"format\": \"timbre-backup\", \"version\": 1}".utf8), "account is missing"),
            (Data(), "not valid JSON"),
        ]
        for (data, words) in cases {
            let error = try #require(throws: BackupFileError.self) { try Backup.decode(data) }
            #expect(error.message.contains(words), "\(error.message)")
            #expect(error.message.contains("nothing was sent"))
        }
    }

    @Test func hostileValuesAreRefusedNamingTheMember() throws {
        func refused(_ change: (inout [String: Any]) -> Void) throws -> String {
            var object = try #require(try JSONSerialization.jsonObject(with: Self.sample().data) as? [String: Any])
            change(&object)
            return try #require(throws: BackupFileError.self) { try Backup.decode(try JSONSerialization.data(withJSONObject: object)) }.message
        }
        func playlist(_ key: String, _ value: Any) -> (inout [String: Any]) -> Void {
            { object in
                var playlists = object["playlists"] as? [[String: Any]] ?? []
                playlists[0][key] = value
                object["playlists"] = playlists
            }
        }
        #expect(try refused(playlist("name", String(repeating: "x", count: 100_001))).contains("playlists[0].name is longer than 100,000"))
        #expect(try refused(playlist("id", "../../etc/passwd")).contains("playlists[0].id is not a Spotify playlist id"))
        #expect(try refused(playlist("public", "yes")).contains("playlists[0].public"))
        #expect(try refused(playlist("entries", [["uri": "javascript:alert(1)"]])).contains("playlists[0].entries[0].uri"))
        #expect(try refused(playlist("entries", Array(repeating: ["uri": "spotify:track:4uLU6hMCjMI75M1A2tKUQC"], count: 10_001))).contains("10,000"))
        #expect(try refused { $0["liked"] = [["uri": "spotify:playlist:0123456789abcdefABCDEF"]] }.contains("liked[0].uri"))
        #expect(try refused { $0["folders"] = [["name": " ", "playlists": []]] }.contains("folders[0].name is empty"))
    }

    /// The byte-level reader refuses what JSONSerialization refused, in the same order whatever
    /// the members' order in the file: the format before anything else, a playlist's entry count
    /// before its entries, the first refused element of a list.
    @Test func refusalsDoNotDependOnTheMembersOrder() throws {
        func message(_ text: String) throws -> String {
            try #require(throws: BackupFileError.self) { try Backup.decode(Data(text.utf8)) }.message
        }
        #expect(try message(#"{"liked":[{"uri":"bad"}],"format":"exportify"}"#).contains("not a timbre backup"))
        #expect(try message(#"{"liked":5,"version":1,"format":"timbre-backup"}"#).contains("account is missing"))
        #expect(try message(#"{"format":"timbre-backup","version":1.5}"#).contains("version is missing"))
        #expect(try message(#"{"format":"timbre-backup","version":true}"#).contains("version is missing"))
        #expect(try message(#"{"format":"timbre-backup","version":1} x"#).contains("not valid JSON"))
        #expect(try message(#"{"format":"timbre-backup","version":1"#).contains("not valid JSON"))
        var bytes = Array(Self.sample().data)
        bytes[bytes.count / 2] = 0xFF
        #expect(throws: BackupFileError.self) { try Backup.decode(Data(bytes)) }
        // A byte that is not UTF-8 inside a string: refused, not read as U+FFFD.
        let invalid = Data(#"{"format":"timbre-backup","version":1,"created_at":""#.utf8) + Data([0xC3]) + Data(#""}"#.utf8)
        #expect(try #require(throws: BackupFileError.self) { try Backup.decode(invalid) }.message.contains("not valid JSON"))

        var object = try #require(try JSONSerialization.jsonObject(with: Self.sample().data) as? [String: Any])
        var playlists = object["playlists"] as? [[String: Any]] ?? []
        var entries = Array(repeating: ["uri": "spotify:track:4uLU6hMCjMI75M1A2tKUQC"] as [String: Any], count: 10_001)
        entries[3] = ["uri": "javascript:alert(1)"]
        playlists[0]["entries"] = entries
        playlists[0]["id"] = "bad"
        object["playlists"] = playlists
        let data = try JSONSerialization.data(withJSONObject: object)
        #expect(try #require(throws: BackupFileError.self) { try Backup.decode(data) }.message.contains("holds 10,001 entries"))
        entries.removeLast()
        playlists[0]["entries"] = entries
        object["playlists"] = playlists
        let badID = try JSONSerialization.data(withJSONObject: object)
        #expect(try #require(throws: BackupFileError.self) { try Backup.decode(badID) }.message.contains("playlists[0].id is not a Spotify playlist id"))
        playlists[0]["id"] = "0123456789abcdefABCDEF"
        entries[5] = ["uri": 7]
        playlists[0]["entries"] = entries
        object["playlists"] = playlists
        let firstBad = try JSONSerialization.data(withJSONObject: object)
        #expect(try #require(throws: BackupFileError.self) { try Backup.decode(firstBad) }.message.contains("playlists[0].entries[3].uri is not a track"))
    }

    /// Spotify answers descriptions HTML-escaped and escapes what it is sent: the backup keeps the text as typed.
    @Test func descriptionsAreKeptAsTyped() {
        #expect(Backup.unescapingHTML("Songs for wolves &amp; more") == "Songs for wolves & more")
        #expect(Backup.unescapingHTML("it&#x27;s &lt;b&gt; &#39;x&#39; &quot;q&quot;") == "it's <b> 'x' \"q\"")
        #expect(Backup.unescapingHTML("AT&T & co &unknown; &#xZZ; &") == "AT&T & co &unknown; &#xZZ; &")
        #expect(Backup.unescapingHTML("no entities") == "no entities")
    }

    @Test func theRestoreJournalKeepsIntentIdAndCountPerAccount() throws {
        let dir = try TempDir()
        let journal = try UserData(path: dir.path("timbre.sqlite")).restoreJournal
        try journal.creating(account: "a", source: "S1", name: "Mix", existing: ["E1", "E2"])
        #expect(try journal.rows(account: "a")["S1"] == .init(source: "S1", name: "Mix", state: .creating, existing: ["E1", "E2"], target: nil, added: 0))
        #expect(try journal.rows(account: "b").isEmpty)
        try journal.created(account: "a", source: "S1", target: "T1")
        try journal.added(account: "a", source: "S1", count: 200)
        #expect(try journal.rows(account: "a")["S1"]?.state == .created)
        #expect(try journal.rows(account: "a")["S1"]?.added == 200)
        try journal.filled(account: "a", source: "S1")
        // A row past its create is never forgotten (only a refused create's intent is).
        try journal.forget(account: "a", source: "S1")
        #expect(try journal.rows(account: "a")["S1"]?.state == .filled)
        #expect(try journal.rows(account: "a")["S1"]?.target == "T1")
    }
}
