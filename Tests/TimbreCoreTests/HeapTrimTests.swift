import Testing
import TimbreCore

@Suite struct HeapTrimTests {
    @Test func glibcTakesTheTrimThreshold() {
        // mallopt answers 1 when it took the setting: the binding reaches glibc's function.
        #expect(HeapTrim.keep(upTo: 4 << 20))
        // Memory allocated and freed after it still works as before.
        let blocks = (0..<64).map { _ in [UInt8](repeating: 7, count: 64 << 10) }
        #expect(blocks.allSatisfy { $0.count == 64 << 10 && $0.last == 7 })
    }
}
