import Foundation
import Testing
import TimbreCore
import TimbreTestSupport

@testable import TimbreAuth

/// The browser timbre starts is not timbre's: it gets neither its secrets nor its descriptors.
@Suite(.tags(.integration), .integrationTier)
struct ChildEnvironmentTests {
    @Test func theBrowserGetsNoSecretAndNoInheritedDescriptor() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("timbre-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let report = dir.appendingPathComponent("report.json")
        let script = dir.appendingPathComponent("browser.py")
        // fstat probes open descriptors without opening one of its own (listing /proc would).
        try """
        import json, os, sys
        fds = []
        for fd in range(3, 4096):
            try:
                os.fstat(fd); fds.append(fd)
            except OSError:
                pass
        tmp = sys.argv[1] + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"env": dict(os.environ), "fds": fds, "url": sys.argv[2]}, f)
        os.rename(tmp, sys.argv[1])
        """.write(to: script, atomically: true, encoding: .utf8)

        // A descriptor without close-on-exec, as curl's socketpair is, and a secret in the real environment.
        let leaked = open("/dev/null", O_RDONLY)
        let password = "pw-\(UUID().uuidString)"
        setenv("TIMBRE_CLIENT_CERT_PASSWORD", password, 1)
        var environment = ProcessInfo.processInfo.environment
        environment["TIMBRE_REFRESH_TOKEN"] = "refresh-secret-value"
        environment["BROWSER"] = "/usr/bin/python3 \(script.path) \(report.path)"
        environment["DISPLAY"] = ":42"
        let opened = Browser.open("https://accounts.example/authorize?x=1", environment: environment)
        unsetenv("TIMBRE_CLIENT_CERT_PASSWORD")
        close(leaked)
        #expect(opened)

        var data: Data?
        for _ in 0..<1_000 where data == nil {
            data = try? Data(contentsOf: report)
            if data == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        try? FileManager.default.removeItem(at: dir)
        let json = try #require(data)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let env = try #require(object["env"] as? [String: String])
        #expect(env["TIMBRE_REFRESH_TOKEN"] == nil)
        #expect(env["TIMBRE_CLIENT_CERT_PASSWORD"] == nil)
        #expect(!env.values.contains { $0.contains("refresh-secret-value") || $0.contains(password) })
        #expect(env["DISPLAY"] == ":42")
        #expect(env["PATH"] != nil)
        #expect(object["fds"] as? [Int] == [])
        #expect(object["url"] as? String == "https://accounts.example/authorize?x=1")
    }

    @Test func childEnvironmentKeepsWhatABrowserNeeds() {
        let kept = Spawn.childEnvironment([
            "DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0", "XDG_RUNTIME_DIR": "/run/user/1", "HOME": "/h", "PATH": "/bin",
            "LANG": "C.UTF-8", "LC_ALL": "C", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/x", "BROWSER": "firefox",
            "TIMBRE_REFRESH_TOKEN": "t", "TIMBRE_PROFILE": "p", "GITHUB_TOKEN": "g", "AWS_SECRET_ACCESS_KEY": "a",
        ])
        #expect(
            Set(kept.keys) == [
                "DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "HOME", "PATH", "LANG", "LC_ALL",
                "DBUS_SESSION_BUS_ADDRESS", "BROWSER",
            ])
    }
}
