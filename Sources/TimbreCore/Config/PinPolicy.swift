import Foundation

/// An SPKI SHA-256 pin, written `sha256/BASE64` (the HPKP / curl `--pinnedpubkey` form).
public struct SPKIPin: Sendable, Hashable, CustomStringConvertible {
    public let digest: [UInt8]

    public init(digest: [UInt8]) { self.digest = digest }

    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("sha256/") else { return nil }
        let encoded = String(trimmed.dropFirst("sha256/".count))
        guard let data = Data(base64Encoded: encoded), data.count == 32 else { return nil }
        digest = Array(data)
    }

    public var base64: String { Data(digest).base64EncodedString() }
    public var description: String { "sha256/" + base64 }
}

/// Which certificates of the verified chain a pin may match.
public enum PinScope: String, Sendable, CaseIterable, Codable {
    case leaf, intermediate, root, any
}

/// strict refuses a mismatch; permissive logs it and lets the connection proceed.
public enum PinMode: String, Sendable, CaseIterable, Codable {
    case strict, permissive
}

/// An exact host name or IP address, or `*.example.com`, which matches exactly one extra label
/// (`a.example.com`, but neither `example.com` nor `a.b.example.com`).
public struct HostPattern: Sendable, Hashable, CustomStringConvertible {
    public let text: String
    public let isWildcard: Bool
    private let suffix: String

    public init?(_ raw: String) {
        let normalized = HostPattern.normalize(raw)
        guard !normalized.isEmpty, !normalized.contains(where: { $0.isWhitespace || $0 == "/" }) else { return nil }
        if normalized.hasPrefix("*.") {
            let rest = String(normalized.dropFirst(2))
            // At least two labels after the wildcard: "*.com" would pin a whole TLD.
            let labels = rest.split(separator: ".", omittingEmptySubsequences: false)
            guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty && !$0.contains("*") }) else { return nil }
            isWildcard = true
            suffix = "." + rest
        } else {
            guard !normalized.contains("*") else { return nil }
            isWildcard = false
            suffix = normalized
        }
        text = normalized
    }

    public func matches(_ host: String) -> Bool {
        let host = HostPattern.normalize(host)
        guard isWildcard else { return host == suffix }
        guard host.hasSuffix(suffix) else { return false }
        let label = host.dropLast(suffix.count)
        return !label.isEmpty && !label.contains(".")
    }

    public var description: String { text }

    /// Lower-case, no trailing dot, no IPv6 brackets.
    public static func normalize(_ host: String) -> String {
        // Every request's host comes through here: one already in normal form is returned as it is.
        if let last = host.utf8.last, last != UInt8(ascii: "."),
            host.utf8.allSatisfy({
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ":")
            })
        {
            return host
        }
        var h = host.trimmingCharacters(in: .whitespaces).lowercased()
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h.hasSuffix(".") { h = String(h.dropLast()) }
        return h
    }
}

/// The pin policy for one host pattern: `[[tls.pin]]` in config.toml.
public struct PinRule: Sendable, Hashable {
    public var host: HostPattern
    /// First = primary, the rest backups. Never empty.
    public var pins: [SPKIPin]
    public var scope: PinScope
    public var mode: PinMode

    public init(host: HostPattern, pins: [SPKIPin], scope: PinScope = .any, mode: PinMode = .strict) {
        self.host = host
        self.pins = pins
        self.scope = scope
        self.mode = mode
    }
}

/// Where the rule in force for a host comes from (`timbre pins status`: `"from"`).
public enum PinOrigin: String, Sendable, Equatable {
    case config, remote, `default`
}

/// All pin rules in force, in precedence order: config.toml's own, then the applied signed remote
/// set (`timbre pins update`), then the shipped defaults. A host with no rule has no policy and
/// must be refused.
public struct PinPolicySet: Sendable, Equatable {
    public var configured: [PinRule]
    /// The applied remote pin set (empty when none is applied or it could not be verified).
    public var remote: [PinRule]
    public var defaults: [PinRule]

    public init(configured: [PinRule], remote: [PinRule] = [], defaults: [PinRule] = []) {
        self.configured = configured
        self.remote = remote
        self.defaults = defaults
    }

    public func rule(for host: String) -> PinRule? {
        resolve(host)?.rule
    }

    /// The rule in force for `host` and the layer it comes from.
    public func resolve(_ host: String) -> (rule: PinRule, origin: PinOrigin)? {
        if let rule = Self.bestMatch(in: configured, host: host) { return (rule, .config) }
        if let rule = Self.bestMatch(in: remote, host: host) { return (rule, .remote) }
        if let rule = Self.bestMatch(in: defaults, host: host) { return (rule, .default) }
        return nil
    }

    /// Every rule in force, one per host pattern, with its origin: a pattern the config pins hides
    /// the remote and default rules for the same pattern, as `rule(for:)` does.
    public var effectiveRules: [(rule: PinRule, origin: PinOrigin)] {
        var seen = Set<String>()
        var result: [(rule: PinRule, origin: PinOrigin)] = []
        for (rules, origin) in [(configured, PinOrigin.config), (remote, .remote), (defaults, .default)] {
            for rule in rules where seen.insert(rule.host.text).inserted {
                result.append((rule, origin))
            }
        }
        return result
    }

    /// An exact pattern beats a wildcard; otherwise the first in file order.
    private static func bestMatch(in rules: [PinRule], host: String) -> PinRule? {
        rules.first { !$0.host.isWildcard && $0.host.matches(host) } ?? rules.first { $0.host.matches(host) }
    }
}
