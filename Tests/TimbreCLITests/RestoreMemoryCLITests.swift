import Foundation
import Testing
import TimbreTestSupport

/// `timbre restore` of a large hostile backup is refused within memory proportional to the file:
/// the file is checked by a byte-level reader that keeps nothing (JSONSerialization's object tree of
/// a 68 MB file refused at its last entry once peaked at 2.0 GB).
@Suite(.serialized, .tags(.integration), .integrationTier)
struct RestoreMemoryCLITests {
    /// A backup of `playlists` × 10,000 good entries whose very last Liked Songs entry is hostile.
    static func hostileBackup(playlists: Int) -> Data {
        var text = #"{"format":"timbre-backup","version":1,"created_at":"2026-11-26T12:00:00Z","account":{"id":"sandbox_user","name":"Me"},"playlists":["#
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        func id(_ n: Int) -> String {
            var n = n
            var out = [Character](repeating: "0", count: 22)
            for i in (0..<22).reversed() {
                out[i] = alphabet[n % 62]
                n /= 62
            }
            return String(out)
        }
        for p in 0..<playlists {
            if p > 0 { text += "," }
            text += #"{"id":"\#(id(p))","name":"Playlist \#(p)","description":null,"public":false,"collaborative":false,"entries":["#
            for e in 0..<10_000 {
                if e > 0 { text += "," }
                text += #"{"uri":"spotify:track:\#(id(p * 10_000 + e))","added_at":"2024-01-01T00:00:00Z","added_by":"sandbox_user"}"#
            }
            text += "]}"
        }
        text += #"],"followed":[],"folders":[],"liked":[{"uri":"spotify:track:4uLU6hMCjMI75M1A2tKUQC","added_at":null},"#
        text += #"{"uri":"javascript:alert(1)","added_at":null}]}"#
        return Data(text.utf8)
    }

    /// Runs `timbre arguments` under a Python parent that reports its one child's peak RSS (KB),
    /// so no other child of the test process counts.
    static func peakKB(_ cli: TimbreCLI, _ arguments: [String]) async throws -> (CLIResult, Int) {
        let timbre = try SandboxProcess.binaryDirectory().appendingPathComponent("timbre").path
        let wrapper = """
            import resource, subprocess, sys
            p = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, capture_output=True)
            sys.stdout.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) + "\\n")
            sys.stderr.write(p.stderr.decode("utf-8", "replace"))
            sys.exit(p.returncode)
            """
        let result = try await cli.run(["-c", wrapper, timbre] + arguments, timeout: .seconds(300), executable: "/usr/bin/python3")
        let kb = Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        return (result, kb)
    }

    @Test func aLargeHostileBackupIsRefusedWithinAMemoryBoundProportionalToTheFile() async throws {
        let cli = try TimbreCLI()
        try await withCleanup({ cli.remove() }) {
            let file = cli.home.appendingPathComponent("hostile.json")
            let data = Self.hostileBackup(playlists: 16)
            #expect(data.count > 12_000_000)
            try data.write(to: file)
            let (result, kb) = try await Self.peakKB(cli, ["restore", file.path])
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.stderr.contains("liked[1].uri is not a track, episode or local-file URI"), "\(result.stderr)")
            #expect(result.stderr.contains("nothing was sent"))
            #expect(kb > 0, "\(result.stdout)")
            // The file once, plus timbre's own start-up, with room to spare: 8× the file's size.
            #expect(kb * 1_024 <= 8 * data.count, "peak RSS \(kb) KB for a \(data.count / 1_024) KB file")
        }
    }
}
