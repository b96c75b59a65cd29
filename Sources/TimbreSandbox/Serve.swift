import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import SandboxCore

extension LibrarySize: ExpressibleByArgument {}
extension RefreshRotation: ExpressibleByArgument {}
extension SandboxAccount: ExpressibleByArgument {}

extension Root {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve the accounts service and Web API over TLS; print one JSON line when ready."
        )

        @Option(help: "Directory for certificates, sandbox.json, requests.jsonl and control-secret (created if needed; made 0700).")
        var stateDir: String

        @Option(help: "Address to listen on.")
        var host = "127.0.0.1"

        @Option(help: "Port to listen on; 0 picks a free one.")
        var port = 0

        @Option(help: "Library size: small, medium or large.")
        var library: LibrarySize = .small

        @Option(help: "Seed for the generated library.")
        var seed: UInt64 = 42

        @Option(help: "The only client id the accounts service accepts.")
        var clientId = "0123456789abcdef0123456789abcdef"

        @Option(help: "Access-token lifetime in seconds.")
        var accessTokenTtl = 3_600

        @Option(help: "Each access token expires after this many API requests (tokens that die mid-sync).")
        var accessTokenRequests: Int?

        @Option(help: "The signed-in user's display name (any text, escape sequences included).")
        var displayName: String?

        @Option(help: "The signed-in user's id (default sandbox_user).")
        var userId: String?

        @Option(
            help:
                "The signed-in account: default (the generated library's listener) or empty (a second account owning, following and liking nothing; the generated playlists stay followable by id)."
        )
        var account: SandboxAccount = .default

        @Option(help: "Refresh-token handling: rotate, omit or same.")
        var refreshRotation: RefreshRotation = .rotate

        @Flag(help: "Behave like an app with extended quota: /tracks works, every playlist's items are readable.")
        var noDevMode = false

        @Flag(help: "Pre-2026 API: /items is not found, playlists carry tracks{…}, entries use \"track\".")
        var legacy = false

        @Option(help: "Largest limit /playlists/{id}/items accepts.")
        var itemsLimitMax = 50

        @Option(help: "Add N playlists owned by spotify that the user follows (listed in /me/playlists; 404 by id and for their items in development mode).")
        var spotifyOwned = 0

        @Flag(help: "Take adds of track or episode ids the catalogue lacks (generated names) instead of Spotify's 400 \"Payload contains a non-existing ID\".")
        var acceptUnknownIds = false

        @Option(help: "Highest TLS version to speak: 1.1, 1.2 or 1.3 (1.1 also lowers the minimum to 1.0).")
        var tlsMax = "1.3"

        @Option(help: "Delay every answer by this many milliseconds.")
        var latencyMs = 0

        @Option(
            help: "Spotify's daily quota: after N Web API requests in a sandbox day every API request answers 429 with Retry-After = the day's seconds left."
        )
        var dailyQuota: Int?

        @Flag(help: "The daily quota's 429 names \"reason\": \"QUOTA_EXCEEDED\" (Spotify's body since July 2026).")
        var quotaReason = false

        @Option(help: "The length of a sandbox day for --daily-quota, in seconds.")
        var quotaDaySeconds = 86_400

        @Flag(help: "The account has no Premium: player commands answer 403 PREMIUM_REQUIRED.")
        var noPremium = false

        @Option(help: "The Connect device that is active from the start, by name (any case): timbre demo speaker, Kitchen radio or Office computer.")
        var activeDevice: String?

        @Option(help: "Require a client certificate (mTLS) signed by a CA in this PEM file; the handshake fails without one.")
        var clientCa: String?

        func validate() throws {
            guard ["1.1", "1.2", "1.3"].contains(tlsMax) else { throw ValidationError("'--tls-max' must be 1.1, 1.2 or 1.3") }
            guard (1...100).contains(itemsLimitMax) else { throw ValidationError("'--items-limit-max' must be 1...100") }
            guard (0...1_000).contains(spotifyOwned) else { throw ValidationError("'--spotify-owned' must be 0...1000") }
            guard (0...65_535).contains(port) else { throw ValidationError("'--port' must be 0...65535") }
            if let clientCa, !FileManager.default.isReadableFile(atPath: clientCa) {
                throw ValidationError("'--client-ca' \(clientCa) is not a readable PEM file")
            }
            guard accessTokenTtl > 0 else { throw ValidationError("'--access-token-ttl' must be positive") }
            if let dailyQuota, dailyQuota < 0 { throw ValidationError("'--daily-quota' must be 0 or more") }
            guard quotaDaySeconds > 0 else { throw ValidationError("'--quota-day-seconds' must be positive") }
            if let accessTokenRequests, accessTokenRequests < 1 { throw ValidationError("'--access-token-requests' must be positive") }
            if let activeDevice, !PlayerDevice.defaultNames.contains(where: { $0.lowercased() == activeDevice.lowercased() }) {
                throw ValidationError("'--active-device' must be one of: \(PlayerDevice.defaultNames.joined(separator: ", "))")
            }
        }

        func run() async throws {
            let directory = URL(fileURLWithPath: stateDir).standardizedFileURL.path
            let certificates = try SandboxCertificates.loadOrCreate(in: directory)
            // A new secret every start; the folder becomes 0700 and the file 0600.
            let secret = ControlSecret.make()
            let secretFile = try ControlSecret.write(secret, in: directory)

            var settings = SandboxConfiguration()
            settings.library = library
            settings.seed = seed
            settings.clientID = clientId
            settings.accessTokenTTL = accessTokenTtl
            settings.accessTokenRequests = accessTokenRequests
            settings.displayName = displayName
            settings.userID = userId
            settings.account = account
            settings.refreshRotation = refreshRotation
            settings.developmentMode = !noDevMode
            settings.legacy = legacy
            settings.itemsLimitMax = itemsLimitMax
            settings.spotifyOwned = spotifyOwned
            settings.refuseUnknownIDs = !acceptUnknownIds
            settings.latencyMilliseconds = latencyMs
            settings.controlSecret = secret
            settings.dailyQuota = dailyQuota
            settings.quotaReason = quotaReason
            settings.quotaDaySeconds = quotaDaySeconds
            settings.premium = !noPremium
            settings.activeDevice = activeDevice
            settings.requestLogPath = directory + "/requests.jsonl"
            settings.log = { line in StandardError.write("timbre-sandbox: " + line) }
            let service = SandboxService(configuration: settings)

            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(certificates.chainFile).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: certificates.leafKeyFile, format: .pem))
            )
            switch tlsMax {
            case "1.1":
                tls.minimumTLSVersion = .tlsv1
                tls.maximumTLSVersion = .tlsv11
            case "1.2":
                tls.minimumTLSVersion = .tlsv12
                tls.maximumTLSVersion = .tlsv12
            default:
                tls.minimumTLSVersion = .tlsv12
            }

            if let clientCa {
                // Server side: a peer certificate is required and must chain to these roots; there is
                // no host name to check a client against.
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(clientCa))
                tls.certificateVerification = .noHostnameVerification
            }

            var logger = Logger(label: "timbre-sandbox") { StreamLogHandler.standardError(label: $0) }
            logger.logLevel = .warning
            let host = self.host
            let stateInfo = (directory: directory, certificates: certificates, clientID: clientId, secretFile: secretFile)
            let app = Application(
                responder: SandboxResponder(service: service),
                server: try .tls(.http1(), tlsConfiguration: tls),
                configuration: .init(address: .hostname(host, port: port), serverName: nil),
                onServerRunning: { channel in
                    let boundPort = channel.localAddress?.port ?? 0
                    let urlHost = host.contains(":") ? "[\(host)]" : host
                    let baseURL = "https://\(urlHost):\(boundPort)"
                    service.setBaseURL(baseURL)
                    Serve.announce(baseURL: baseURL, port: boundPort, state: stateInfo, userID: service.userID)
                },
                logger: logger
            )
            try await app.runService()
        }

        static func announce(
            baseURL: String, port: Int,
            state: (directory: String, certificates: SandboxCertificates, clientID: String, secretFile: String), userID: String
        ) {
            let pins = state.certificates.pins
            let info: JSONValue = .object([
                ("pid", .int(Int(ProcessInfo.processInfo.processIdentifier))),
                ("port", .int(port)),
                ("base_url", .string(baseURL)),
                ("accounts_url", .string(baseURL)),
                ("api_url", .string(baseURL + "/v1")),
                ("ca_file", .string(state.certificates.caFile)),
                (
                    "pins",
                    .object([
                        ("leaf", .string(pins.leaf)), ("intermediate", .string(pins.intermediate)), ("root", .string(pins.root)),
                    ])
                ),
                ("client_id", .string(state.clientID)),
                ("user_id", .string(userID)),
                ("request_log", .string(state.directory + "/requests.jsonl")),
                // Where the owner's secret is (never the secret itself).
                ("secret_file", .string(state.secretFile)),
            ])
            var line = info.serialized()
            _ = FileManager.default.createFile(atPath: state.directory + "/sandbox.json", contents: Data(line))
            line.append(0x0A)
            FileHandle.standardOutput.write(Data(line))
            StandardError.write("timbre-sandbox: listening on \(baseURL)")
        }
    }
}

enum StandardError {
    static func write(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
