import CJQ
import Foundation

/// A jq expression compiled once by libjq and run over JSON documents in process — `--jq EXPR`,
/// as gh has it: each result on its own line, a string printed raw (no quotes, no escapes),
/// anything else as compact JSON.
///
/// Owns its `jq_state` and every `jv` it touches; no C pointer leaves this file. libjq's state is
/// not safe to share between threads, so every run holds the lock.
public final class JQFilter: @unchecked Sendable {
    /// What jq said about an expression it could not compile, or a run that failed (`.a` of an
    /// array, `error("…")`), in jq's own words.
    public struct Failure: Error, Equatable, Sendable {
        public let message: String

        public init(message: String) { self.message = message }
    }

    public let expression: String
    private let lock = NSLock()
    private var state: OpaquePointer?
    /// Where libjq's error callback puts what it reports (a `jv` array of strings).
    private let reported: UnsafeMutablePointer<jv>

    /// Compiles `expression`; jq's own message when it cannot.
    public convenience init(_ expression: String) throws(Failure) {
        guard let state = jq_init() else { throw Failure(message: "jq could not start (out of memory)") }
        let reported = UnsafeMutablePointer<jv>.allocate(capacity: 1)
        reported.initialize(to: jv_array())
        // Built now, so `deinit` frees the state and the list whatever happens next.
        self.init(expression: expression, state: state, reported: reported)
        jq_set_error_cb(
            state,
            { context, message in
                guard let context else { return jv_free(message) }
                let errors = context.assumingMemoryBound(to: jv.self)
                errors.pointee = jv_array_append(errors.pointee, message)
            }, UnsafeMutableRawPointer(reported))
        let compiled = jq_compile(state, expression) != 0
        let message = Self.takeReported(reported)
        guard compiled else { throw Failure(message: message.isEmpty ? "jq could not compile '\(expression)'" : message) }
    }

    private init(expression: String, state: OpaquePointer, reported: UnsafeMutablePointer<jv>) {
        self.expression = expression
        self.state = state
        self.reported = reported
    }

    deinit {
        if state != nil { jq_teardown(&state) }
        jv_free(reported.pointee)
        reported.deallocate()
    }

    /// The results of the expression over one JSON document, each as it is printed: a string raw,
    /// every other value as compact JSON. Several results for an expression that yields several
    /// (`.[].name`), none for one that yields nothing (`empty`, `select(false)`).
    public func run(json: String) throws(Failure) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        var lines: [String] = []
        let input = json.withCString { jv_parse($0) }
        guard jv_is_valid(input) != 0 else {
            throw Failure(message: "the input is not JSON: " + Self.consumeMessage(of: input))
        }
        jq_start(state, input, 0)
        while true {
            let result = jq_next(state)
            if jv_is_valid(result) == 0 {
                if jv_invalid_has_msg(jv_copy(result)) == 0 {
                    jv_free(result)
                    break
                }
                throw Failure(message: Self.consumeMessage(of: result))
            }
            lines.append(Self.printed(result))
            if jq_halted(state) != 0 { break }
        }
        return lines
    }

    /// `value` as `--jq` prints it (consumes it).
    private static func printed(_ value: jv) -> String {
        if jv_get_kind(value) == JV_KIND_STRING { return takeString(value) }
        return takeString(jv_dump_string(value, 0))
    }

    /// The text of a jq string (consumes it): its bytes as they are, a NUL inside included.
    private static func takeString(_ value: jv) -> String {
        defer { jv_free(value) }
        let count = Int(jv_string_length_bytes(jv_copy(value)))
        guard let bytes = jv_string_value(value) else { return "" }
        return bytes.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    /// The message an invalid value carries (consumes it).
    private static func consumeMessage(of invalid: jv) -> String {
        let message = jv_invalid_get_msg(invalid)
        if jv_get_kind(message) == JV_KIND_STRING { return takeString(message) }
        return takeString(jv_dump_string(message, 0))
    }

    /// What the error callback collected since the last call, one message a line; the list emptied.
    private static func takeReported(_ reported: UnsafeMutablePointer<jv>) -> String {
        let messages = reported.pointee
        reported.pointee = jv_array()
        var lines: [String] = []
        let count = jv_array_length(jv_copy(messages))
        for index in 0..<count {
            let message = jv_array_get(jv_copy(messages), index)
            lines.append(jv_get_kind(message) == JV_KIND_STRING ? takeString(message) : takeString(jv_dump_string(message, 0)))
        }
        jv_free(messages)
        // jq pads the line it quotes (for a caret it does not print): trailing spaces dropped.
        let text = lines.joined(separator: "\n").split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0.reversed().drop { $0 == " " }.reversed())
        }
        return text.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
