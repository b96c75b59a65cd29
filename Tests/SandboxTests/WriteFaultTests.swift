import Foundation
import Testing

@testable import SandboxCore

/// Faults aimed at writes: `apply_then_reset`, and status faults narrowed by `method`.
@Suite struct WriteFaultTests {
    @Test func applyThenResetAppliesTheWriteAndAnswersNothing() throws {
        let client = WriteClient()
        let playlist = try client.ownPlaylist(isPublic: false, minimum: 5)
        let before = client.entries(playlist.id)
        let path = "/v1/playlists/\(playlist.id)/items"
        let added = client.control("POST", "faults", json: #"{"faults":[{"kind":"apply_then_reset","method":"POST","path_contains":"/items"}]}"#)
        #expect(added.status == 200)
        // A GET of the same path is not the fault's method.
        #expect(client.get(path).status == 200 && !client.get(path).response.closeWithoutAnswer)
        let pending = client.control("GET", "faults").object["faults"] as? [[String: Any]] ?? []
        #expect(pending.map { $0["kind"] as? String ?? "" } == ["apply_then_reset"])
        #expect(pending.first?["method"] as? String == "POST")

        let x = client.trackURI(90)
        let dropped = client.call("POST", path, json: WriteClient.urisBody([x]))
        #expect(dropped.response.closeWithoutAnswer)
        #expect(client.entries(playlist.id) == before + [x])
        #expect(client.get(path).object["total"] as? Int == before.count + 1)
        let log = client.control("GET", "requests").json as? [[String: Any]] ?? []
        let last = try #require(log.last { $0["method"] as? String == "POST" })
        #expect(last["status"] as? Int == 201 && last["bytes"] as? Int == 0)

        // Spent: the next POST is answered.
        let answered = client.call("POST", path, json: WriteClient.urisBody([x]))
        #expect(answered.status == 201 && !answered.response.closeWithoutAnswer)
        #expect(client.entries(playlist.id) == before + [x, x])
    }

    @Test func aStatusFaultOnAWriteMethodRefusesTheWriteWithoutApplyingIt() throws {
        let client = WriteClient()
        let playlist = try client.ownPlaylist(isPublic: false, minimum: 5)
        let before = client.entries(playlist.id)
        let path = "/v1/playlists/\(playlist.id)/items"
        client.control("POST", "faults", json: #"{"faults":[{"kind":"status","status":502,"method":"post","path_contains":"/playlists/"}]}"#)
        #expect(client.get(path).status == 200)
        let refused = client.call("POST", path, json: WriteClient.urisBody([client.trackURI(91)]))
        #expect(refused.status == 502 && refused.message == "Bad gateway")
        #expect(client.entries(playlist.id) == before)
        #expect(client.call("POST", path, json: WriteClient.urisBody([client.trackURI(91)])).status == 201)
        #expect(client.entries(playlist.id) == before + [client.trackURI(91)])
    }

    @Test func faultsWithAMethodRoundTripThroughCodable() throws {
        let fault = Fault(kind: .applyThenReset, method: "DELETE", pathContains: "/items", count: 2)
        let data = try JSONEncoder().encode(fault)
        #expect(try JSONDecoder().decode(Fault.self, from: data) == fault)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""kind":"apply_then_reset""#) && text.contains(#""method":"DELETE""#))
        #expect(fault.matches(target: "/v1/playlists/x/items", path: "/v1/playlists/x/items", method: "delete"))
        #expect(!fault.matches(target: "/v1/playlists/x/items", path: "/v1/playlists/x/items", method: "POST"))
        #expect(Fault(kind: .reset).matches(target: "/v1/me", path: "/v1/me", method: "PUT"))
    }
}
