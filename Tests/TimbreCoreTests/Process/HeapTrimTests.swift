import Testing

@testable import TimbreCore

@Suite struct HeapTrimTests {
    @Test func itSetsTheTrimThresholdToTheAskedSize() {
        var calls: [(parameter: Int32, value: Int32)] = []
        let taken = HeapTrim.keep(upTo: 4 << 20) { parameter, value in
            calls.append((parameter, value))
            return 1
        }
        #expect(taken)
        #expect(calls.count == 1)
        // M_TRIM_THRESHOLD is -1 in <malloc.h>; any other parameter tunes something else.
        #expect(calls.first?.parameter == -1 && calls.first?.value == 4 << 20)
    }

    @Test func aRefusalIsReportedAsFalse() {
        #expect(!HeapTrim.keep(upTo: 4 << 20) { _, _ in 0 })
    }

    #if canImport(Glibc)
    @Test func glibcAnswersThroughTheBinding() {
        // mallopt answers 1 when it took the setting…
        #expect(HeapTrim.keep(upTo: 4 << 20))
        // …and the binding passes glibc's own answer on: the one value glibc refuses (M_MXFAST, 1,
        // above its 160-byte maximum on 64-bit) comes back as 0.
        #expect(HeapTrim.allocatorOption(1, 1 << 20) == 0)
    }
    #endif
}
