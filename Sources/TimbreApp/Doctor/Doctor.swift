import Foundation
import TimbreAuth
import TimbreCore
import TimbreLibrary
import TimbreNet

/// The checks of `timbre doctor`, each a small function returning its lines. Offline checks read
/// files and the keyring only; `connect` with `online` makes a TLS connection to each host.
public struct Doctor: Sendable {
    let context: AppContext

    public init(context: AppContext) { self.context = context }

    /// Every check, in the order they are shown.
    public func checks(online: Bool) async -> [DoctorCheck] {
        var results = [config(), clientID(), await keyring(), await signIn()]
        results += permissions()
        results.append(log())
        results += cache()
        results += await pins()
        results.append(trust())
        results.append(quota())
        results.append(await clientCertificate())
        results.append(proxy())
        results += await connect(online: online)
        return results
    }

    /// The requests of the last 24 h and any wait Spotify asked for (`timbre quota`): a warning
    /// while nothing may be sent.
    func quota() -> DoctorCheck {
        let report = QuotaReport(ledger: context.requestLedger(), now: Date())
        guard report.stop != nil else { return DoctorCheck(.ok, "quota", report.doctorLine) }
        return DoctorCheck(.warn, "quota", report.doctorLine + " — fix: wait, or `timbre quota --reset` after changing client_id")
    }

    /// config.toml parses (a config that does not is reported by `DoctorCommand` before any check runs).
    func config() -> DoctorCheck {
        DoctorCheck(.ok, "config", context.config.sourcePath.map { "\($0) parses" } ?? "no file at \(context.paths.config); using defaults")
    }

    func clientID() -> DoctorCheck {
        let config = context.config
        if let id = config.clientID { return DoctorCheck(.ok, "client id", "set (\(id.prefix(6))…)") }
        let port = config.redirectPort == 0 ? Config.defaultRedirectPort : config.redirectPort
        return DoctorCheck(
            .fail, "client id",
            "not set — fix: register an app at https://developer.spotify.com/dashboard with redirect URI \(PKCE.redirectURI(port: port)), then client_id = \"…\" in \(context.paths.config)"
        )
    }

    /// The Secret Service answers. Rated by what the profile uses: with TIMBRE_REFRESH_TOKEN set,
    /// or the profile's secrets in its `--insecure-storage` file, a missing keyring is only a
    /// warning (sign-in works without it).
    func keyring() async -> DoctorCheck {
        if DemoCommand.isDemo(context) {
            return DoctorCheck(.ok, "keyring", "not used: the demo profile keeps its sandbox session in \(context.paths.credentials) (0600)")
        }
        do {
            _ = try await context.keyring().read(.clientID, profile: "timbre-doctor-probe")
            return DoctorCheck(.ok, "keyring", "Secret Service reachable and unlocked")
        } catch {
            let file = FileSecretStore(path: context.paths.credentials, warn: { _ in })
            if (try? await file.read(.refreshToken, profile: context.profile)) != nil {
                return DoctorCheck(
                    .warn, "keyring",
                    "not used by this profile, whose secrets are in \(context.paths.credentials) (--insecure-storage): \(error.message) — fix: only to keep them in a keyring instead: \(error.hint ?? "unlock your keyring"), then `timbre login`"
                )
            }
            let level: DoctorCheck.Level = EnvironmentSecretStore(environment: context.environment) != nil ? .warn : .fail
            return DoctorCheck(level, "keyring", "\(error.message) — fix: \(error.hint ?? "unlock your keyring")")
        }
    }

    func signIn() async -> DoctorCheck {
        let vault = context.vault()
        do {
            guard let found = try await vault.refreshToken() else {
                let fix = DemoCommand.isDemo(context) ? "`timbre demo` signs in to a new sandbox" : "`timbre login`"
                return DoctorCheck(.warn, "sign-in", "not signed in — fix: \(fix)")
            }
            return DoctorCheck(.ok, "sign-in", "signed in (secret in \(found.1.rawValue))")
        } catch {
            return DoctorCheck(.warn, "sign-in", "cannot tell: \(Self.describe(error))")
        }
    }

