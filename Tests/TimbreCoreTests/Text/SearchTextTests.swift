import Foundation
import Testing

@testable import TimbreCore

@Suite struct SearchTextTests {
    /// What folding means, one byte or one string at a time (the definition the fast paths keep).
    static func reference(_ text: String) -> [UInt8] {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.utf8.map(SearchText.foldASCII) }
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        return folded.utf8.map { $0 < 0x20 ? 0x20 : $0 }
    }

    @Test func everyASCIIByteAtEveryOffsetFoldsAsOneByteAtATime() {
        let filler = Array("aZ3 Mq-".utf8)
        for length in 1...20 {
            for offset in 0..<length {
                for byte in UInt8(0)...UInt8(0x7F) {
                    var text = (0..<length).map { filler[$0 % filler.count] }
                    text[offset] = byte
                    var out: [UInt8] = [0x21]
                    let ascii = text.withUnsafeBufferPointer { SearchText.appendASCII($0, to: &out) }
                    #expect(ascii)
                    guard out == [0x21] + text.map(SearchText.foldASCII) else {
                        Issue.record("byte \(byte) at \(offset) of \(length): \(out)")
                        return
                    }
                }
            }
        }
    }

    @Test func aNonASCIIByteAnywhereAppendsNothingAndFoundationFolds() {
        for length in 1...20 {
            for offset in 0..<length {
                var scalars = Array(repeating: Character("A"), count: length)
                scalars[offset] = "É"
                let text = String(scalars)
                var out: [UInt8] = [0x21]
                let ascii = Array(text.utf8).withUnsafeBufferPointer { SearchText.appendASCII($0, to: &out) }
                #expect(!ascii && out == [0x21], "nothing of \(text) is kept")
                var folded: [UInt8] = []
                Array(text.utf8).withUnsafeBufferPointer { SearchText.append(bytes: $0, to: &folded) }
                let expected = String(repeating: "a", count: offset) + "e" + String(repeating: "a", count: length - offset - 1)
                #expect(folded == Self.reference(text) && folded == Array(expected.utf8), "\(text)")
            }
        }
    }

    @Test(arguments: [
        "Beyoncé", "BEYONCE", "Río Abajo", "ＦＵＬＬ　ｗｉｄｔｈ", "Straße", "tab\there\nline", "Ω Σ ς",
        "e\u{301}", "東京 Tokyo", "🎧 Mix", "\u{1B}[31mred", "",
    ])
    func stringsAndBytesFoldAlike(_ text: String) {
        var fromBytes: [UInt8] = []
        Array(text.utf8).withUnsafeBufferPointer { SearchText.append(bytes: $0, to: &fromBytes) }
        #expect(fromBytes == Self.reference(text))
        #expect(SearchText.foldedBytes(text) == Self.reference(text))
    }
}
