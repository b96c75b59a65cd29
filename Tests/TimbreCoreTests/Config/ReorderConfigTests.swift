import Testing

@testable import TimbreCore

/// `reorder = "moves" | "rewrite"`: how shuffle and sort save a new order by default.
@Suite struct ReorderConfigTests {
    @Test func movesByDefaultRewriteWhenAskedAndAnythingElseNamesTheChoices() throws {
        #expect(try Config.parse("").reorderByRewrite == false)
        #expect(try Config.parse("reorder = \"moves\"").reorderByRewrite == false)
        #expect(try Config.parse("reorder = \"rewrite\"").reorderByRewrite == true)
        do {
            _ = try Config.parse("reorder = \"fast\"", path: "/x/config.toml")
            Issue.record("reorder = \"fast\" was accepted")
        } catch {
            #expect(
                error.message.contains("\"moves\"") && error.message.contains("\"rewrite\"") && error.message.contains("/x/config.toml"), "\(error.message)")
            #expect(error.exitStatus == .usage)
        }
    }
}
