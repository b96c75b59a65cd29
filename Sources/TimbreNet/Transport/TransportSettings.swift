import TimbreCore

/// How the transport connects: trust anchors, pins, minimum TLS version, limits.
public struct TransportSettings: Sendable {
    public var pins: PinPolicySet
    /// PEM file of trust anchors used instead of the system store.
    public var caFile: String?
    public var minimumTLS: TLSVersion
    public var connectTimeout: Duration
    public var totalTimeout: Duration
    /// A response body larger than this is refused rather than buffered.
    public var maxResponseBytes: Int
    public var userAgent: String
    /// The applied remote pin set's rules (`timbre pins update`), loaded and verified when the
    /// transport first needs a pin rule (offline commands never pay for it); they go between
    /// config.toml's rules and the shipped defaults.
    public var remotePins: (@Sendable () async -> [PinRule])?
    /// `[tls] client_cert`: loaded (and its password looked up) when the transport first connects.
    public var clientCertificate: ClientCertificateSettings?
    /// From the run's environment (`ProxySettings(environment:)`); nil = connect directly, whatever
    /// the process's own environment says.
    public var proxy: ProxySettings?

    public init(
        pins: PinPolicySet, caFile: String? = nil, minimumTLS: TLSVersion = .tls12,
        connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(60),
        maxResponseBytes: Int = 64 << 20, userAgent: String = "timbre/\(TimbreVersion.current)",
        remotePins: (@Sendable () async -> [PinRule])? = nil,
        clientCertificate: ClientCertificateSettings? = nil, proxy: ProxySettings? = nil
    ) {
        self.remotePins = remotePins
        self.clientCertificate = clientCertificate
        self.proxy = proxy
        self.pins = pins
        self.caFile = caFile
        self.minimumTLS = minimumTLS
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maxResponseBytes = maxResponseBytes
        self.userAgent = userAgent
    }

    /// Pins from config.toml, then `remotePins` (the applied remote set), then the shipped Spotify
    /// defaults for hosts neither pins.
    public init(config: Config, remotePins: (@Sendable () async -> [PinRule])? = nil) {
        self.init(
            pins: PinPolicySet(configured: config.tls.pins, defaults: DefaultPins.rules),
            caFile: config.tls.caFile, minimumTLS: config.tls.minVersion, totalTimeout: .seconds(config.requestTimeout),
            remotePins: remotePins)
    }
}

extension Duration {
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
