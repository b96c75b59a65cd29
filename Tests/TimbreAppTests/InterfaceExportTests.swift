import Foundation
import Testing
import TimbreCore
import TimbreTUI
import TimbreTestSupport

@testable import TimbreApp

/// `:export FILE`: the path made absolute from the run's `$HOME` and the current directory, and a
/// file already there replaced only after a yes.
@Suite struct InterfaceExportTests {
    @Test(arguments: [
        ("~/x.csv", "/home/run/x.csv"),
        ("~", "/home/run"),
        ("lists/../x.csv", "/work/here/x.csv"),
        ("x.csv", "/work/here/x.csv"),
        ("/tmp/y.csv", "/tmp/y.csv"),
    ])
    func pathsAreMadeAbsolute(typed: String, absolute: String) throws {
        let environment = ["HOME": "/home/run"]
        #expect(try InterfaceServices.absolutePath(typed, environment: environment, directory: "/work/here") == absolute)
    }

    @Test func tildeWithoutAHomeIsAClearError() {
        let error = #expect(throws: UsageError.self) { try InterfaceServices.absolutePath("~/x.csv", environment: [:], directory: "/d") }
        #expect(error?.hint?.contains("full path") == true)
    }

    /// An existing file: the export asks (with the absolute path) and writes nothing; the question's
    /// yes is the same export with `overwrite`.
    @Test func anExistingFileIsAskedAboutAndLeftAlone() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        var environment = cli.environment
        environment["HOME"] = cli.home.path
        let context = try Invocation(console: Console.buffered(environment: environment).0, environment: environment).context()
        let services = InterfaceServices(context: context, makeEditor: { _ in throw UsageError(message: "no editor in this test") })
        let file = cli.home.appendingPathComponent("mine.csv")
        try Data("keep me\n".utf8).write(to: file)
        let report = try await services.run(.transfer(.export(.liked, path: "~/mine.csv")), progress: { _, _ in })
        #expect(report.ask?.question == "“\(file.path)” exists — overwrite? (y/n)")
        #expect(report.ask?.edit == .transfer(.export(.liked, path: file.path, overwrite: true)))
        #expect(report.message.contains("nothing was written"))
        #expect(try String(contentsOf: file, encoding: .utf8) == "keep me\n")
    }
}
