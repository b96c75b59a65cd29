import Foundation
import Logging
import Testing

@testable import TimbreCore

@Suite struct ConfigTests {
    @Test func emptyFileGivesDefaults() throws {
        let config = try Config.parse("")
        #expect(config.clientID == nil)
        #expect(config.redirectPort == 8974)
        #expect(config.accountsURL.absoluteString == "https://accounts.spotify.com")
        #expect(config.apiURL.absoluteString == "https://api.spotify.com/v1")
        #expect(config.refreshTokenTier == .high)
        #expect(config.tls.minVersion == .tls12)
        #expect(config.tls.pins.isEmpty)
    }

    @Test func fullFileParses() throws {
        let config = try Config.parse(
            """
            client_id = "abc123"
            redirect_port = 0
            accounts_url = "https://127.0.0.1:9443"
            api_url = "https://127.0.0.1:9443/v1/"
            secret_tier_refresh_token = "sensitive"

            [tls]
            ca_file = "/tmp/ca.pem"
            min_version = "1.3"

            [[tls.pin]]
            host = "127.0.0.1"
            pins = ["sha256/i7WTqTvh0OioIruIfFR4kMPnBqrS2rdiVPl/s2uC/CY=", "sha256/r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="]
            scope = "root"
            mode = "permissive"

            [[tls.pin]]
            host = "*.example.com"
            pins = ["sha256/i7WTqTvh0OioIruIfFR4kMPnBqrS2rdiVPl/s2uC/CY="]

            [keys]
            "x" = "quit"
            """)
        #expect(config.clientID == "abc123")
        #expect(config.redirectPort == 0)
        #expect(config.apiURL.absoluteString == "https://127.0.0.1:9443/v1")
        #expect(config.refreshTokenTier == .sensitive)
        #expect(config.tls.caFile == "/tmp/ca.pem")
        #expect(config.tls.minVersion == .tls13)
        #expect(config.tls.pins.count == 2)
        #expect(config.tls.pins[0].scope == .root)
        #expect(config.tls.pins[0].mode == .permissive)
        #expect(config.tls.pins[0].pins.count == 2)
        #expect(config.tls.pins[1].scope == .any)
        #expect(config.tls.pins[1].mode == .strict)
        #expect(config.keys == ["x": "quit"])
    }

    @Test(arguments: [
        ("redirect_port = 70000", "redirect_port"),
        ("api_url = \"http://api.spotify.com/v1\"", "https://"),
        ("secret_tier_refresh_token = \"ultra\"", "standard, high, sensitive"),
        ("[tls]\nmin_version = \"1.1\"", "1.2"),
        ("[[tls.pin]]\nhost = \"*.com\"\npins = [\"sha256/i7WTqTvh0OioIruIfFR4kMPnBqrS2rdiVPl/s2uC/CY=\"]", "host"),
        ("[[tls.pin]]\nhost = \"a.com\"\npins = [\"md5/abc\"]", "not an SPKI pin"),
        ("[[tls.pin]]\nhost = \"a.com\"\npins = []", "pins is empty"),
        ("[[tls.pin]]\nhost = \"a.com\"\npins = [\"sha256/i7WTqTvh0OioIruIfFR4kMPnBqrS2rdiVPl/s2uC/CY=\"]\nscope = \"chain\"", "scope"),
        ("[[tls.pin]]\npins = [\"sha256/i7WTqTvh0OioIruIfFR4kMPnBqrS2rdiVPl/s2uC/CY=\"]", "host"),
        ("client_id = [1, 2]", "client_id"),
        ("this is not toml", "not valid TOML"),
    ])
    func invalidFilesNameTheProblem(_ text: String, _ expected: String) {
        do {
            _ = try Config.parse(text, path: "/x/config.toml")
            Issue.record("expected an error for \(text)")
        } catch {
            #expect(error.message.contains(expected), "\(error.message)")
            #expect(error.message.contains("/x/config.toml"))
            #expect(error.exitStatus == .usage)
        }
    }

    @Test func environmentOverridesTheFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("config.toml")
        try "client_id = \"from-file\"".write(to: file, atomically: true, encoding: .utf8)
        let paths = Paths.resolve(environment: ["HOME": dir.path, "TIMBRE_CONFIG": file.path])
        #expect(try Config.load(paths: paths, environment: [:]).clientID == "from-file")
        #expect(try Config.load(paths: paths, environment: ["TIMBRE_CLIENT_ID": "from-env"]).clientID == "from-env")
    }
}

