import Foundation
import Testing

@testable import SandboxCore

/// `serve --account empty`: a second account on the same service, for restoring into an account
/// that has nothing (docs/SANDBOX.md).
@Suite struct EmptyAccountTests {
    @Test func theSecondAccountOwnsFollowsAndLikesNothingAndCanFollowEverythingById() {
        let generated = Library(size: .small, seed: 42)
        var library = generated
        library.makeAccountEmpty()
        #expect(library.me.id == Library.emptyAccountUserID)
        #expect(library.playlists.isEmpty && library.liked.isEmpty && library.savedEpisodes.isEmpty)
        // The generated listener is another user now, owning what it owned.
        let previous = library.users.count - 1
        #expect(library.users[previous] == generated.me)
        #expect(library.unfollowed.map(\.id) == generated.playlists.map(\.id) + generated.unfollowed.map(\.id))
        for (before, after) in zip(generated.playlists, library.unfollowed) {
            #expect(after.owner == (before.owner == 0 ? previous : before.owner))
            #expect(!after.editable || after.collaborative, "\(after.name): only collaborative ones stay writable")
        }
        // The catalogue is the same, and every playlist is followed back by id.
        #expect(library.pool.trackID(0) == generated.pool.trackID(0))
        for id in generated.playlists.map(\.id) { library.follow(id) }
        #expect(Set(library.playlists.map(\.id)) == Set(generated.playlists.map(\.id)))
    }
}
