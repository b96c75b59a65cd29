import Foundation
import Testing
import TimbreTestSupport

/// Strings a server controls never reach the terminal raw, whichever command prints them.
@Suite(.serialized, .tags(.integration), .integrationTier) struct HostileTextCLITests {
    /// A title-setting escape, a bell, a C1 CSI and a right-to-left override.
    static let hostileName = "Eve\u{1B}]0;pwned\u{07}\u{9B}31m\u{202E}gpj.exe"

    private static func isInert(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || (0x80...0x9F).contains($0.value) || $0.value == 0x202E }
    }

    @Test func authStatusAndLoginShowAHostileDisplayNameInert() async throws {
        try await SandboxProcess.with(extraArguments: [
            "--refresh-rotation", "same", "--display-name", Self.hostileName,
            "--user-id", "id\u{1B}[2J\u{2066}",
        ]) { sandbox in
            let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_PROFILE": "hostile-\(UUID().uuidString.prefix(8))"])
            try await withCleanup({ cli.remove() }) {
                try cli.configure(for: sandbox)
                let minted = try await sandbox.mintRefreshToken()
                let login = await cli.invoke(["login", "--with-token", "--insecure-storage"], stdin: minted)
                #expect(login.status == 0, "\(login.stderr)")
                #expect(Self.isInert(login.stdout) && Self.isInert(login.stderr), "\(login.stdout.debugDescription) \(login.stderr.debugDescription)")

                let status = await cli.invoke(["auth", "status"])
                #expect(status.status == 0, "\(status.stderr)")
                #expect(status.stdout.contains("Eve^[]0;pwned^G<U+009B>31m<U+202E>gpj.exe (id^[[2J<U+2066>)"), "\(status.stdout.debugDescription)")
                #expect(Self.isInert(status.stdout), "\(status.stdout.debugDescription)")

                // JSON keeps the data exactly, escaped: a script gets the real name.
                let json = await cli.invoke(["auth", "status", "--json"])
                let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
                #expect(object?["display_name"] as? String == Self.hostileName)
                #expect(!json.stdout.contains("\u{1B}"), "control characters are \\u-escaped in JSON")
            }
        }
    }
}