@Suite struct PathsTests {
    @Test func xdgVariablesArehonoured() {
        let paths = Paths.resolve(environment: ["HOME": "/h", "XDG_CONFIG_HOME": "/c", "XDG_CACHE_HOME": "/k", "XDG_STATE_HOME": "/s", "XDG_DATA_HOME": "/d"])
        #expect(
            paths
                == Paths(
                    config: "/c/timbre/config.toml", cache: "/k/timbre/library.sqlite", log: "/s/timbre/timbre.log", credentials: "/c/timbre/credentials.json",
                    data: "/d/timbre/timbre.sqlite"))
    }

    @Test func defaultsFollowHome() {
        let paths = Paths.resolve(environment: ["HOME": "/h"])
        #expect(
            paths
                == Paths(
                    config: "/h/.config/timbre/config.toml", cache: "/h/.cache/timbre/library.sqlite", log: "/h/.local/state/timbre/timbre.log",
                    credentials: "/h/.config/timbre/credentials.json", data: "/h/.local/share/timbre/timbre.sqlite"))
        #expect(Paths.resolve(environment: ["HOME": "/h", "TIMBRE_CONFIG": "/etc/t.toml"]).config == "/etc/t.toml")
    }

    @Test func jsonKeepsTheContractOrder() {
        let json = Paths(config: "/a", cache: "/b", log: "/c", credentials: "/d", data: "/e").json.serialized()
        #expect(json == #"{"config":"/a","cache":"/b","log":"/c","credentials":"/d","data":"/e"}"#)
    }
}

@Suite struct RedactionTests {
    @Test(arguments: [
        "Authorization: Bearer BQDx9abc.def-ghi",
        "GET /callback?code=AQBsecretcode&state=xyz",
        "grant_type=refresh_token&refresh_token=AQCsecret-value&client_id=1",
        #"{"access_token":"BQDsecret","token_type":"Bearer","refresh_token":"AQCsecret"}"#,
        "code_verifier=verifier-secret-123",
    ])
    func secretsAreRemoved(_ text: String) {
        let redacted = Redactor.redact(text)
        for secret in ["BQDx9abc", "AQBsecretcode", "AQCsecret", "BQDsecret", "verifier-secret"] {
            #expect(!redacted.contains(secret), "\(redacted)")
        }
    }

    @Test func ordinaryTextIsUntouched() {
        #expect(Redactor.redact("synced 60 playlists in 1.2 s") == "synced 60 playlists in 1.2 s")
    }

    @Test func logFileHandlerRedactsAndAppends() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-log-\(UUID().uuidString)/timbre.log").path
        let handler = FileLogHandler(label: "t", sink: try LogSink(path: path), level: .debug)
        var logger = Logger(label: "t") { _ in handler }
        logger.logLevel = .debug
        logger.info("sending Authorization: Bearer SECRETTOKEN123")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("sending Authorization"))
        #expect(!text.contains("SECRETTOKEN123"))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}

@Suite struct TextTests {
    @Test func controlCharactersBecomeVisible() {
        #expect(TerminalText.sanitize("\u{1B}]0;pwned\u{07}") == "^[]0;pwned^G")
        #expect(TerminalText.sanitize("a\nb\tc") == "a^Jb^Ic")
        #expect(TerminalText.sanitize("\u{9B}31m") == "<U+009B>31m")
        #expect(TerminalText.sanitize("日本語 🎵 é") == "日本語 🎵 é")
    }

    @Test func jsonEscapesHostileStrings() {
        let value = JSONValue.object([("name", .string("a\"b\\c\n\u{1B}[31m\u{9B}")), ("n", .null), ("k", .int(3)), ("b", .bool(false))])
        #expect(value.serialized() == #"{"name":"a\"b\\c\n\u001b[31m\u009b","n":null,"k":3,"b":false}"#)
        let parsed = try? JSONSerialization.jsonObject(with: Data(value.serialized().utf8)) as? [String: Any]
        #expect(parsed?["name"] as? String == "a\"b\\c\n\u{1B}[31m\u{9B}")
    }
}

@Suite struct StringArrayParsingTests {
    @Test(arguments: [[], ["a"], ["Beyoncé", "فيروز", "坂本龍一"], ["q\"uote", "back\\slash", "new\nline", "\u{1B}]0;x\u{07}", "🎵👩‍👩‍👧", "\u{9B}"]])
    func roundTripsWhatTheWriterWrites(_ values: [String]) {
        let text = JSONValue.array(values.map(JSONValue.string)).serialized()
        #expect(JSONValue.parseStringArray(text) == values)
    }

    @Test func acceptsOtherValidJSONAndRejectsGarbage() {
        #expect(JSONValue.parseStringArray(#" [ "a" , "\ud83c\udfb5" ] "#) == ["a", "🎵"])
        #expect(JSONValue.parseStringArray("[1]") == nil)
        #expect(JSONValue.parseStringArray("[\"a\"") == nil)
        #expect(JSONValue.parseStringArray("{}") == nil)
    }
}
