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
        if isTLSToProxy {
            return
                "\(variable) names an https:// proxy (\(TerminalText.preview(redacted))), which timbre does not support: use its http:// address — the connection to the server is still TLS end to end through the proxy's tunnel, with the pins checked on the server's certificate"
        }
        if let credentials, credentials.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            // libcurl would end the address there and take part of the password for the proxy's
            // host name (looking it up in DNS): refused before anything is sent.
            return
                "\(variable) names a proxy whose user name or password holds a bare `/`, `?` or `#` (\(TerminalText.preview(redacted))): write them percent-encoded (%2F, %3F, %23) in \(variable)"
        }
        return nil
    }

    /// The proxy without its credentials, for doctor and messages (`http://***@host:port`): the
    /// whole userinfo goes, the user name too — `http://TOKEN@proxy` carries its secret there —
    /// up to the address's last `@`, even past a bare `/`, `?` or `#` in a password.
    public var redacted: String {
        guard let at = url.lastIndex(of: "@") else { return url }
        let scheme = url.range(of: "://").flatMap { $0.upperBound <= at ? url[..<$0.upperBound] : nil } ?? ""
        return scheme + "***" + url[at...]
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
            // A parser that stopped at a bare `/`, `?` or `#` quotes a piece of it ("Could not
            // resolve proxy: PART"): every piece of 3 or more characters goes where it stands alone.
            let separators: Set<Character> = ["/", "?", "#", ":", "@"]
            let pieces = userinfo.split(whereSeparator: { separators.contains($0) }).map(String.init).filter { $0.count >= 3 }
            for piece in Set(pieces).sorted(by: { $0.count > $1.count }) {
                text = Self.replacingWhole(piece, in: text)
            }
        }
        return Redactor.maskUserinfo(text)
    }

    /// The userinfo as given (everything before the address's last `@`, a bare `/`, `?` or `#`
    /// in a password included: a proxy's address has no path), if any.
    var credentials: String? {
        let rest = url.range(of: "://").map { url[$0.upperBound...] } ?? url[...]
        guard let at = rest.lastIndex(of: "@") else { return nil }
        return String(rest[..<at])
    }

    /// `text` with each occurrence of `piece` that no letter, digit or `.-_~%+` touches on
    /// either side replaced by `***`.
    static func replacingWhole(_ piece: String, in text: String) -> String {
        func isWordCharacter(_ c: Character) -> Bool { c.isLetter || c.isNumber || ".-_~%+".contains(c) }
        var result = ""
        var rest = text[...]
        while let found = rest.range(of: piece) {
            let before = found.lowerBound > rest.startIndex ? rest[rest.index(before: found.lowerBound)] : (result.last ?? " ")
            let after = found.upperBound < rest.endIndex ? rest[found.upperBound] : " "
            result += rest[..<found.lowerBound]
            result += isWordCharacter(before) || isWordCharacter(after) ? String(rest[found]) : "***"
            rest = rest[found.upperBound...]
        }
        return result + rest
    }

    /// One line for doctor: what is used, from where, and what bypasses it.
    public var summary: String {
        let bypass = noProxy.isEmpty ? "no NO_PROXY" : "\(noProxyVariable ?? "NO_PROXY")=\(noProxy) connect directly"
        return "\(TerminalText.preview(redacted)) (from \(variable)); \(TerminalText.preview(bypass))"
    }
}
