import ArgumentParser
import TimbreApp
import TimbreCore

extension Root {
    struct Login: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Sign in to Spotify (OAuth PKCE with a loopback redirect).",
            discussion: """
                Opens the Spotify sign-in page in your browser ($BROWSER, else xdg-open) and waits for the \
                redirect to http://127.0.0.1:PORT/callback. Over SSH use --paste. For scripts and servers \
                use --with-token: pipe a refresh token (or the JSON a token endpoint returned) on stdin; it \
                is checked with Spotify before anything is stored. Secrets go to the desktop keyring \
                (Secret Service); --insecure-storage writes a 0600 file instead.
                """)

        @Flag(help: "Print the sign-in URL instead of opening a browser.")
        var noBrowser = false

        @Flag(help: "For SSH: print the URL, then read the address the browser ended on from stdin.")
        var paste = false

        @Option(help: "Loopback port for the redirect (default: redirect_port from config.toml, 8974; 0 = any free port).")
        var port: Int?

        @Flag(help: "Read a refresh token (or token-endpoint JSON) from stdin instead of signing in with a browser.")
        var withToken = false

        @Flag(help: "Store secrets in a plain-text file (mode 0600) instead of the keyring.")
        var insecureStorage = false

        func validate() throws {
            if withToken && (paste || noBrowser || port != nil) {
                throw ValidationError("'--with-token' cannot be combined with '--paste', '--no-browser' or '--port'")
            }
            if let port, !(0...65535).contains(port) { throw ValidationError("--port must be 0–65535") }
        }

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await LoginCommand(noBrowser: noBrowser, paste: paste, port: port, withToken: withToken, insecureStorage: insecureStorage).run(invocation)
        }
    }

    struct Logout: Runnable {
        static let configuration = CommandConfiguration(abstract: "Remove every stored secret of this profile from the keyring and the credentials file.")

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await LogoutCommand().run(invocation)
        }
    }
}
