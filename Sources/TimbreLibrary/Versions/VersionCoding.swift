import Foundation

/// How a version's entries are stored: one blob per version, each entry three unsigned LEB128
/// varints — the URI's id in `history_text`, the adder's id there (0: none) and the date added.
/// URIs and users are interned once for all the versions (a URI is ~36 bytes of text; its id is
/// 2–3 bytes). Dates of Spotify's form `YYYY-MM-DDTHH:MM:SSZ` are stored as the zig-zagged
/// difference in seconds from the entry before (entries added together differ by a few seconds:
/// 1–3 bytes instead of 20); any other text is interned like a URI, so nothing is altered.
///
/// Measured on the large library (TimbreBench `history`): about 7 bytes per entry against ~80
/// for rows of (uri, added_at, added_by) text, and without the index those rows would need.
/// Whole blobs rather than deltas between versions: a version is read without its chain, and a
/// year of 1 % daily changes stays far below the 50 MB budget (docs/PERFORMANCE.md).
enum VersionCoding {
    /// The blob's first byte: its format.
    static let format: UInt8 = 1

    /// One entry as interned ids.
    struct Coded: Equatable {
        var uri: Int64
        /// 0: no adder.
        var user: Int64
        var date: DateField
    }

    enum DateField: Equatable {
        case none
        case seconds(Int64)
        /// An interned text that is not Spotify's usual form.
        case text(Int64)
    }

    static func encode(_ entries: [Coded]) -> [UInt8] {
        var bytes: [UInt8] = [format]
        bytes.reserveCapacity(1 + entries.count * 7)
        var previous: Int64 = 0
        for entry in entries {
            appendVarint(UInt64(entry.uri), to: &bytes)
            appendVarint(UInt64(entry.user), to: &bytes)
            switch entry.date {
            case .none: appendVarint(0, to: &bytes)
            case .text(let id): appendVarint(UInt64(id) &* 2 &+ 1, to: &bytes)
            case .seconds(let seconds):
                appendVarint(zigzag(seconds &- previous) &* 2 &+ 2, to: &bytes)
                previous = seconds
            }
        }
        return bytes
    }

    /// nil when the blob is not one `encode` wrote (a damaged file): the caller says so.
    static func decode(_ bytes: [UInt8]) -> [Coded]? {
        guard bytes.first == format else { return nil }
        var result: [Coded] = []
        var offset = 1
        var previous: Int64 = 0
        while offset < bytes.count {
            guard let uri = readVarint(bytes, &offset), let user = readVarint(bytes, &offset), let field = readVarint(bytes, &offset),
                uri <= UInt64(Int64.max), user <= UInt64(Int64.max)
            else { return nil }
            let date: DateField
            if field == 0 {
                date = .none
            } else if field % 2 == 1 {
                date = .text(Int64(bitPattern: (field - 1) / 2))
            } else {
                previous = previous &+ unzigzag((field - 2) / 2)
                date = .seconds(previous)
            }
            result.append(Coded(uri: Int64(uri), user: Int64(user), date: date))
        }
        return result
    }

    static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    static func readVarint(_ bytes: [UInt8], _ offset: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count, shift < 64 {
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }

    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
    static func unzigzag(_ value: UInt64) -> Int64 { Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }

    // MARK: Spotify's dates

    /// Seconds since 1970 of `YYYY-MM-DDTHH:MM:SSZ`, only when `text(seconds)` gives the same text
    /// back (so a stored date is always the text Spotify sent): digits only, a real day.
    static func seconds(_ text: String) -> Int64? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 20, utf8[4] == 0x2D, utf8[7] == 0x2D, utf8[10] == 0x54, utf8[13] == 0x3A, utf8[16] == 0x3A, utf8[19] == 0x5A
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                guard (0x30...0x39).contains(utf8[index]) else { return nil }
                value = value * 10 + Int64(utf8[index] - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), (1...31).contains(day), hour < 24,
            minute < 60, second < 60
        else { return nil }
        // A day the month does not have (02-30) would come back as another date: kept as text.
        let days = daysFromCivil(year, month, day)
        guard civil(days) == (year, month, day) else { return nil }
        return days * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` of seconds since 1970 (years 0–9999).
    static func text(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        let (year, month, day) = civil(days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(rest / 3600, 2)):\(pad(rest % 3600 / 60, 2)):\(pad(rest % 60, 2))Z"
    }

    /// Howard Hinnant's days_from_civil.
    static func daysFromCivil(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Howard Hinnant's civil_from_days.
    static func civil(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
