import Foundation
import Testing

@testable import TimbreCore

@Suite struct ClockTextTests {
    // 2026-11-22T10:00:00Z and 0.123 s.
    let moment = Date(timeIntervalSince1970: 1_795_341_600.123)

    @Test func utcTextsMatchTheContractShapes() {
        #expect(ClockText.iso(moment) == "2026-11-22T10:00:00Z")
        #expect(ClockText.iso(moment, milliseconds: true) == "2026-11-22T10:00:00.123Z")
        #expect(ClockText.sqlite(moment) == "2026-11-22 10:00:00.123")
        #expect(ClockText.iso(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        // Before 1970 the milliseconds still count forward from the whole second below.
        #expect(ClockText.sqlite(Date(timeIntervalSince1970: -0.5)) == "1969-12-31 23:59:59.500")
    }

    @Test func cacheTimesRoundTripAndReadWhatGRDBWrote() throws {
        let parsed = try #require(ClockText.parseSQLite(ClockText.sqlite(moment)))
        #expect(abs(parsed.timeIntervalSince1970 - moment.timeIntervalSince1970) < 0.001)
        // GRDB's own format (caches written by earlier versions), with and without a fraction.
        #expect(ClockText.parseSQLite("2026-11-22 10:00:00.000")?.timeIntervalSince1970 == 1_795_341_600)
        #expect(ClockText.parseSQLite("2026-11-22 10:00:00")?.timeIntervalSince1970 == 1_795_341_600)
        #expect(ClockText.parseSQLite("2026-11-22T10:00:00.5")?.timeIntervalSince1970 == 1_795_341_600.5)
    }

    @Test func malformedCacheTimesReadAsNothing() {
        for text in [
            "", "2026-11-22", "2026-13-22 10:00:00", "2026-11-22 25:00:00", "2026/11/22 10:00:00",
            "2026-11-22 10:00:00.", "2026-11-22 10:00:00.12x", "２０２６-11-22 10:00:00", "'; DROP TABLE item; --",
        ] {
            #expect(ClockText.parseSQLite(text) == nil, "\(text)")
        }
    }

    @Test func localTimesFollowTZ() {
        // The test process runs with whatever TZ the machine has; the shape is what is fixed.
        let time = ClockText.localTime(moment)
        #expect(time.count == 5 && time.dropFirst(2).first == ":")
        let stamp = ClockText.localDateTime(moment)
        #expect(stamp.count == 16 && stamp.hasPrefix("2026-11-2"))
        #expect(ClockText.pad(7) == "07" && ClockText.pad(123, 2) == "123" && ClockText.pad(-5, 3) == "-005")
    }
}
