import Testing

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

    @Test func anHTTPSProxyIsRefusedWithWhatToUseInstead() {
        #expect(ProxySettings(url: "http://p:3128", variable: "https_proxy").refusal == nil)
        let refusal = ProxySettings(url: "HTTPS://u:pw@p:3128", variable: "HTTPS_PROXY").refusal ?? ""
        #expect(refusal.hasPrefix("HTTPS_PROXY names an https:// proxy (HTTPS://***@p:3128), which timbre does not support: use its http:// address"))
    }
}