    func permissions() -> [DoctorCheck] {
        let loose = FilePermissions.looseDirectories(context.paths)
        if loose.isEmpty { return [DoctorCheck(.ok, "permissions", "timbre's folders are yours alone")] }
        return loose.map { DoctorCheck(.warn, "permissions", "\($0.path) is open to other users — fix: `\($0.fix)`") }
    }

    /// timbre.log is nothing yet or the user's own regular file: a link there (or another user's
    /// file) stops every other command, so doctor names it with the fix.
    func log() -> DoctorCheck {
        let path = context.paths.log
        do {
            try FilePermissions.requireOwnFile(path)
            return DoctorCheck(.ok, "log", path)
        } catch {
            // `requireOwnFile` throws only `UnsafeFileError` (typed throws).
            return DoctorCheck(.fail, "log", "\(error.message) — fix: \(error.fix)")
        }
    }

    /// The cache opens, migrates and passes SQLite's integrity_check.
    func cache() -> [DoctorCheck] {
        let path = context.paths.cache
        guard FileManager.default.fileExists(atPath: path) else {
            return [DoctorCheck(.warn, "cache", "no cache yet at \(path) — fix: `timbre sync`")]
        }
        do {
            let moved = Locked<[String]>([])
            let cache = try LibraryCache.open(path: path, warn: { text in moved.withLock { $0.append(text) } })
            let notes = moved.current.map { DoctorCheck(.warn, "cache", $0) }
            guard try cache.integrityCheck() else {
                return notes + [DoctorCheck(.fail, "cache", "\(path) fails integrity_check — fix: delete it and run `timbre sync` (it is re-fetchable)")]
            }
            return notes + [DoctorCheck(.ok, "cache", "\(path): integrity ok, \(try cache.playlists().count) playlists")]
        } catch {
            return [DoctorCheck(.fail, "cache", "\(Self.describe(error)) — fix: delete \(path) and run `timbre sync`")]
        }
    }

    /// Each host timbre talks to has a pin policy; without one every request would be refused.
    /// The applied remote pin set is verified again first: one that no longer verifies is a warning
    /// and the hosts fall back to config.toml and the shipped defaults.
    func pins() async -> [DoctorCheck] {
        let loaded = await context.loadRemotePins()
        var results: [DoctorCheck] = []
        switch loaded {
        case .applied(let set):
            results.append(DoctorCheck(.ok, "pins", "remote pin set version \(set.parsed.version) (expires \(set.parsed.expiresText)) from \(set.source)"))
        case .ignored(let reason):
            results.append(DoctorCheck(.warn, "pins", "\(reason) — fix: `timbre pins update`, or delete \(context.paths.remotePins)"))
        case .none:
            if context.config.tls.remote != nil {
                results.append(DoctorCheck(.ok, "pins", "no remote pin set applied yet ([tls.remote] is configured: `timbre pins update`)"))
            }
        }
        let policy = context.pinPolicy(remote: loaded)
        var seen = Set<String>()
        results += hosts.compactMap { url -> DoctorCheck? in
            let host = url.host ?? "?"
            guard seen.insert(host).inserted else { return nil }
            guard let (rule, origin) = policy.resolve(host) else {
                return DoctorCheck(
                    .fail, "pins", "\(host): no pin policy, every request would be refused — fix: add [[tls.pin]] for it (`timbre pins https://\(host)`)")
            }
            let from =
                switch origin {
                case .config: "config.toml"
                case .remote: "remote pin set"
                case .default: "shipped defaults"
                }
            return DoctorCheck(.ok, "pins", "\(host): \(rule.pins.count) pin(s), scope \(rule.scope.rawValue), \(rule.mode.rawValue) (\(from))")
        }
        return results
    }

