import Foundation
import TimbreCore

/// Reads the callback target (`/callback?code=…&state=…`, or the full redirect URL pasted over
/// SSH) and returns the authorization code when the state matches.
public enum CallbackParser {
    public enum Outcome: Equatable {
        case code(String)
        /// Not a callback at all (favicon, a stray request): ignore it.
        case unrelated
    }

    public static func parse(_ target: String, expectedState: String) throws(LoginError) -> Outcome {
        guard let components = URLComponentsLite(target), components.path == "/callback" else { return .unrelated }
        let query = components.query
        guard let state = query["state"], constantTimeEqual(state, expectedState) else { throw .stateMismatch }
        if let error = query["error"] {
            throw error == "access_denied" ? .accessDenied : .authorizationFailed(error)
        }
        guard let code = query["code"], !code.isEmpty else { throw .authorizationFailed("the callback carried no code") }
        return .code(code)
    }

    private static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Path and decoded query of a request target or URL, without Foundation's URL leniency.
struct URLComponentsLite {
    let path: String
    let query: [String: String]

    init?(_ text: String) {
        var rest = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        if let scheme = rest.range(of: "://") {
            rest = rest[scheme.upperBound...]
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            rest = rest[slash...]
        }
        guard rest.hasPrefix("/") else { return nil }
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = String(parts[0])
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let key = Self.decode(kv[0])
                let value = kv.count == 2 ? Self.decode(kv[1]) : ""
                if query[key] == nil { query[key] = value }
            }
        }
        self.query = query
    }

    private static func decode(_ text: Substring) -> String {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
    }
}
