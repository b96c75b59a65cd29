import ArgumentParser
import Foundation
import TimbreAuth
import TimbreCore

extension Root {
    struct Login: AsyncParsableCommand {
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

        func run() async throws {
            let context = try AppContext.load()
            let port = self.port ?? context.config.redirectPort
            let clientID = try context.clientID(redirectPort: port == 0 ? Config.defaultRedirectPort : port)
            let executor = context.executor()
            let vault = context.vault(insecureStorage: insecureStorage)
            let timeout = Int(context.environment["TIMBRE_LOGIN_TIMEOUT"] ?? "").map { Duration.seconds(max(1, $0)) } ?? .seconds(300)
            let flow = LoginFlow(
                accounts: AccountsClient(executor: executor, accountsURL: context.config.accountsURL, clientID: clientID),
                apiURL: context.config.apiURL, executor: executor, vault: vault, port: port, timeout: timeout,
                io: LoginIO(
                    say: { Output.stderr($0 + "\n") },
                    readLine: { Swift.readLine(strippingNewline: true) },
                    readAll: { FileHandle.standardInput.readDataToEndOfFile() },
                    openBrowser: { Browser.open($0, environment: context.environment) }))
            let mode: LoginFlow.Mode = withToken ? .withToken : (paste ? .paste : .loopback(openBrowser: !noBrowser))
            let (profile, _) = try await flow.run(mode)
            // Both strings come from the server: neither reaches the terminal raw.
            let id = TerminalText.sanitize(profile.id)
            let name = profile.displayName.map { "\(TerminalText.sanitize($0)) (\(id))" } ?? id
            let place = insecureStorage ? context.paths.credentials : "the keyring"
            Output.stderr("✓ Signed in to Spotify as \(name); credentials stored in \(place).\n")
        }
    }

    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every stored secret of this profile from the keyring and the credentials file.")

        func run() async throws {
            let context = try AppContext.load()
            let problems = try await context.vault().removeAll()
            for problem in problems { Output.warning(problem) }
            Output.stderr("Signed out: removed timbre's credentials for profile \"\(context.profile)\".\n")
            if context.environment[EnvironmentSecretStore.variable] != nil {
                Output.warning("TIMBRE_REFRESH_TOKEN is still set in your environment; unset it to stay signed out")
            }
            if !problems.isEmpty { throw ExitCode(ExitStatus.failure.rawValue) }
        }
    }
}
