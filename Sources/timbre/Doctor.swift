import ArgumentParser
import Foundation
import TimbreAuth
import TimbreCore
import TimbreLibrary
import TimbreNet

extension Root {
    struct Doctor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the setup: config, client id, keyring, cache, pins, and (with --online) connectivity.",
            discussion: "One line per check: ok, warn or fail, with the fix. Exits 1 when any check fails.")

        @Flag(help: "Also connect to the accounts and API hosts through the pinned transport.")
        var online = false

        enum Level: String { case ok, warn, fail }

        func run() async throws {
            var results: [(Level, String, String)] = []
            func report(_ level: Level, _ name: String, _ text: String) { results.append((level, name, text)) }

            let paths = Paths.resolve()
            let config: Config
            do {
                config = try Config.load(paths: paths)
                report(.ok, "config", config.sourcePath.map { "\($0) parses" } ?? "no file at \(paths.config); using defaults")
            } catch {
                Output.lines(["fail  config  \(error.message) — fix: \(error.hint ?? "correct the file")"])
                throw ExitCode(ExitStatus.failure.rawValue)
            }
            let context = AppContext(environment: ProcessInfo.processInfo.environment, paths: paths, config: config)

            if let id = config.clientID {
                report(.ok, "client id", "set (\(id.prefix(6))…)")
            } else {
                report(.fail, "client id", "not set — fix: register an app at https://developer.spotify.com/dashboard with redirect URI \(PKCE.redirectURI(port: config.redirectPort == 0 ? Config.defaultRedirectPort : config.redirectPort)), then client_id = \"…\" in \(paths.config)")
            }

            do {
                _ = try await LibSecretStore().read(.clientID, profile: "timbre-doctor-probe")
                report(.ok, "keyring", "Secret Service reachable and unlocked")
            } catch {
                let level: Level = EnvironmentSecretStore(environment: context.environment) != nil ? .warn : .fail
                report(level, "keyring", "\(error.message) — fix: \(error.hint ?? "unlock your keyring")")
            }

            let vault = context.vault()
            switch await Result(catching: { try await vault.refreshToken() }) {
            case .success(let found?): report(.ok, "sign-in", "signed in (secret in \(found.1.rawValue))")
            case .success(nil): report(.warn, "sign-in", "not signed in — fix: `timbre login`")
            case .failure(let error): report(.warn, "sign-in", "cannot tell: \((error as? any UserFacingError)?.message ?? "\(error)")")
            }

            let loose = FilePermissions.looseDirectories(paths)
            if loose.isEmpty {
                report(.ok, "permissions", "timbre's folders are yours alone")
            }
            for folder in loose {
                report(.warn, "permissions", "\(folder.path) is open to other users — fix: `\(folder.fix)`")
            }

            if FileManager.default.fileExists(atPath: paths.cache) {
                do {
                    let moved = Locked<[String]>([])
                    let cache = try LibraryCache.open(path: paths.cache, warn: { text in moved.withLock { $0.append(text) } })
                    for text in moved.current { report(.warn, "cache", text) }
                    if try cache.integrityCheck() {
                        report(.ok, "cache", "\(paths.cache): integrity ok, \(try cache.playlists().count) playlists")
                    } else {
                        report(.fail, "cache", "\(paths.cache) fails integrity_check — fix: delete it and run `timbre sync` (it is re-fetchable)")
                    }
                } catch {
                    report(.fail, "cache", "\((error as? any UserFacingError)?.message ?? "\(error)") — fix: delete \(paths.cache) and run `timbre sync`")
                }
            } else {
                report(.warn, "cache", "no cache yet at \(paths.cache) — fix: `timbre sync`")
            }

            let settings = TransportSettings(config: config)
            var seen = Set<String>()
            for url in [config.accountsURL, config.apiURL] where seen.insert(url.host ?? "?").inserted {
                let host = url.host ?? "?"
                if let rule = settings.pins.rule(for: host) {
                    let origin = settings.pins.configured.contains(rule) ? "config.toml" : "shipped defaults"
                    report(.ok, "pins", "\(host): \(rule.pins.count) pin(s), scope \(rule.scope.rawValue), \(rule.mode.rawValue) (\(origin))")
                } else {
                    report(.fail, "pins", "\(host): no pin policy, every request would be refused — fix: add [[tls.pin]] for it (`timbre pins https://\(host)`)")
                }
            }

            if online {
                let transport = CurlTransport(settings: settings)
                for url in [config.accountsURL, config.apiURL] {
                    do {
                        let response = try await transport.send(HTTPRequest(url: url, timeout: .seconds(10)))
                        report(.ok, "connect", "\(url.host ?? "?"): TLS and pins ok (HTTP \(response.status))")
                    } catch let error as TransportError {
                        report(.fail, "connect", "\(error.message) — fix: \(error.hint ?? "check the network")")
                    }
                }
            } else {
                report(.ok, "connect", "skipped (add --online to test the connection)")
            }

            let width = results.map(\.1.count).max() ?? 8
            Output.lines(results.map { level, name, text in
                "\(level.rawValue.padding(toLength: 4, withPad: " ", startingAt: 0))  \(name.padding(toLength: width, withPad: " ", startingAt: 0))  \(TerminalText.sanitize(text))"
            })
            if results.contains(where: { $0.0 == .fail }) { throw ExitCode(ExitStatus.failure.rawValue) }
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
