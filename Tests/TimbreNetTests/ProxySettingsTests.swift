import Testing
import TimbreCore

@testable import TimbreNet

/// Which proxy an environment names: libcurl's rules for https:// URLs.
@Suite struct ProxySettingsTests {
    @Test func noVariableMeansNoProxy() {
        #expect(ProxySettings(environment: [:]) == nil)
        #expect(ProxySettings(environment: ["http_proxy": "http://p:1", "HTTP_PROXY": "http://p:1", "NO_PROXY": "x"]) == nil, "http_proxy is for http:// only")
        #expect(ProxySettings(environment: ["https_proxy": "  "]) == nil)
    }

    @Test func lowerCaseFirstThenUpperThenAllProxy() {
        let all = ["https_proxy": "http://a:1", "HTTPS_PROXY": "http://b:2", "all_proxy": "http://c:3", "ALL_PROXY": "http://d:4"]
        #expect(ProxySettings(environment: all) == ProxySettings(url: "http://a:1", variable: "https_proxy"))
        var rest = all
        rest["https_proxy"] = nil
        #expect(ProxySettings(environment: rest)?.variable == "HTTPS_PROXY")
        rest["HTTPS_PROXY"] = ""
        #expect(ProxySettings(environment: rest)?.url == "http://c:3")
        rest["all_proxy"] = nil
        #expect(ProxySettings(environment: rest)?.variable == "ALL_PROXY")
    }

    @Test func noProxyLowerCaseFirst() {
        let proxy = ProxySettings(environment: ["https_proxy": "http://a:1", "no_proxy": "localhost", "NO_PROXY": "127.0.0.1"])
        #expect(proxy?.noProxy == "localhost")
        #expect(proxy?.noProxyVariable == "no_proxy")
        #expect(ProxySettings(environment: ["https_proxy": "http://a:1", "NO_PROXY": "*"])?.noProxy == "*")
    }

    @Test(arguments: [
        ("http://proxy:3128", "http://proxy:3128"),
        ("http://me:secret@proxy:3128", "http://***@proxy:3128"),
        // A token given as the user name alone is a credential too (issue #31, item 6).
        ("socks5h://TOKEN@proxy:1080", "socks5h://***@proxy:1080"),
        ("http://me:p@ss@proxy:3128/", "http://***@proxy:3128/"),
        ("me:p@ss@proxy:3128", "***@proxy:3128"),
        ("TOKEN@proxy:3128", "***@proxy:3128"),
    ])
    func credentialsAreHidden(_ url: String, _ shown: String) {
        #expect(ProxySettings(url: url, variable: "https_proxy").redacted == shown)
    }

    @Test func libcurlsErrorTextLosesTheCredentialsHoweverItQuotesThem() {
        let proxy = ProxySettings(url: "http://TOKENSECRET:PASSWORD99@pro xy:3128", variable: "https_proxy")
        let masked = proxy.masking("Unsupported proxy syntax in 'http://TOKENSECRET:PASSWORD99@pro xy:3128' (user TOKENSECRET:PASSWORD99)")
        #expect(masked == "Unsupported proxy syntax in 'http://***@pro xy:3128' (user ***)")
        let schemeless = ProxySettings(url: "TOKENSECRET@proxy:99999", variable: "https_proxy")
        #expect(schemeless.masking("Unsupported proxy syntax in 'TOKENSECRET@proxy:99999'") == "Unsupported proxy syntax in '***@proxy:99999'")
    }

    /// A password written with a bare `/`, `?` or `#` (not percent-encoded) is masked everywhere
    /// the proxy is shown, and the proxy is refused before libcurl reads part of it as a host name.
    @Test(arguments: ["pa/ss9wd", "pa?ss9wd", "pa#ss9wd", "a/b", "x?y#z/w"])
    func aPasswordWithSlashQueryOrHashIsMaskedEverywhere(_ password: String) throws {
        for (url, shown) in [
            ("http://user:\(password)@proxy.example:3128", "http://***@proxy.example:3128"),
            ("socks5h://user:\(password)@proxy.example:1080/", "socks5h://***@proxy.example:1080/"),
            ("user:\(password)@proxy.example:3128", "***@proxy.example:3128"),
            ("http://\(password)@proxy.example:3128", "http://***@proxy.example:3128"),
        ] {
            let proxy = ProxySettings(url: url, variable: "https_proxy")
            #expect(proxy.redacted == shown)
            let refusal = try #require(proxy.refusal, "\(url)")
            #expect(refusal.contains("percent-encoded (%2F, %3F, %23)"))
            #expect(refusal.contains(shown))
            #expect(!refusal.contains(password))
            #expect(!proxy.summary.contains(password))
            // What libcurl says about it, quoting the URL whole or the part it took for a host.
            let parts = password.split(whereSeparator: { "/?#".contains($0) }).map(String.init)
            let curlText = "Unsupported proxy syntax in '\(url)'; Could not resolve proxy: \(parts[0]); host \(parts.last ?? "")"
            let masked = proxy.masking(curlText)
            #expect(!masked.contains(password), "\(masked)")
            for part in parts where part.count >= 3 { #expect(!masked.contains(part), "\(masked)") }
            #expect(masked.contains(shown), "\(masked)")
            // The log's last line of defence, for any text that quotes such a URL.
            if url.contains("://user:") { #expect(!Redactor.redact("failed: \(url) (x)").contains(password)) }
        }
    }

    @Test func aPercentEncodedPasswordIsAccepted() {
        let proxy = ProxySettings(url: "http://user:pa%2Fss%3F%23@proxy.example:3128", variable: "https_proxy")
        #expect(proxy.refusal == nil)
        #expect(proxy.redacted == "http://***@proxy.example:3128")
        #expect(!proxy.masking("in 'http://user:pa%2Fss%3F%23@proxy.example:3128' (pa/ss?#)").contains("pa%2Fss"))
    }

    @Test func anHTTPSProxyIsRefusedWithWhatToUseInstead() {
        #expect(ProxySettings(url: "http://p:3128", variable: "https_proxy").refusal == nil)
        let refusal = ProxySettings(url: "HTTPS://u:pw@p:3128", variable: "HTTPS_PROXY").refusal ?? ""
        #expect(refusal.hasPrefix("HTTPS_PROXY names an https:// proxy (HTTPS://***@p:3128), which timbre does not support: use its http:// address"))
    }
}
