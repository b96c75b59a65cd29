import Foundation
import SandboxCore
import Testing
import TimbreTestSupport

/// The write endpoints through the real binary over TLS, and the test-support helpers that read
/// the server's state back.
@Suite(.serialized, .tags(.integration), .integrationTier) struct WriteEndToEndTests {
    static let morningCoffee = "2nZzl0QOqazWKTfzBHvI16"  // small, seed 42: the user's, private, 52 entries

    @Test func applyThenResetLeavesTheClientWithoutAnAnswerAndTheWriteDone() async throws {
        try await SandboxProcess.with(library: .small) { sandbox in
            let (access, _) = try await sandbox.signIn()
            let before = try await sandbox.entries(of: Self.morningCoffee)
            #expect(before.count == 52)
            let info = try await sandbox.playlistInfo(Self.morningCoffee)
            #expect(info.name == "Morning Coffee" && info.ownerID == "sandbox_user" && !info.isPublic && info.editable && info.followed)

            try await sandbox.addFaults([Fault(kind: .applyThenReset, method: "POST", pathContains: "/items")])
            // A catalogue track (the first Liked Song): an id the catalogue lacks is Spotify's 400.
            let uri = try #require(try await sandbox.likedURIs().first)
            let body = #"{"uris":["\#(uri)"],"position":1}"#
            let dropped = try await sandbox.curl("/v1/playlists/\(Self.morningCoffee)/items", method: "POST", json: body, bearer: access)
            #expect(dropped.status == 0)
            #expect(dropped.exitCode != 0)
            #expect(dropped.body.isEmpty)
            let after = try await sandbox.entries(of: Self.morningCoffee)
            #expect(after == [before[0], uri] + before[1...])
            #expect(try await sandbox.playlistInfo(Self.morningCoffee).snapshotID != info.snapshotID)
            #expect(try await sandbox.playlistInfo(Self.morningCoffee).items[1].addedAt != nil)

            // The retry a client would make is answered, and applied a second time.
            let retried = try await sandbox.curl("/v1/playlists/\(Self.morningCoffee)/items", method: "POST", json: body, bearer: access)
            #expect(retried.status == 201)
            #expect(try await sandbox.entries(of: Self.morningCoffee) == [before[0], uri, uri] + before[1...])

            let writes = try await sandbox.writeRequests()
            #expect(writes.map(\.method) == ["POST", "POST"])
            #expect(writes.map(\.status) == [201, 201])
            #expect(writes.map(\.bytes) == [0, retried.body.count])
            #expect(writes.map(\.requestBytes) == [body.utf8.count, body.utf8.count])
        }
    }

    @Test func helpersReadLikesAndFollows() async throws {
        try await SandboxProcess.with(library: .small) { sandbox in
            let (access, _) = try await sandbox.signIn()
            let liked = try await sandbox.likedURIs()
            #expect(liked.count == 50)
            let uri = "spotify:track:4uLU6hMCjMI75M1A2tKUQC"
            // curl sends no Content-Length for a bodiless PUT: Spotify's front end answers 411.
            let bare = try await sandbox.curl("/v1/me/library?uris=\(uri)", method: "PUT", bearer: access)
            #expect(bare.status == 411)
            #expect(bare.text.contains("Length Required"))
            #expect(try await sandbox.likedURIs() == liked)
            let lengths = try await sandbox.requests().filter { $0.path == "/v1/me/library" }
            #expect(lengths.count == 1 && lengths.first?.status == 411)
            #expect(try await sandbox.curl("/v1/me/library?uris=\(uri)", method: "PUT", headers: ["Content-Length: 0"], bearer: access).status == 200)
            #expect(try await sandbox.likedURIs() == [uri] + liked)

            let followed = try await sandbox.followedPlaylistIDs()
            #expect(followed.count == 9)
            let unfollow = try await sandbox.curl(
                "/v1/me/library?uris=spotify:playlist:\(Self.morningCoffee)", method: "DELETE",
                headers: ["Content-Length: 0"], bearer: access)
            #expect(unfollow.status == 200)
            #expect(try await sandbox.followedPlaylistIDs() == followed.filter { $0 != Self.morningCoffee })
            #expect(try await sandbox.playlistInfo(Self.morningCoffee).followed == false)

            // A token with read scopes only: writes refused, reads answered.
            let (reader, _) = try await sandbox.signIn(scopes: ["playlist-read-private", "user-library-read"])
            let refused = try await sandbox.curl("/v1/me/library?uris=\(uri)", method: "DELETE", headers: ["Content-Length: 0"], bearer: reader)
            #expect(refused.status == 403)
            #expect(refused.text == #"{"error":{"status":403,"message":"Insufficient client scope"}}"#)
            #expect(try await sandbox.curl("/v1/me/tracks", bearer: reader).status == 200)
            #expect(try await sandbox.likedURIs().first == uri)
        }
    }
}
