import Testing
import TimbreCore
import TimbreLibrary
import TimbreTestSupport

@testable import TimbreTUI

/// `J J J J J` as one move: which moves join, and when a move stops taking more.
@Suite struct MoveCoalescerTests {
    func move(_ start: Int, _ length: Int, _ to: Int, in playlist: String = "p000000000000000000000") -> TUIEdit {
        .entries(.test(playlist), .move(start: start, length: length, to: to))
    }

    @Test func movesOfTheSameRowsChainAndOthersDoNot() {
        #expect(PendingMove.joined(move(0, 2, 1), move(1, 2, 2)) == move(0, 2, 2))
        #expect(PendingMove.joined(move(3, 1, 2), move(2, 1, 1)) == move(3, 1, 1), "K K")
        #expect(PendingMove.joined(move(0, 1, 1), move(1, 1, 0)) == move(0, 1, 0), "there and back: a move to where it was")
        #expect(PendingMove.joined(move(0, 1, 1), move(2, 1, 3)) == nil, "other rows")
        #expect(PendingMove.joined(move(0, 1, 1), move(1, 2, 2)) == nil, "another run")
        #expect(PendingMove.joined(move(0, 1, 1), move(1, 1, 2, in: "q000000000000000000000")) == nil, "another playlist")
        #expect(PendingMove.joined(move(0, 1, 1), .entries(.test("p000000000000000000000"), .shuffle)) == nil)
        let forced = TUIEdit.change(.entries(.test("p000000000000000000000"), .move(start: 1, length: 1, to: 2), .init(force: true)))
        #expect(PendingMove.joined(move(0, 1, 1), forced) == nil, "other options")
    }

    @Test func aSettledMoveTakesNoMore() async {
        let pending = PendingMove(move(0, 1, 1))
        #expect(pending.join(move(1, 1, 2)))
        #expect(pending.isOpen)
        #expect(await pending.settle() == move(0, 1, 2))
        #expect(!pending.isOpen)
        #expect(!pending.join(move(2, 1, 3)), "sent: the next J is an edit of its own")
    }
}
