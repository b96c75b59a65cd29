#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Secret bytes that are zeroed when released, with a zeroing call the optimiser may not drop
/// (`explicit_bzero` / `memset_s`). Immutable once made, so it can be shared across tasks.
///
/// Swift `String`s cannot be wiped, so prefer `withUnsafeBytes`/`withCString` where a C API takes
/// the bytes, and keep strings made by `withString` short-lived.
public final class SecretBytes: @unchecked Sendable {
    // `count + 1` bytes: the secret and a trailing NUL, so C APIs can read it without a copy.
    private let base: UnsafeMutablePointer<UInt8>
    public let count: Int
    private let releaseObserver: (@Sendable (UnsafeBufferPointer<UInt8>) -> Void)?

    public convenience init(_ string: String) {
        self.init(bytes: Array(string.utf8))
    }

    public convenience init(bytes: [UInt8]) {
        self.init(bytes: bytes, releaseObserver: nil)
    }

    /// Test hook: `releaseObserver` sees the buffer (secret and NUL) after it was zeroed, just
    /// before it is freed.
    init(bytes: [UInt8], releaseObserver: (@Sendable (UnsafeBufferPointer<UInt8>) -> Void)?) {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count + 1)
        buffer.initialize(repeating: 0, count: bytes.count + 1)
        bytes.withUnsafeBufferPointer { source in
            if let from = source.baseAddress { buffer.update(from: from, count: source.count) }
        }
        count = bytes.count
        base = buffer
        self.releaseObserver = releaseObserver
    }

    /// Copies from a C buffer (e.g. a libsecret value) without an intermediate Swift array.
    init(copying source: UnsafeRawBufferPointer) {
        count = source.count
        base = .allocate(capacity: source.count + 1)
        base.initialize(repeating: 0, count: source.count + 1)
        if let from = source.baseAddress, source.count > 0 {
            UnsafeMutableRawPointer(base).copyMemory(from: from, byteCount: source.count)
        }
        releaseObserver = nil
    }

    deinit {
        Self.wipe(base, count: count + 1)
        releaseObserver?(UnsafeBufferPointer(start: base, count: count + 1))
        base.deallocate()
    }

    public var isEmpty: Bool { count == 0 }

    public func withString<R>(_ body: (String) throws -> R) rethrows -> R {
        try body(String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self))
    }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes followed by a NUL (a secret containing NUL bytes ends early for C string APIs).
    public func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try UnsafeMutableRawPointer(base).withMemoryRebound(to: CChar.self, capacity: count + 1) {
            try body(UnsafePointer($0))
        }
    }

    static func wipe(_ pointer: UnsafeMutablePointer<UInt8>, count: Int) {
        #if canImport(Glibc)
        explicit_bzero(pointer, count)
        #else
        _ = memset_s(pointer, count, 0, count)
        #endif
    }
}
