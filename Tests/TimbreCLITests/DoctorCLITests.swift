import Foundation
import Testing
import TimbreTestSupport

@Suite(.tags(.integration), .integrationTier) struct DoctorCLITests {
    @Test func healthySetupPassesAndAWrongPinFails() async throws {
        try await SandboxProcess.with(extraArguments: ["--refresh-rotation", "same"]) { sandbox in
            let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": try await sandbox.mintRefreshToken()])
            defer { cli.remove() }
            try cli.configure(for: sandbox)
            #expect(await cli.invoke(["sync", "--quiet"]).status == 0)

            let good = await cli.invoke(["doctor", "--online"])
            let lines = good.stdout.split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix("ok") && $0.contains("config") })
            #expect(lines.contains { $0.hasPrefix("ok") && $0.contains("integrity ok") })
            #expect(lines.contains { $0.hasPrefix("ok") && $0.contains("connect") && $0.contains("TLS and pins ok") })
            #expect(lines.contains { $0.contains("sign-in") && $0.contains("env") })
            // A healthy setup: nothing fails, and the exit status says so.
            #expect(!lines.contains { $0.hasPrefix("fail") }, "\(good.stdout)")
            #expect(good.status == 0, "\(good.stdout)")

            // --json: every check of the text, each with its name, level, detail and fix.
            let json = await cli.invoke(["doctor", "--online", "--json"])
            #expect(json.status == 0)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
            let checks = try #require(object["checks"] as? [[String: String]], "\(json.stdout)")
            #expect(checks.count == lines.count)
            #expect(checks.allSatisfy { Set($0.keys) == ["name", "level", "detail", "fix"] && ["ok", "warn", "fail"].contains($0["level"] ?? "") })
            #expect(checks.contains { $0["name"] == "connect" && $0["level"] == "ok" && $0["detail"]?.contains("TLS and pins ok") == true && $0["fix"] == "" })

            try cli.configure(for: sandbox, pin: "sha256/" + Data(repeating: 3, count: 32).base64EncodedString())
            let bad = await cli.invoke(["doctor", "--online"])
            #expect(bad.status == 1)
            #expect(bad.stdout.split(separator: "\n").contains { $0.hasPrefix("fail") && $0.contains("connect") })
            let badJSON = await cli.invoke(["doctor", "--online", "--json"])
            #expect(badJSON.status == 1)
            let failed = ((try? JSONSerialization.jsonObject(with: Data(badJSON.stdout.utf8)) as? [String: Any])?["checks"] as? [[String: String]]) ?? []
            #expect(failed.contains { $0["name"] == "connect" && $0["level"] == "fail" && !($0["fix"] ?? "").isEmpty }, "\(badJSON.stdout)")
        }
    }

    @Test func brokenConfigIsReported() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        try cli.writeConfig("redirect_port = \"nope\"")
        let result = await cli.invoke(["doctor"])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("fail  config"))
        let json = await cli.invoke(["doctor", "--json"])
        #expect(json.status == 1)
        let checks = ((try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["checks"] as? [[String: String]]) ?? []
        #expect(checks.count == 1 && checks.first?["name"] == "config" && checks.first?["level"] == "fail", "\(json.stdout)")
    }
}
