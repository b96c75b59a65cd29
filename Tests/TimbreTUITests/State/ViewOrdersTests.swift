import Foundation
import Testing

@testable import TimbreTUI

/// The views' orders kept across restarts: a round trip through the file, and a file timbre did
/// not write (or a broken one) starts every view in position order instead of failing.
@Suite struct ViewOrdersTests {
    func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("timbre-views-\(UUID().uuidString)/view-orders.json").path
    }

    @Test func ordersRoundTripAndTheFileIsPrivate() throws {
        let file = path()
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        let orders = ["a": TUIState.ViewOrder(field: .title, order: .desc), "b": TUIState.ViewOrder(field: .added, order: .asc)]
        #expect(ViewOrders.save(orders, to: file) == nil)
        #expect(ViewOrders.load(file) == orders)
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aBrokenOrForeignFileIsIgnored() throws {
        let file = path()
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: file))
        #expect(ViewOrders.load(file).isEmpty)
        try Data(#"{"a": "title desc", "b": "colour up", "d": "added"}"#.utf8).write(to: URL(fileURLWithPath: file))
        #expect(ViewOrders.load(file) == ["a": TUIState.ViewOrder(field: .title, order: .desc)], "orders timbre would not write are skipped")
        try Data(#"{"a": "title desc", "c": 3}"#.utf8).write(to: URL(fileURLWithPath: file))
        #expect(ViewOrders.load(file).isEmpty, "not the shape timbre writes")
        #expect(ViewOrders.load(file + ".missing").isEmpty)
    }
}
