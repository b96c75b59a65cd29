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

    public static func redact(_ text: String) -> String {
        var result = text
        for (regex, template) in patterns {
            let range = NSRange(result.startIndex..., in: result)
            result = regex.stringByReplacingMatches(in: result, range: range, withTemplate: template)
        }
        return result
    }
}
