import Foundation
import Testing
import TimbreCore

@Suite struct JSONReaderTests {
    /// Reads any document into Foundation values, through the reader only.
    private func value(_ reader: inout JSONReader) throws -> Any {
        switch try reader.peek() {
        case .object:
            var object: [String: Any] = [:]
            var more = try reader.enterObject()
            while more {
                let key = try reader.readKey()
                object[reader.string(of: key)] = try value(&reader)
                more = try reader.nextMember()
            }
            return object
        case .array:
            var array: [Any] = []
            var more = try reader.enterArray()
            while more {
                array.append(try value(&reader))
                more = try reader.nextElement()
            }
            return array
        case .string: return try reader.readString()
        case .number: return try reader.int() ?? Double.nan
        case .bool: return try reader.bool() ?? false
        case .null:
            _ = try reader.skipNull()
            return NSNull()
        }
    }

    private func parse(_ text: String) throws -> Any {
        try JSONReader.read(text) { try value(&$0) }
    }

    @Test func readsWhatFoundationReads() throws {
        let text = #" { "a" : [1, -2, 0, {"b": null}, true, false, "x\ty"], "c\u0041": {} , "d": [] } "#
        let ours = try #require(try parse(text) as? NSDictionary)
        let foundation = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
        #expect(ours == foundation)
        #expect(ours["cA"] != nil, "escaped keys are decoded")
    }

    @Test func stringsKeepEveryCharacter() throws {
        let names = [
            "'); DROP TABLE playlists;--", "\u{1B}]0;pwned\u{07}", "\u{1B}[31mred", "\u{9B}2J", "e\u{301}", "a\"b,c\nd\r\ne\tf\\g/h",
            "👩‍👩‍👧 🇸🇪 日本 한국 مرحبا שלום", "\u{0}\u{8}\u{C}", String(repeating: "long ", count: 20_000),
        ]
        for name in names {
            let encoded = String(decoding: try JSONSerialization.data(withJSONObject: [name]), as: UTF8.self)
            #expect(JSONValue.parseStringArray(encoded) == [name])
        }
        let written = JSONValue.array((names + ["plain", "\u{2028}\u{2029}", "\u{85}", "\u{7F}", ""]).map(JSONValue.string)).serialized()
        #expect(
            JSONValue.parseStringArray(written) == names + ["plain", "\u{2028}\u{2029}", "\u{85}", "\u{7F}", ""], "what the writer writes, the reader reads")
        #expect(!written.contains("\u{2028}") && !written.contains("\u{1B}") && written.contains("\\u0085"))
        #expect(try parse(#""\ud83c\udfb5 \u00e9""#) as? String == "🎵 é")
        #expect(try parse(#""\ud83c alone \udfb5""#) as? String == "\u{FFFD} alone \u{FFFD}", "unpaired surrogates become U+FFFD")
    }

    @Test func lenientAccessorsSkipOtherTypes() throws {
        let read = try JSONReader.read(#"[{"x":[1,{"y":2}]}, "7", 3.0, 2.5, 99999999999999999999, null, true, -9223372036854775808]"#) { reader in
            var ints: [Int?] = []
            var more = try reader.enterArray()
            while more {
                ints.append(try reader.int())
                more = try reader.nextElement()
            }
            return ints
        }
        #expect(read == [nil, nil, 3, nil, nil, nil, nil, Int.min])
        let strings = try JSONReader.read(#"[1, "a", null, {"b": "c"}, false]"#) { reader in
            var values: [String?] = []
            var more = try reader.enterArray()
            while more {
                values.append(try reader.string())
                more = try reader.nextElement()
            }
            return values
        }
        #expect(strings == [nil, "a", nil, nil, nil])
    }

    @Test func keysCompareAsBytes() throws {
        let matched = try JSONReader.read(#"{"name": 1, "nam": 2, "names": 3, "n\u0061me": 4}"#) { reader in
            var hits: [Int] = []
            var more = try reader.enterObject()
            while more {
                let key = try reader.readKey()
                let value = try reader.int() ?? 0
                if reader.key(key, is: "name") { hits.append(value) }
                more = try reader.nextMember()
            }
            return hits
        }
        #expect(matched == [1, 4])
    }

    @Test(arguments: [
        "", "   ", "{", "[1,]", "[1 2]", "{\"a\" 1}", "{\"a\":1,}", "{,\"a\":1}", "[01]", "[1.]", "[-]", "[1e]", "[tru]", "[nul]",
        "\"abc", "\"a\u{1}b\"", "\"\\x\"", "\"\\u12g4\"", "[1] x", "{\"a\":1}}", "NaN", "[+1]",
    ])
    func malformedDocumentsThrow(_ text: String) {
        #expect(throws: JSONReader.SyntaxError.self) { try parse(text) }
    }

    @Test func deepNestingIsRefusedNotACrash() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONReader.SyntaxError.self) { try JSONReader.read(deep) { try $0.skipValue() } }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        try JSONReader.read(fine) { try $0.skipValue() }
    }

    /// Strings are scanned eight bytes at a time: a quote, backslash, control character or
    /// non-ASCII byte at every offset of the words (and at the end of the input) must read the same.
    @Test func everyOffsetOfAStringReadsTheSame() throws {
        let specials = ["\\\"", "\\\\", "\\n", "\\u00e9", "é", "日", "\u{7F}", "~"]
        for length in 0..<20 {
            for special in specials {
                for at in 0...length {
                    var chars = Array(repeating: "a", count: length)
                    chars.insert(special, at: at)
                    let body = chars.joined()
                    let text = "[\"" + body + "\", 1]"
                    let expected = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any])
                    let read = try JSONReader.read(text) { reader -> (String, [UInt8]) in
                        _ = try reader.enterArray()
                        var copy = reader
                        let string = try reader.readString()
                        var bytes: [UInt8] = []
                        #expect(try copy.appendString(to: &bytes))
                        _ = try reader.nextElement()
                        _ = try reader.int()
                        _ = try reader.nextElement()
                        return (string, bytes)
                    }
                    #expect(read.0 == expected[0] as? String, "\(text)")
                    #expect(String(decoding: read.1, as: UTF8.self) == read.0, "\(text)")
                }
            }
            let raw = Array(repeating: "b", count: length).joined()
            #expect(throws: JSONReader.SyntaxError.self) { try JSONReader.read("\"" + raw + "\u{1}" + raw + "\"") { try $0.skipValue() } }
            #expect(throws: JSONReader.SyntaxError.self) { try JSONReader.read("\"" + raw) { try $0.skipValue() } }
        }
    }

    @Test func errorsSayWhere() {
        do {
            _ = try parse(#"{"a": [1, 2 3]}"#)
            Issue.record("no error")
        } catch {
            #expect(String(describing: error) == "malformed JSON at byte 12: expected ',' or ']'")
        }
    }
}
