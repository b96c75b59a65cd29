import Foundation
import SandboxCore

/// One entry of the sandbox's request log.
public struct SandboxRequestRecord: Decodable, Sendable, Equatable {
    public var ts: String
    public var method: String
    public var path: String
    public var query: String
    public var status: Int
    public var auth: String
    public var bytes: Int
    /// The request body's size (0 for reads); nil from a sandbox that predates writes.
    public var requestBytes: Int?
    /// The request's `Content-Length` header as sent, nil when it had none.
    public var contentLength: String?

    enum CodingKeys: String, CodingKey {
        case ts, method, path, query, status, auth, bytes
        case requestBytes = "request_bytes"
        case contentLength = "content_length"
    }

    /// POST, PUT and DELETE: the writes.
    public var isWrite: Bool { method != "GET" }
}

/// One playlist as the sandbox holds it (`GET /__sandbox/playlists/{id}`), followed or not.
public struct SandboxPlaylistInfo: Decodable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var description: String?
    public var ownerID: String
    public var snapshotID: String
    public var trackCount: Int
    public var collaborative: Bool
    public var isPublic: Bool
    /// The signed-in user owns it or it is collaborative.
    public var editable: Bool
    /// Listed in `/me/playlists`.
    public var followed: Bool
    public var items: [SandboxEntry]

    enum CodingKeys: String, CodingKey {
        case id, name, description, collaborative, editable, followed, items
        case ownerID = "owner_id", snapshotID = "snapshot_id", trackCount = "track_count", isPublic = "public"
    }
}

/// One entry of a playlist or of Liked Songs in the sandbox's model.
public struct SandboxEntry: Decodable, Sendable, Equatable {
    public var position: Int
    /// `track`, `local`, `episode`, `null` or `malformed`.
    public var kind: String
    /// nil for `item: null`.
    public var uri: String?
    public var name: String?
    /// ISO 8601, nil for `added_at: null`.
    public var addedAt: String?

    enum CodingKeys: String, CodingKey {
        case position, kind, uri, name
        case addedAt = "added_at"
    }

    /// `URI @ added_at` (`null` when the server sent none).
    public var dated: String { "\(uri ?? "") @ \(addedAt ?? "null")" }
}

/// The result of one curl call.
public struct CurlResult: Sendable {
    /// curl's exit code (0 = transfer complete; 18 partial body, 35 TLS handshake, 60 certificate…).
    public var exitCode: Int32
    /// HTTP status, 0 when no response arrived.
    public var status: Int
    /// Raw response header block(s).
    public var headers: String
    public var body: Data

    public var text: String { String(decoding: body, as: UTF8.self) }

    public func json() -> Any? { try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) }

    /// The value of the last header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        var found: String?
        for line in headers.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                found = parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return found
    }
}
