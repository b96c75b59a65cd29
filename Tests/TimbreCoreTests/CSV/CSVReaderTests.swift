import Testing
import TimbreCore

@Suite struct CSVReaderTests {
    @Test func quotesLineEndsAndAByteOrderMark() throws {
        let text = "\u{FEFF}a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\n\n1,,3\r\nlast,row"
        let records = try CSVReader.records(text)
        #expect(records.map(\.fields) == [["a", "b", "c"], ["x, y", "say \"hi\"", "two\nlines"], ["1", "", "3"], ["last", "row"]])
        #expect(records.map(\.line) == [1, 2, 5, 6])
        #expect(throws: CSVReader.Unterminated(line: 2)) { try CSVReader.records("a\n\"open,b\nc") }
        #expect(try CSVReader.records("").isEmpty)
    }

    @Test func whatExportWritesImportReadsBack() throws {
        let names = ["=HYPERLINK(\"x\")", "+1", "-2", "@me", "plain, with comma", "quote \" in", "'already", "new\nline"]
        let line = names.map(CSVCell.encode).joined(separator: ",")
        let fields = try #require(try CSVReader.records(line).first?.fields)
        #expect(fields.map(CSVCell.decode) == names)
    }
}
