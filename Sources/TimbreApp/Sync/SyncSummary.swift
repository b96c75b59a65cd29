import Foundation
import TimbreLibrary

extension SyncReport {
    /// The human summary line of `timbre sync` and the demo.
    var summary: String {
        var parts = ["\(checked) playlists checked", "\(updated) updated", "\(unchanged) unchanged"]
        if failed > 0 { parts.append("\(failed) failed") }
        if removed > 0 { parts.append("\(removed) removed") }
        let liked = likedUpdated ? "Liked Songs updated (\(likedCount))" : "Liked Songs unchanged (\(likedCount))"
        let seconds = String(format: "%.1f", Double(durationMS) / 1000)
        let left = toRead.isEmpty ? "" : "; \(toRead.count) \(toRead.count == 1 ? "list" : "lists") still to read"
        return "Synced: \(parts.joined(separator: ", ")); \(liked); \(itemsWritten) items written, \(requests) requests, \(seconds) s\(left)"
    }
}
