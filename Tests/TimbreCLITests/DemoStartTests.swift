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
        // The real binary, in a process of its own: in-process, the demo's browser task shared the
        // test runner's two-thread pool with every test that blocks a thread (tmux, ChildProcess),
        // and under CI's load missed the 30 s sign-in window (seen twice).
        let result = try await cli.run(["demo", "--no-interface", "--library", "small"], timeout: .seconds(120))
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

    /// Installed, the sandbox is ../lib/timbre/timbre-sandbox from bin/timbre (the .deb's
    /// /usr/lib/timbre, the tarball's lib/timbre); without it the demo says where it looked.
    @Test func theDemoFindsTheSandboxWhereThePackageInstallsIt() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-demo-prefix-\(UUID().uuidString)")
        let cli = try TimbreCLI()
        try await withCleanup({
            try? FileManager.default.removeItem(at: root)
            cli.remove()
        }) {
            let build = try SandboxProcess.binaryDirectory()
            for folder in ["bin", "lib/timbre"] {
                try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
            let timbre = root.appendingPathComponent("bin/timbre").path
            try FileManager.default.copyItem(atPath: build.appendingPathComponent("timbre").path, toPath: timbre)
            let missing = try await cli.run(["demo", "--no-interface", "--library", "small"], executable: timbre)
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("\(root.path)/lib/timbre/timbre-sandbox"), "\(missing.stderr)")
            #expect(missing.stderr.contains("hint: "))
            try FileManager.default.copyItem(
                atPath: build.appendingPathComponent("timbre-sandbox").path,
                toPath: root.appendingPathComponent("lib/timbre/timbre-sandbox").path)
            let result = try await cli.run(["demo", "--no-interface", "--library", "small"], timeout: .seconds(120), executable: timbre)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("Synced: "))
            // Afterwards the CLI reads the demo's cache, and doctor knows the profile.
            #expect(await cli.invoke(["--profile", "demo", "playlists"]).status == 0)
            let doctor = await cli.invoke(["--profile", "demo", "doctor"])
            #expect(
                doctor.stdout.split(separator: "\n").contains { $0.hasPrefix("ok") && $0.contains("not used: the demo profile keeps its sandbox session") },
                "\(doctor.stdout)")
            #expect(doctor.stdout.contains("sign-in") && doctor.stdout.contains("signed in (secret in file)"), "\(doctor.stdout)")
            // Online, with the demo over: not "check your network", but where the sandbox went.
            let search = await cli.invoke(["--profile", "demo", "search", "heart"])
            #expect(search.status == 1)
            #expect(search.stderr.contains("hint: the demo's sandbox runs only while `timbre demo` does"), "\(search.stderr)")
        }
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
            // The previous demo's cache, journal and session: a demo that cannot start keeps them.
            let previous = [
                "cache/timbre/profiles/demo/library.sqlite", "data/timbre/profiles/demo/timbre.sqlite",
                "config/timbre/profiles/demo/credentials.json",
            ].map { cli.home.appendingPathComponent($0) }
            for file in previous {
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try "previous demo".write(to: file, atomically: true, encoding: .utf8)
            }
            let result = try await cli.run(
                ["demo", "--no-interface"], environment: ["TIMBRE_DEMO_START_TIMEOUT": "1"],
                timeout: .seconds(25), executable: copy)
            #expect(result.status == 1)
            #expect(result.stderr.contains("did not announce itself within 1 seconds"), "\(result.stderr)")
            for file in previous {
                #expect((try? String(contentsOf: file, encoding: .utf8)) == "previous demo", "\(file.path) survives a failed start")
            }
            try? FileManager.default.removeItem(at: dir)
            cli.remove()
        } catch {
            try? FileManager.default.removeItem(at: dir)
            cli.remove()
            throw error
        }
    }
}
