/// RFC 4180 records from text: quoted fields with `""` escapes and line breaks inside, CRLF or LF
/// line ends, a UTF-8 byte-order mark at the start ignored. Unquoted fields are taken as they are.
/// The separator is `,` unless given (`separator(of:)` guesses it from the first line).
public enum CSVReader {
    /// A quote that is never closed: the file is cut or not CSV.
    public struct Unterminated: Error, Equatable {
        public var line: Int
        public init(line: Int) { self.line = line }
    }

    /// Every record's fields (empty lines skipped), with the line each record starts on.
    public static func records(_ text: String, separator: Unicode.Scalar = ",") throws(Unterminated) -> [(line: Int, fields: [String])] {
        var scalars = Substring(text).unicodeScalars[...]
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
        var records: [(Int, [String])] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var inQuotes = false
        var line = 1, recordLine = 1
        var iterator = scalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let scalar = pending {
                pending = nil
                return scalar
            }
            return iterator.next()
        }
        func endRecord() {
            fields.append(String(field))
            field = String.UnicodeScalarView()
            if !(fields.count == 1 && fields[0].isEmpty) { records.append((recordLine, fields)) }
            fields = []
        }
        while let scalar = next() {
            if inQuotes {
                if scalar == "\"" {
                    if let following = next() {
                        if following == "\"" {
                            field.append("\"")
                        } else {
                            inQuotes = false
                            pending = following
                        }
                    } else {
                        inQuotes = false
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where field.isEmpty:
                inQuotes = true
            case separator:
                fields.append(String(field))
                field = String.UnicodeScalarView()
            case "\r":
                if let following = next(), following != "\n" { pending = following }
                endRecord()
                line += 1
                recordLine = line
            case "\n":
                endRecord()
                line += 1
                recordLine = line
            default:
                field.append(scalar)
            }
        }
        if inQuotes { throw Unterminated(line: recordLine) }
        if !field.isEmpty || !fields.isEmpty { endRecord() }
        return records
    }

    /// `;` or TAB when the first line (outside quotes) has that and no comma — a spreadsheet saved
    /// in a locale whose decimal mark is a comma, or as tab-separated text — else `,`.
    public static func separator(of text: String) -> Unicode.Scalar {
        var inQuotes = false
        var seen: Set<Unicode.Scalar> = []
        for scalar in text.unicodeScalars {
            if scalar == "\"" { inQuotes.toggle() }
            if inQuotes { continue }
            if scalar == "\n" || scalar == "\r" { break }
            if scalar == "," || scalar == ";" || scalar == "\t" { seen.insert(scalar) }
        }
        if seen.contains(",") { return "," }
        if seen.contains(";") { return ";" }
        return seen.contains("\t") ? "\t" : ","
    }
}
