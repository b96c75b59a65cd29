import Foundation
import Testing
import TimbreCore
import TimbreTestSupport

/// timbre's files are the user's alone, and a config others could have written is refused.
@Suite(.tags(.integration), .integrationTier)
struct FilePermissionsCLITests {
    private func mode(_ path: String) -> UInt16? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.uint16Value
    }

    @Test func aWorldWritableConfigFolderIsRefusedWithTheChmodToRun() async throws {
        let cli = try TimbreCLI()
        do {
            try cli.writeConfig("client_id = \"abc\"\n")
            let folder = cli.configFile.deletingLastPathComponent().path
            chmod(folder, 0o777)
            let result = try await cli.run(["auth", "status"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("chmod go-w \(folder)"), "\(result.stderr)")

            chmod(folder, 0o700)
            chmod(cli.configFile.path, 0o666)
            let file = try await cli.run(["auth", "status"])
            #expect(file.status == 2)
            #expect(file.stderr.contains("chmod go-w \(cli.configFile.path)"), "\(file.stderr)")
            cli.remove()
        } catch {
            cli.remove()
            throw error
        }
    }

    @Test func doctorNamesLooseFolders() async throws {
        let cli = try TimbreCLI()
        do {
            let cacheFolder = cli.home.appendingPathComponent("cache/timbre").path
            try FileManager.default.createDirectory(atPath: cacheFolder, withIntermediateDirectories: true)
            chmod(cacheFolder, 0o755)
            let loose = try await cli.run(["doctor"])
            #expect(
                loose.stdout.split(separator: "\n").contains {
                    $0.hasPrefix("warn") && $0.contains("permissions") && $0.contains("chmod go-rwx \(cacheFolder)")
                }, "\(loose.stdout)")
            cli.remove()
        } catch {
            cli.remove()
            throw error
        }
    }

    @Test func theCacheAndItsSideFilesAreTheUsersAlone() async throws {
        let sandbox = try await SandboxProcess.start(extraArguments: ["--refresh-rotation", "same"])
        let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": try await sandbox.mintRefreshToken()])
        do {
            try cli.configure(for: sandbox)
            #expect(try await cli.run(["sync", "--quiet"]).status == 0)
            let folder = cli.home.appendingPathComponent("cache/timbre").path
            #expect(mode(folder) == 0o700)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder)
            #expect(files.contains("library.sqlite"))
            for name in files {
                #expect(mode(folder + "/" + name).map { $0 & 0o077 } == 0, "\(name) is open to others")
            }
            #expect(mode(cli.home.appendingPathComponent("state/timbre/timbre.log").path) == 0o600)
            await sandbox.stop()
            cli.remove()
        } catch {
            await sandbox.stop()
            cli.remove()
            throw error
        }
    }

    /// A reader that closed its end before timbre wrote: EPIPE ends the output, no signal death.
    @Test func aClosedPipeEndsOutputWithoutDyingOfSIGPIPE() async throws {
        let cli = try TimbreCLI()
        let binary = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre").path
        // Python resets SIGPIPE to its default in the child, as a shell would.
        let script = """
            import os, subprocess, sys
            r, w = os.pipe()
            os.close(r)
            p = subprocess.run([sys.argv[1], "paths", "--json"], stdout=w, stderr=subprocess.DEVNULL)
            print(p.returncode)
            """
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("sigpipe-\(UUID().uuidString)").path
        let result = await withCheckedContinuation { continuation in
            Thread {
                var env = cli.environment
                env["PATH"] = env["PATH"] ?? "/usr/bin:/bin"
                let pid = try? Spawn.start(["/usr/bin/python3", "-c", script, binary], stdoutPath: out, environment: env)
                continuation.resume(returning: pid.map { Spawn.wait($0) })
            }.start()
        }
        let printed = (try? String(contentsOfFile: out, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        unlink(out)
        cli.remove()
        #expect(result == 0)
        #expect(printed == "0", "timbre's status: \(printed ?? "none") (negative = killed by that signal)")
    }
}
