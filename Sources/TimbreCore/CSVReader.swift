/// RFC 4180 records from text: quoted fields with `""` escapes and line breaks inside, CRLF or LF
/// line ends, a UTF-8 byte-order mark at the start ignored. Unquoted fields are taken as they are.
public enum CSVReader {
    /// A quote that is never closed: the file is cut or not CSV.
    public struct Unterminated: Error, Equatable {
        public var line: Int
        public init(line: Int) { self.line = line }
    }

    /// Every record's fields (empty lines skipped), with the line each record starts on.
    public static func records(_ text: String) throws(Unterminated) -> [(line: Int, fields: [String])] {
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
            if let scalar = pending { pending = nil; return scalar }
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
                        if following == "\"" { field.append("\"") } else { inQuotes = false; pending = following }
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
            case ",":
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
}
