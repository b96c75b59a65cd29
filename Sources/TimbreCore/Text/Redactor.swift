import Foundation

/// Removes secrets from text before it reaches a log line, an error message or a terminal.
///
/// Belt and braces: callers never pass tokens on purpose, this catches the accidents (a URL with
/// `code=`, an error body echoing a token, an Authorization header in a debug dump).
public enum Redactor {
    /// Query, form and JSON field names whose values are secrets (the record transport blanks the
    /// same ones in what it writes).
    public static let secretFields = ["access_token", "refresh_token", "code", "code_verifier", "client_secret", "id_token", "token"]

    private static let patterns: [(NSRegularExpression, String)] = {
        let names = secretFields.joined(separator: "|")
        let jsonNames = secretFields.filter { $0 != "token" }.joined(separator: "|")
        let rules: [(String, String)] = [
            // Authorization: Bearer xyz / Basic xyz
            (#"(?i)(authorization\s*[:=]\s*)(bearer|basic)?\s*[^\s,"']+"#, "$1$2 [redacted]"),
            (#"(?i)\bbearer\s+[A-Za-z0-9\-._~+/]+=*"#, "Bearer [redacted]"),
            // key=value in URLs and form bodies
            (#"(?i)\b("# + names + #")=[^&\s"']+"#, "$1=[redacted]"),
            // "key": "value" in JSON
            (#"(?i)"("# + jsonNames + #")"\s*:\s*"[^"]*""#, "\"$1\":\"[redacted]\""),
        ]
        return rules.compactMap { pattern, template in
            (try? NSRegularExpression(pattern: pattern)).map { ($0, template) }
        }
    }()

    /// The userinfo of a URL (`http://user:password@proxy`, `http://TOKEN@proxy`), up to the
    /// authority's last `@`: all of it, the user name included — a proxy credential may be given
    /// as the user name alone. A password written with a bare `/`, `?` or `#` (which ends the
    /// authority for a URL parser) is still a password: `user:` followed by anything up to the
    /// last `@` before a space goes too (a URL with a port and an `@` in its path loses a little
    /// more than needed, never a secret).
    private static let userinfo = try? NSRegularExpression(
        pattern: #"(?i)\b([a-z][a-z0-9+.\-]*://)(?:[^\s/?#'"<>@]*(?:@[^\s/?#'"<>@]*)*@|[^\s/?#'"<>@:]*:[^\s'"<>]*@)"#)

    /// `text` with every URL's userinfo replaced by `***` (and nothing else changed).
    public static func maskUserinfo(_ text: String) -> String {
        guard text.contains("@"), let userinfo else { return text }
        return userinfo.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "$1***@")
    }

    public static func redact(_ text: String) -> String {
        var result = maskUserinfo(text)
        for (regex, template) in patterns {
            let range = NSRange(result.startIndex..., in: result)
            result = regex.stringByReplacingMatches(in: result, range: range, withTemplate: template)
        }
        return result
    }
}
