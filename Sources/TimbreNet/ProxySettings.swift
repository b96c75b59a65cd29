import Foundation
import TimbreCore

/// The proxy a run uses, read from the run's environment (`Invocation.environment`), never from the
/// process's own: the transport hands it to libcurl explicitly (CURLOPT_PROXY, CURLOPT_NOPROXY) and
/// turns libcurl's own environment lookup off, so a command run in-process and the real binary
/// behave the same.
///
/// The rules are libcurl's for https:// URLs: `https_proxy`, else `HTTPS_PROXY`, else `all_proxy`,
/// else `ALL_PROXY` (the first that is set and not empty); `no_proxy`, else `NO_PROXY`, lists hosts
/// that connect directly (comma-separated names, domain suffixes, IP addresses or CIDR ranges;
/// `*` = every host). Loopback is not special: an explicitly set proxy is used for 127.0.0.1 too
/// unless NO_PROXY names it. Pins are checked on the origin's certificate, through the tunnel.
public struct ProxySettings: Sendable, Equatable {
    /// The variables that name a proxy for https://, in the order they are looked at.
    public static let proxyVariables = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
    public static let noProxyVariables = ["no_proxy", "NO_PROXY"]

    /// As given: `http://host:port`, `socks5h://host:port`, `host:port` (= http://), with any credentials.
    public var url: String
    /// Which variable `url` came from.
    public var variable: String
    /// The bypass list, empty when none.
    public var noProxy: String
    public var noProxyVariable: String?

    public init(url: String, variable: String, noProxy: String = "", noProxyVariable: String? = nil) {
        self.url = url
        self.variable = variable
        self.noProxy = noProxy
        self.noProxyVariable = noProxyVariable
    }

    /// nil when no proxy variable is set (connections go direct).
    public init?(environment: [String: String]) {
        func first(_ names: [String]) -> (name: String, value: String)? {
            for name in names {
                if let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { return (name, value) }
            }
            return nil
        }
        guard let proxy = first(Self.proxyVariables) else { return nil }
        let bypass = first(Self.noProxyVariables)
        self.init(url: proxy.value, variable: proxy.name, noProxy: bypass?.value ?? "", noProxyVariable: bypass?.name)
    }

    /// `https://` proxies (TLS to the proxy itself) are refused: timbre's handshake checks, pins
    /// included, would apply to the proxy's certificate. An http:// CONNECT tunnel still carries
    /// end-to-end TLS to the origin.
    public var isTLSToProxy: Bool { url.lowercased().hasPrefix("https://") }

    /// Why this proxy cannot be used, or nil.
    public var refusal: String? {
        guard isTLSToProxy else { return nil }
        return
            "\(variable) names an https:// proxy (\(TerminalText.preview(redacted))), which timbre does not support: use its http:// address — the connection to the server is still TLS end to end through the proxy's tunnel, with the pins checked on the server's certificate"
    }

    /// The proxy without its credentials, for doctor and messages (`http://***@host:port`): the
    /// whole userinfo goes, the user name too — `http://TOKEN@proxy` carries its secret there.
    public var redacted: String {
        if url.range(of: "://") != nil { return Redactor.maskUserinfo(url) }
        // `user:password@host:port` (http:// implied): everything before the last `@`.
        guard let at = url.lastIndex(of: "@") else { return url }
        return "***" + url[at...]
    }

    /// `text` (libcurl's error message, which may quote the proxy's URL) without the proxy's
    /// credentials, however it quotes them.
    public func masking(_ text: String) -> String {
        var text = text.replacingOccurrences(of: url, with: redacted)
        if let userinfo = credentials {
            // Short ones would blank unrelated words; the URL itself was replaced above.
            for form in Set([userinfo, userinfo.removingPercentEncoding ?? userinfo]) where form.count >= 6 {
                text = text.replacingOccurrences(of: form, with: "***")
            }
        }
        return Redactor.maskUserinfo(text)
    }

    /// The userinfo as given (before the authority's last `@`), if any.
    var credentials: String? {
        let rest = url.range(of: "://").map { url[$0.upperBound...] } ?? url[...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return nil }
        return String(authority[..<at])
    }

    /// One line for doctor: what is used, from where, and what bypasses it.
    public var summary: String {
        let bypass = noProxy.isEmpty ? "no NO_PROXY" : "\(noProxyVariable ?? "NO_PROXY")=\(noProxy) connect directly"
        return "\(TerminalText.preview(redacted)) (from \(variable)); \(TerminalText.preview(bypass))"
    }
}
