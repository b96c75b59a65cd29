import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Dates as short text through the C library's own calendar (`gmtime_r`/`localtime_r`, which
/// follow `TZ` and /etc/localtime). Foundation's formatters load ICU's data tables for the same
/// job — several megabytes of memory in an interface that only shows "synced 14:05".
public enum ClockText {
    /// `2026-11-22T10:00:00Z` (UTC, whole seconds), or `2026-11-22T10:00:00.123Z` with milliseconds.
    public static func iso(_ date: Date, milliseconds: Bool = false) -> String {
        let text = sqlite(date)
        return String(text.prefix(10)) + "T" + String(text.dropFirst(11).prefix(milliseconds ? 12 : 8)) + "Z"
    }

    /// `14:05` in local time.
    public static func localTime(_ date: Date) -> String {
        guard let t = parts(date, local: true) else { return "--:--" }
        return "\(pad(Int(t.tm_hour))):\(pad(Int(t.tm_min)))"
    }

    /// `2026-11-22 14:05` in local time.
    public static func localDateTime(_ date: Date) -> String {
        guard let t = parts(date, local: true) else { return "----" }
        return "\(pad(Int(t.tm_year) + 1900, 4))-\(pad(Int(t.tm_mon) + 1))-\(pad(Int(t.tm_mday))) \(pad(Int(t.tm_hour))):\(pad(Int(t.tm_min)))"
    }

    /// `2026-11-22 10:00:00.123` (UTC, milliseconds): how the cache stores times (GRDB's own
    /// format, so caches written before keep reading the same).
    public static func sqlite(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard milliseconds.isFinite, abs(milliseconds) < 1e15 else { return "1970-01-01 00:00:00.000" }
        let whole = Int64(milliseconds)
        let seconds = whole >= 0 ? whole / 1000 : (whole - 999) / 1000
        guard let t = parts(Date(timeIntervalSince1970: Double(seconds)), local: false) else { return "1970-01-01 00:00:00.000" }
        return "\(pad(Int(t.tm_year) + 1900, 4))-\(pad(Int(t.tm_mon) + 1))-\(pad(Int(t.tm_mday))) "
            + "\(pad(Int(t.tm_hour))):\(pad(Int(t.tm_min))):\(pad(Int(t.tm_sec))).\(pad(Int(whole - seconds * 1000), 3))"
    }

    /// Reads `sqlite`'s format (UTC; `T` or a space between date and time; fraction optional);
    /// nil for anything else.
    public static func parseSQLite(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x20 || bytes[10] == 0x54,
            bytes[13] == 0x3A, bytes[16] == 0x3A
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (0x30...0x39).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if bytes.count > 19 {
            guard bytes[19] == 0x2E, bytes.count > 20, bytes.count <= 29, let digits = number(20..<bytes.count) else { return nil }
            fraction = Double(digits) / pow(10, Double(bytes.count - 20))
        }
        var t = tm()
        t.tm_year = Int32(year - 1900)
        t.tm_mon = Int32(month - 1)
        t.tm_mday = Int32(day)
        t.tm_hour = Int32(hour)
        t.tm_min = Int32(minute)
        t.tm_sec = Int32(second)
        let seconds = timegm(&t)
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// A duration as `m:ss` (minutes not wrapped into hours: `75:00`).
    public static func minutesSeconds(milliseconds: Int) -> String {
        "\(milliseconds / 60_000):\(pad((milliseconds / 1000) % 60))"
    }

    /// `value` with leading zeros to `width` digits (a minus sign first when negative).
    public static func pad(_ value: Int, _ width: Int = 2) -> String {
        let digits = String(value.magnitude)
        let zeros = String(repeating: "0", count: max(0, width - digits.count))
        return (value < 0 ? "-" : "") + zeros + digits
    }

    private static func parts(_ date: Date, local: Bool) -> tm? {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e15 else { return nil }
        var time = time_t(seconds)
        var result = tm()
        let ok = local ? localtime_r(&time, &result) != nil : gmtime_r(&time, &result) != nil
        return ok ? result : nil
    }
}
