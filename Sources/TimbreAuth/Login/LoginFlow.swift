import Foundation
import Logging
import TimbreCore
import TimbreNet

/// The terminal a login talks to: diagnostics out, one line or all of stdin in.
public struct LoginIO: Sendable {
    public var say: @Sendable (String) -> Void
    public var readLine: @Sendable () -> String?
    public var readAll: @Sendable () -> Data
    public var openBrowser: @Sendable (String) -> Bool

    public init(
        say: @escaping @Sendable (String) -> Void, readLine: @escaping @Sendable () -> String?,
        readAll: @escaping @Sendable () -> Data, openBrowser: @escaping @Sendable (String) -> Bool
    ) {
        self.say = say
        self.readLine = readLine
        self.readAll = readAll
        self.openBrowser = openBrowser
    }
}

/// `timbre login` in its three forms. Nothing is stored until Spotify has accepted the tokens and
/// `GET /me` has answered.
public struct LoginFlow: Sendable {
    public enum Mode: Sendable, Equatable {
        /// Loopback redirect; `openBrowser` false = only print the URL (`--no-browser`).
        case loopback(openBrowser: Bool)
        /// `--paste`: print the URL, read the final redirect URL from stdin (SSH).
        case paste
        /// `--with-token`: a refresh token or token-endpoint JSON on stdin.
        case withToken
    }

    public let accounts: AccountsClient
    public let apiURL: URL
    public let executor: RequestExecutor
    public let vault: CredentialVault
    public let port: Int
    public let timeout: Duration
    public let io: LoginIO
    private let logger = Logger(label: "timbre.login")

    public init(
        accounts: AccountsClient, apiURL: URL, executor: RequestExecutor, vault: CredentialVault,
        port: Int, timeout: Duration = .seconds(300), io: LoginIO
    ) {
        self.accounts = accounts
        self.apiURL = apiURL
        self.executor = executor
        self.vault = vault
        self.port = port
        self.timeout = timeout
        self.io = io
    }

    public func run(_ mode: Mode) async throws -> (UserProfile, Session) {
        switch mode {
        case .loopback(let openBrowser): return try await loopback(openBrowser: openBrowser)
        case .paste: return try await paste()
        case .withToken: return try await withToken()
        }
    }

    private func loopback(openBrowser: Bool) async throws -> (UserProfile, Session) {
        let listener = try LoopbackListener(port: port)
        defer { listener.stop() }
        let pkce = try PKCE()
        let url = pkce.authorizeURL(accountsURL: accounts.accountsURL, clientID: accounts.clientID, redirectURI: listener.redirectURI).absoluteString
        if openBrowser, io.openBrowser(url) {
            io.say("Opening your browser to sign in to Spotify. If it does not open, visit:\n  \(url)")
        } else {
            io.say("Open this address in a browser to sign in to Spotify:\n  \(url)")
        }
        io.say("Waiting for Spotify to redirect to \(listener.redirectURI) …")
        let code = try await listener.waitForCode(expectedState: pkce.state, timeout: timeout)
        let tokens = try await accounts.exchange(code: code, verifier: pkce.verifier, redirectURI: listener.redirectURI)
        return try await complete(tokens, fallback: nil)
    }

    private func paste() async throws -> (UserProfile, Session) {
        let pkce = try PKCE()
        let redirectURI = PKCE.redirectURI(port: port)
        let url = pkce.authorizeURL(accountsURL: accounts.accountsURL, clientID: accounts.clientID, redirectURI: redirectURI).absoluteString
        io.say(
            """
            1. Open this address in a browser on any machine and approve:
                 \(url)
            2. The browser then fails to load \(redirectURI)?… — that is expected.
               Copy the whole address from its address bar and paste it here:
            """)
        guard let line = io.readLine(), !line.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw LoginError.invalidRedirectURL("nothing was pasted")
        }
        guard case .code(let code) = try CallbackParser.parse(line, expectedState: pkce.state) else {
            throw LoginError.invalidRedirectURL("expected \(redirectURI)?code=…&state=…")
        }
        let tokens = try await accounts.exchange(code: code, verifier: pkce.verifier, redirectURI: redirectURI)
        return try await complete(tokens, fallback: nil)
    }

    private func withToken() async throws -> (UserProfile, Session) {
        let token = try Self.readRefreshToken(io.readAll())
        // Checked before the refresh: Spotify may rotate the token, and then only the new one works.
        try await vault.checkLoginDestination()
        let tokens = try await accounts.refresh(token)
        return try await complete(tokens, fallback: token)
    }

    /// Reads a bare refresh token or `{"refresh_token": "…", …}` from stdin.
    public static func readRefreshToken(_ data: Data) throws(LoginError) -> SecretBytes {
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .invalidTokenInput("standard input was empty") }
        if text.hasPrefix("{") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                throw .invalidTokenInput("it starts like JSON but is not valid JSON")
            }
            guard let token = object["refresh_token"] as? String, Self.looksLikeToken(token) else {
                throw .invalidTokenInput("the JSON has no usable \"refresh_token\" field")
            }
            return SecretBytes(token)
        }
        guard Self.looksLikeToken(text) else {
            throw .invalidTokenInput("expected one token of letters, digits and -._~+/= (no spaces)")
        }
        return SecretBytes(text)
    }

    private static func looksLikeToken(_ text: String) -> Bool {
        (8...4096).contains(text.count)
            && text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII || "-._~+/=".unicodeScalars.contains($0) }
    }

    /// Validates with `GET /me`, then stores: refresh token first, then the session.
    private func complete(_ tokens: TokenResponse, fallback: SecretBytes?) async throws -> (UserProfile, Session) {
        let meURL = URL(string: apiURL.absoluteString + "/me") ?? apiURL
        let response = try await executor.send(HTTPRequest(url: meURL), signer: BearerTokenSigner(token: tokens.accessToken))
        guard let profile = try? JSONDecoder().decode(UserProfile.self, from: response.body) else { throw AuthError.malformedProfile }
        let refreshToken: SecretBytes
        if let rotated = tokens.refreshToken, !rotated.isEmpty {
            refreshToken = SecretBytes(rotated)
        } else if let fallback {
            refreshToken = fallback
        } else {
            throw AuthError.malformedTokenResponse
        }
        try await vault.storeRefreshToken(refreshToken, to: vault.loginDestination)
        let session = Session(
            accessToken: tokens.accessToken, expiresAt: Date().addingTimeInterval(TimeInterval(tokens.expiresIn)),
            scopes: tokens.scopes, userID: profile.id, displayName: profile.displayName, grant: Session.grant(of: refreshToken))
        await vault.saveSession(session)
        logger.info("signed in", metadata: ["user": "\(profile.id)", "store": "\(vault.loginDestination.rawValue)"])
        return (profile, session)
    }
}
