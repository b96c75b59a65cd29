#if canImport(Glibc)
import Glibc

/// glibc's `mallopt`, which Swift's Glibc module does not import (`<malloc.h>`).
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif

/// How much freed memory glibc's allocator keeps before handing it back to the kernel.
public enum HeapTrim {
    /// `M_TRIM_THRESHOLD` in `<malloc.h>`.
    static let trimThreshold: Int32 = -1

    /// A sync frees its response bodies on another thread than the one that allocated them, and
    /// glibc's default (128 KB) handed the freed top of that arena back (`madvise`) after nearly
    /// every burst, to take it again with page faults a moment later: 10–15 thousand minor faults
    /// per full sync, ~9 % of the curl thread. Keeping up to `bytes` per arena halves the faults
    /// for about the same peak memory. Returns false when the allocator refused the setting (or is
    /// not glibc's).
    @discardableResult
    public static func keep(upTo bytes: Int32) -> Bool {
        keep(upTo: bytes, using: allocatorOption)
    }

    /// `setOption`: `mallopt`'s shape (parameter, value) → 1 when taken; a seam for tests.
    static func keep(upTo bytes: Int32, using setOption: (Int32, Int32) -> Int32) -> Bool {
        setOption(trimThreshold, bytes) == 1
    }

    /// glibc's `mallopt`, or a refusal (0) where the allocator is not glibc's.
    static func allocatorOption(_ parameter: Int32, _ value: Int32) -> Int32 {
        #if canImport(Glibc)
        return glibcMallopt(parameter, value)
        #else
        return 0
        #endif
    }
}
