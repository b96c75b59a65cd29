import Testing

@testable import TimbreLibrary

/// The order a sync reads playlists in (issue #42 item 5): the user's own before followed ones;
/// in each, those read before whose snapshot changed before those never read; otherwise
/// `/me/playlists`' order.
@Suite struct ReadingOrderTests {
    func meta(_ id: String, owner: String, snapshot: String = "s") -> PlaylistMeta {
        PlaylistMeta(id: id, name: id, ownerID: owner, ownerName: nil, snapshotID: snapshot, total: 1, collaborative: false, isPublic: false)
    }

    @Test func ownBeforeFollowedThenChangedBeforeNewThenSpotifysOrder() {
        let listed = [
            meta("f1", owner: "alice"), meta("o1", owner: "me"), meta("f2", owner: "spotify"),
            meta("o2", owner: "me"), meta("o3", owner: "me"), meta("f3", owner: "bob"),
        ]
        // o3 and f3 were read by an earlier sync (their snapshot changed since); the rest never.
        let stored = [
            "o3": StoredState(snapshotID: "old", trackCount: 1, itemCount: 1, fingerprint: nil, unavailable: false, sortOrder: 4),
            "f3": StoredState(snapshotID: "old", trackCount: 1, itemCount: 1, fingerprint: nil, unavailable: false, sortOrder: 5),
        ]
        let order = SyncEngine.readingOrder(listed, userID: "me", stored: stored).map(\.id)
        #expect(order == ["o3", "o1", "o2", "f3", "f1", "f2"])
        // The user not known: Spotify's order, changed ones first.
        #expect(SyncEngine.readingOrder(listed, userID: nil, stored: stored).map(\.id) == ["o3", "f3", "f1", "o1", "f2", "o2"])
    }
}
