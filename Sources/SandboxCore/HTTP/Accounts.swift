import Foundation

/// `/authorize` and `/api/token`, with the accounts service's error shapes.
extension SandboxService {
    static let codeLifetime: TimeInterval = 300

    /// Spotify accepts loopback redirects only as an IP literal; `localhost` is refused.
    static func isAcceptableRedirect(_ uri: String) -> Bool {
        guard let components = URLComponents(string: uri),
            components.scheme == "http",
            let host = components.host, host == "127.0.0.1" || host == "[::1]" || host == "::1",
            components.port != nil,
            components.path == "/callback",
            components.query == nil, components.fragment == nil
        else { return false }
        return true
    }

    static func isValidChallenge(_ text: String) -> Bool {
        (43...128).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    return true
                default:
                    return false
                }
            }
    }

    func authorize(_ parameters: [String: String], now: Date) -> SandboxResponse {
        guard parameters["client_id"] == configuration.clientID else {
            return .text(400, "INVALID_CLIENT: Invalid client")
        }
        guard let redirect = parameters["redirect_uri"], SandboxService.isAcceptableRedirect(redirect) else {
            return .text(400, "INVALID_CLIENT: Invalid redirect URI")
        }
        let state = parameters["state"]
        func back(_ pairs: [(String, String)]) -> SandboxResponse {
            var all = pairs
            if let state { all.append(("state", state)) }
            return .redirect(redirect + "?" + all.map { "\($0)=\(FormEncoding.escape($1))" }.joined(separator: "&"))
        }
        guard parameters["response_type"] == "code" else {
            return back([("error", "unsupported_response_type"), ("error_description", "response_type must be code")])
        }
        guard parameters["code_challenge_method"] == "S256" else {
            return back([("error", "invalid_request"), ("error_description", "code_challenge_method must be S256")])
        }
        guard let challenge = parameters["code_challenge"], SandboxService.isValidChallenge(challenge) else {
            return back([("error", "invalid_request"), ("error_description", "code_challenge must be 43-128 base64url characters")])
        }
        guard let state, !state.isEmpty else {
            return back([("error", "invalid_request"), ("error_description", "state is required")])
        }
        // No scope asked, none granted (public data only), as on Spotify.
        guard let scopes = Scopes.parse(parameters["scope"] ?? "") else {
            return back([("error", "invalid_scope"), ("error_description", "Invalid scope")])
        }
        return withState { s in
            guard s.approve else { return back([("error", "access_denied")]) }
            let code = Digest.randomToken(bytes: 48, prefix: "AQ")
            s.codes[code] = AuthorizationCode(
                redirectURI: redirect, challenge: challenge, expires: now.addingTimeInterval(SandboxService.codeLifetime), scopes: scopes
            )
            configuration.log("authorize: approved, code issued (present)")
            return back([("code", code)])
        }
    }

    func token(_ form: [String: String], now: Date) -> SandboxResponse {
        guard let grant = form["grant_type"], !grant.isEmpty else {
            return .accountsError("unsupported_grant_type", "grant_type parameter is missing")
        }
        guard grant == "authorization_code" || grant == "refresh_token" else {
            return .accountsError("unsupported_grant_type", "grant_type must be client_credentials, authorization_code or refresh_token")
        }
        guard let client = form["client_id"], !client.isEmpty else {
            return .accountsError("invalid_client", "Invalid client")
        }
        guard client == configuration.clientID else {
            return .accountsError("invalid_client", "Invalid client")
        }
        return withState { s in
            if grant == "authorization_code" {
                // Single use: looking a code up consumes it, whether or not the exchange succeeds.
                guard let codeValue = form["code"], let code = s.codes.removeValue(forKey: codeValue), code.expires > now else {
                    return .accountsError("invalid_grant", "Invalid authorization code")
                }
                guard form["redirect_uri"] == code.redirectURI else {
                    return .accountsError("invalid_grant", "Invalid redirect URI")
                }
                guard let verifier = form["code_verifier"], !verifier.isEmpty else {
                    return .accountsError("invalid_request", "code_verifier required")
                }
                guard Digest.pkceChallenge(verifier: verifier) == code.challenge else {
                    return .accountsError("invalid_grant", "code_verifier was incorrect")
                }
                let refresh = issueRefreshToken(&s, scopes: code.scopes)
                return tokenResponse(&s, now: now, refresh: refresh, scopes: code.scopes)
            }
            guard let refresh = form["refresh_token"], !refresh.isEmpty else {
                return .accountsError("invalid_request", "refresh_token must be supplied")
            }
            if s.revokedRefreshTokens.contains(refresh) {
                return .accountsError("invalid_grant", "Refresh token revoked")
            }
            guard let scopes = s.refreshTokens[refresh] else {
                return .accountsError("invalid_grant", "Invalid refresh token")
            }
            switch configuration.refreshRotation {
            case .rotate:
                s.refreshTokens[refresh] = nil
                return tokenResponse(&s, now: now, refresh: issueRefreshToken(&s, scopes: scopes), scopes: scopes)
            case .omit:
                return tokenResponse(&s, now: now, refresh: nil, scopes: scopes)
            case .same:
                return tokenResponse(&s, now: now, refresh: refresh, scopes: scopes)
            }
        }
    }

    /// A refresh token granting `scopes` to every access token it is exchanged for.
    func issueRefreshToken(_ s: inout State, scopes: [String]) -> String {
        let token = Digest.randomToken(bytes: 96, prefix: "AQ")
        s.refreshTokens[token] = scopes
        return token
    }

    private func tokenResponse(_ s: inout State, now: Date, refresh: String?, scopes: [String]) -> SandboxResponse {
        let access = Digest.randomToken(bytes: 96, prefix: "BQ")
        s.accessTokens[access] = now.addingTimeInterval(TimeInterval(configuration.accessTokenTTL))
        s.accessScopes[access] = Set(scopes)
        var pairs: [(String, JSONValue)] = [
            ("access_token", .string(access)),
            ("token_type", "Bearer"),
            ("expires_in", .int(configuration.accessTokenTTL)),
        ]
        if let refresh { pairs.append(("refresh_token", .string(refresh))) }
        pairs.append(("scope", .string(scopes.joined(separator: " "))))
        configuration.log("token: issued access token (present), refresh token \(refresh == nil ? "omitted" : "present")")
        return .json(200, .object(pairs), headers: [("Cache-Control", "no-store")])
    }

    /// nil when the bearer token is good, else the 401 to send.
    func checkBearer(_ request: SandboxRequest, now: Date) -> SandboxResponse? {
        switch authenticate(request, now: now) {
        case .success: nil
        case let .failure(error): error.response
        }
    }

    /// The bearer token's scopes, or the 401 to send.
    func authenticate(_ request: SandboxRequest, now: Date) -> Result<Set<String>, SandboxResponseError> {
        let header = request.headers["authorization"] ?? ""
        guard header.lowercased().hasPrefix("bearer ") else { return .failure(.init(response: unauthorized("Invalid access token"))) }
        let token = String(header.dropFirst(7)).trimmingSpaces
        let limit = configuration.accessTokenRequests
        let (expiry, uses, scopes) = withState { s -> (Date?, Int, Set<String>) in
            guard let expiry = s.accessTokens[token] else { return (nil, 0, []) }
            if limit != nil { s.accessTokenUses[token, default: 0] += 1 }
            return (expiry, s.accessTokenUses[token] ?? 0, s.accessScopes[token] ?? [])
        }
        guard let expiry else { return .failure(.init(response: unauthorized("Invalid access token"))) }
        guard expiry > now else { return .failure(.init(response: unauthorized("The access token expired"))) }
        if let limit, uses > limit { return .failure(.init(response: unauthorized("The access token expired"))) }
        return .success(scopes)
    }

    private func unauthorized(_ message: String) -> SandboxResponse {
        .apiError(
            401, message,
            headers: [
                ("WWW-Authenticate", "Bearer realm=\"spotify\", error=\"invalid_token\", error_description=\"\(message)\"")
            ])
    }
}