    /// What trust.jsonl recorded: how many of each decision, and the last pin mismatch.
    func trust() -> DoctorCheck {
        let path = context.paths.trustEvents
        let records = TrustJournal.read(path: path)
        guard !records.isEmpty else { return DoctorCheck(.ok, "trust", "no trust events recorded yet (\(path))") }
        var counts: [TrustEventKind: Int] = [:]
        for record in records { counts[record.kind, default: 0] += 1 }
        let summary = TrustEventKind.allCases.compactMap { kind in counts[kind].map { "\($0) \(kind.rawValue)" } }.joined(separator: ", ")
        guard let mismatch = records.last(where: { $0.kind == .pinMismatch }) else {
            return DoctorCheck(.ok, "trust", "\(summary) (\(path))")
        }
        return DoctorCheck(
            .warn, "trust",
            "\(summary); last mismatch: \(mismatch.host) presented \(mismatch.pin ?? "no certificate") at \(mismatch.at) — "
                + "fix: if that was not a certificate rotation you expected, someone may be intercepting the connection; check with `timbre pins https://\(mismatch.host)`"
        )
    }

    /// `[tls] client_cert` loads with its password, matches its key and is within its validity;
    /// a certificate that expires within 30 days is a warning.
    func clientCertificate(now: Date = Date()) async -> DoctorCheck {
        guard let settings = context.clientCertificateSettings else {
            return DoctorCheck(.ok, "client cert", "none configured ([tls] client_cert); sent only when a server asks for one")
        }
        do {
            let identity = try await ClientIdentity.load(settings, now: now)
            let days = Int(identity.notAfter.timeIntervalSince(now) / 86_400)
            let chain = identity.chainLength == 0 ? "" : " with \(identity.chainLength) chain certificate\(identity.chainLength == 1 ? "" : "s")"
            let text = "\(settings.path) loads: \(identity.subject), issued by \(identity.issuer)\(chain), expires \(identity.notAfter.iso8601)"
            guard days >= 30 else { return DoctorCheck(.warn, "client cert", "\(text) (in \(days) days) — fix: get it renewed before then") }
            return DoctorCheck(.ok, "client cert", text)
        } catch {
            return DoctorCheck(.fail, "client cert", error.message + (error.hint.map { " — fix: \($0)" } ?? ""))
        }
    }

    /// The proxy this run's environment names (libcurl's rules; ProxySettings), or none.
    func proxy() -> DoctorCheck {
        guard let proxy = ProxySettings(environment: context.environment) else {
            return DoctorCheck(.ok, "proxy", "none (\(ProxySettings.proxyVariables.joined(separator: ", ")) unset): direct connections")
        }
        if let refusal = proxy.refusal { return DoctorCheck(.fail, "proxy", refusal) }
        return DoctorCheck(.ok, "proxy", proxy.summary)
    }

    /// A request to each host through the pinned transport: TLS, the pins and the route in one go.
    func connect(online: Bool) async -> [DoctorCheck] {
        guard online else { return [DoctorCheck(.ok, "connect", "skipped (add --online to test the connection)")] }
        let transport = context.transport()
        var results: [DoctorCheck] = []
        for url in hosts {
            do {
                let response = try await transport.send(HTTPRequest(url: url, timeout: .seconds(10)))
                results.append(DoctorCheck(.ok, "connect", "\(url.host ?? "?"): TLS and pins ok (HTTP \(response.status))"))
            } catch {
                let hint = (error as? any UserFacingError)?.hint ?? "check the network"
                results.append(DoctorCheck(.fail, "connect", "\(Self.describe(error)) — fix: \(hint)"))
            }
        }
        return results
    }

    private var hosts: [URL] { [context.config.accountsURL, context.config.apiURL] }

    static func describe(_ error: any Error) -> String {
        (error as? any UserFacingError)?.message ?? "\(error)"
    }
}
