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
        ("http://me:secret@proxy:3128", "http://me:***@proxy:3128"),
        ("socks5h://me@proxy:1080", "socks5h://me@proxy:1080"),
        ("me:p@ss@proxy:3128", "me:***@proxy:3128"),
    ])
    func credentialsAreHidden(_ url: String, _ shown: String) {
        #expect(ProxySettings(url: url, variable: "https_proxy").redacted == shown)
    }

    @Test func anHTTPSProxyIsRefusedWithWhatToUseInstead() {
        #expect(ProxySettings(url: "http://p:3128", variable: "https_proxy").refusal == nil)
        let refusal = ProxySettings(url: "HTTPS://u:pw@p:3128", variable: "HTTPS_PROXY").refusal ?? ""
        #expect(refusal.hasPrefix("HTTPS_PROXY names an https:// proxy (HTTPS://u:***@p:3128), which timbre does not support: use its http:// address"))
    }
}
