import Foundation
import Testing
import TimbreTestSupport

/// A sandbox that starts and then says nothing must not hang `timbre demo` with it.
@Suite(.tags(.integration), .integrationTier)
struct DemoStartTests {
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
