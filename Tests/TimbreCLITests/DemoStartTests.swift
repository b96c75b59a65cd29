import Foundation
import Testing
import TimbreTestSupport

/// `timbre demo --no-interface`: the whole path (sandbox, PKCE over pinned TLS, sync) in-process,
/// and a sandbox that starts and then says nothing must not hang the demo with it.
@Suite(.tags(.integration), .integrationTier)
struct DemoStartTests {
    @Test func theDemoStartsTheSandboxSignsInAndSyncs() async throws {
        let cli = try TimbreCLI()
        defer { cli.remove() }
        // In-process the demo finds timbre-sandbox next to the test binary, in the same build folder.
        let result = await cli.invoke(["demo", "--no-interface", "--library", "small"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "Starting the Spotify sandbox (small library)…")
        #expect(lines.contains { $0.hasPrefix("Signed in as ") })
        #expect(lines.last?.hasPrefix("Synced: ") == true && lines.last?.contains(" 0 failed") == false, "\(lines)")
        #expect(result.stdout.isEmpty)
        // The demo's profile is its own: nothing was written to the user's folders.
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("cache/timbre/library.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: cli.configFile.path))
    }

    @Test func aSilentSandboxEndsTheDemoWithAClearError() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-demo-bin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let cli = try TimbreCLI()
        do {
            // The demo looks for timbre-sandbox next to its own binary: give it a silent one.
            let original = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre").path
            let copy = dir.appendingPathComponent("timbre").path
            if link(original, copy) != 0 { try FileManager.default.copyItem(atPath: original, toPath: copy) }
            let fake = dir.appendingPathComponent("timbre-sandbox")
            try "#!/bin/sh\nexec sleep 30\n".write(to: fake, atomically: true, encoding: .utf8)
            chmod(fake.path, 0o755)
            let result = try await cli.run(["demo", "--no-interface"], environment: ["TIMBRE_DEMO_START_TIMEOUT": "1"],
                                           timeout: .seconds(25), executable: copy)
            #expect(result.status == 1)
            #expect(result.stderr.contains("did not announce itself within 1 seconds"), "\(result.stderr)")
            try? FileManager.default.removeItem(at: dir)
            cli.remove()
        } catch {
            try? FileManager.default.removeItem(at: dir)
            cli.remove()
            throw error
        }
    }
}
