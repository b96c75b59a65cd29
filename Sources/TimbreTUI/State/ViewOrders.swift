import Foundation
import TimbreCore

/// The view's order of each playlist not shown by position (`s`, `S`, `:sort`), kept across
/// restarts in the state folder (`view-orders.json`): `{"ID": "title desc", …}`. A file that
/// cannot be read is ignored (the views start in position order); it is never needed to run.
enum ViewOrders {
    /// More than this is not a file timbre wrote.
    static let largest = 1 << 20

    static func load(_ path: String) -> [String: TUIState.ViewOrder] {
        guard let data = FileManager.default.contents(atPath: path), data.count <= largest,
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: String]
        else { return [:] }
        var orders: [String: TUIState.ViewOrder] = [:]
        for (playlist, text) in object {
            let words = text.split(separator: " ").map(String.init)
            guard words.count == 2, let field = Command.ViewOrderKey(rawValue: words[0]), let order = Command.SortOrder(rawValue: words[1]) else { continue }
            orders[playlist] = TUIState.ViewOrder(field: field, order: order)
        }
        return orders
    }

    /// Writes `orders` (0600, replaced atomically); a failure is returned for the message list.
    static func save(_ orders: [String: TUIState.ViewOrder], to path: String) -> String? {
        let object = orders.mapValues { "\($0.field.rawValue) \($0.order.rawValue)" }
        do {
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try PrivateFile.write(data, to: path)
            return nil
        } catch {
            return "the views' orders could not be saved to \(path): \(error)"
        }
    }
}
