import Foundation
import TimbreCore

/// Blanks every secret in an exchange before it is written to a recording: the `Authorization`,
/// cookie and proxy credentials headers whole, and the values of `Redactor.secretFields` wherever
/// they appear — URL queries, `Location` headers, form bodies, JSON bodies (a token response's
/// `access_token` and `refresh_token`). Every value blanked is remembered, and the finished text
/// is searched once more for each, so a secret echoed somewhere unexpected (an error body quoting
/// a token) is blanked too.
struct ExchangeRedaction {
    static let placeholder = "REDACTED"
    /// Headers whose whole value is a credential.
    static let secretHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie", "x-sandbox-secret"]

    private(set) var removed: Set<String> = []

    private static let fieldPattern = try? NSRegularExpression(
        pattern: #"(?i)(?<![A-Za-z0-9_])("# + Redactor.secretFields.joined(separator: "|") + #")=([^&\s"'#]*)"#)
    private static let jsonPattern = try? NSRegularExpression(
        pattern: #"(?i)"("# + Redactor.secretFields.joined(separator: "|") + #")"(\s*:\s*)"((?:[^"\\]|\\.)*)""#)

    /// `name=value` pairs of secret fields in a URL, a header value or a form body.
    mutating func fields(_ text: String) -> String {
        replace(Self.fieldPattern, in: text, valueGroup: 2) { match, value in "\(match[1])=\(value)" }
    }

    /// `"name": "value"` members of secret fields in JSON text.
    mutating func json(_ text: String) -> String {
        replace(Self.jsonPattern, in: text, valueGroup: 3) { match, value in "\"\(match[1])\"\(match[2])\"\(value)\"" }
    }

    mutating func header(name: String, value: String) -> String {
        if Self.secretHeaders.contains(name.lowercased()) {
            // The credential is what follows the scheme ("Bearer abc"): remember both forms.
            remember(value)
            if let space = value.firstIndex(of: " ") { remember(String(value[value.index(after: space)...])) }
            return Self.placeholder
        }
        return fields(value)
    }

    /// A request or response body: form fields or JSON members, by what it looks like.
    mutating func body(_ text: String, form: Bool) -> String {
        form ? fields(text) : json(text)
    }

    /// The last pass over the finished file: any remembered secret still in it is blanked.
    func scrub(_ text: String) -> String {
        var text = text
        for secret in removed.sorted(by: { $0.count > $1.count }) where text.contains(secret) {
            text = text.replacingOccurrences(of: secret, with: Self.placeholder)
        }
        return text
    }

    private mutating func remember(_ value: String) {
        // Short values ("", "x") would blank unrelated text; no real credential is that short.
        if value.count >= 8, value != Self.placeholder { removed.insert(value) }
    }

    private mutating func replace(
        _ pattern: NSRegularExpression?, in text: String, valueGroup: Int,
        rebuild: ([String], String) -> String
    ) -> String {
        guard let pattern else { return text }
        let whole = text as NSString
        var result = ""
        var last = 0
        for match in pattern.matches(in: text, range: NSRange(location: 0, length: whole.length)) {
            let groups = (0..<match.numberOfRanges).map { index -> String in
                let range = match.range(at: index)
                return range.location == NSNotFound ? "" : whole.substring(with: range)
            }
            remember(groups[valueGroup])
            if let decoded = groups[valueGroup].removingPercentEncoding { remember(decoded) }
            result += whole.substring(with: NSRange(location: last, length: match.range.location - last))
            result += rebuild(groups, groups[valueGroup].isEmpty ? "" : Self.placeholder)
            last = match.range.location + match.range.length
        }
        guard last > 0 else { return text }
        return result + whole.substring(from: last)
    }
}
