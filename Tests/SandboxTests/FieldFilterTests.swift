import Testing

@testable import SandboxCore

@Suite struct FieldFilterTests {
    let page: JSONValue = .object([
        ("href", "h"),
        (
            "items",
            .array([
                .object([
                    ("added_at", "2024-01-01T00:00:00Z"), ("is_local", false), ("primary_color", .null),
                    (
                        "item",
                        .object([
                            ("album", .object([("id", "A"), ("name", "Album")])),
                            ("artists", .array([.object([("id", "x"), ("name", "One")]), .object([("id", "y"), ("name", "Two")])])),
                            ("id", "T"), ("name", "Song"), ("popularity", 3),
                        ])
                    ),
                ]),
                .object([("added_at", .null), ("is_local", false), ("item", .null)]),
            ])
        ),
        ("next", .null),
        ("total", 2),
    ])

    @Test func parsesNestedLists() throws {
        let filter = try FieldFilter(parsing: "next,total,items(added_at,item(id,artists(name)))")
        #expect(filter.entries.map(\.name) == ["next", "total", "items"])
        #expect(filter.entries[2].children?.entries.map(\.name) == ["added_at", "item"])
    }

    @Test func rejectsBrokenSyntax() {
        for text in ["items(", "a,,b", "items(name))", "(a)", ""] {
            #expect(throws: FieldFilter.ParseError.self) { try FieldFilter(parsing: text) }
        }
    }

    @Test func filtersObjectsAndEveryArrayElement() throws {
        let filter = try FieldFilter(parsing: "total,items(added_at,item(id,artists(name),album(name)))")
        let expected: JSONValue = .object([
            (
                "items",
                .array([
                    .object([
                        ("added_at", "2024-01-01T00:00:00Z"),
                        (
                            "item",
                            .object([
                                ("album", .object([("name", "Album")])),
                                ("artists", .array([.object([("name", "One")]), .object([("name", "Two")])])),
                                ("id", "T"),
                            ])
                        ),
                    ]),
                    .object([("added_at", .null), ("item", .null)]),
                ])
            ),
            ("total", 2),
        ])
        #expect(filter.apply(to: page) == expected)
    }

    @Test func dotShorthandAndExclusion() throws {
        let dotted = try FieldFilter(parsing: "items.item.name")
        #expect(dotted.apply(to: page)["items"]?.arrayValue?.first == .object([("item", .object([("name", "Song")]))]))
        let excluded = try FieldFilter(parsing: "items(item(!artists,!album,!popularity))")
        #expect(excluded.apply(to: page)["items"]?.arrayValue?.first?["item"] == .object([("id", "T"), ("name", "Song")]))
    }

    @Test func mergesRepeatedNames() throws {
        let filter = try FieldFilter(parsing: "items(item(id)),items(item(name))")
        #expect(filter.apply(to: page)["items"]?.arrayValue?.first?["item"] == .object([("id", "T"), ("name", "Song")]))
    }

    @Test func serializesControlCharactersAsEscapes() {
        let text = JSONValue.string("a\u{1B}[31m\"\n\u{9B}").text
        #expect(text == "\"a\\u001b[31m\\\"\\n\u{9B}\"")
    }
}
