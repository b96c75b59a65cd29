import Testing
@testable import TimbreLibrary

/// Shipped migrations are history: a cache made by an older timbre has already run them, so
/// editing one changes nothing for those users and splits the schema in two. This test holds the
/// identifier and a fingerprint of every shipped migration's SQL; a schema change is a new
/// migration appended to `CacheSchema.migrations` and a new line here.
@Suite struct MigrationHistoryTests {
    static let shipped: [(identifier: String, fingerprint: UInt64)] = [
        ("v1: playlists, items, sync runs", 0xC517_C728_2E6E_7A49),
        ("v2: items check their kind without a lookup table", 0x0BA9_C8D1_9332_D059),
        ("v3: items keyed by a list number that only grows", 0xFCEF_3BA7_8BD6_DD3A),
        ("v4: items keyed by one integer, list and position computed from it", 0x5AA3_AC86_1827_E753),
        ("v5: items keep their album's id and release date", 0x580D_3610_8E99_D592),
    ]

    /// The edit journal's (user data: never rebuilt, so even more so).
    static let journal: [(identifier: String, fingerprint: UInt64)] = [
        ("journal v1: edits", 0xAA72_8F5F_97AC_B604),
        ("user data v2: local folders", 0x3895_00B9_CD97_CB8C),
    ]

    /// FNV-1a over the SQL's UTF-8 bytes: a change detector, not a security measure.
    static func fingerprint(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    @Test func shippedMigrationsAreUnchangedAndInOrder() {
        let current = CacheSchema.migrations
        #expect(current.count >= Self.shipped.count, "a shipped migration was removed")
        for (index, (identifier, fingerprint)) in Self.shipped.enumerated() where index < current.count {
            #expect(current[index].identifier == identifier, "migration \(index + 1) was renamed or moved: shipped migrations are never edited — add a new one")
            #expect(Self.fingerprint(current[index].sql) == fingerprint,
                    "the SQL of shipped migration \"\(identifier)\" changed (fingerprint \(String(Self.fingerprint(current[index].sql), radix: 16))): add a new migration instead")
        }
    }

    @Test func theJournalsMigrationsAreUnchanged() {
        let current = UserDataSchema.migrations
        #expect(current.map(\.identifier) == Self.journal.map(\.identifier), "a journal migration was added, renamed or removed: list it here")
        for (index, (identifier, fingerprint)) in Self.journal.enumerated() where index < current.count {
            #expect(Self.fingerprint(current[index].sql) == fingerprint,
                    "the SQL of shipped journal migration \"\(identifier)\" changed (fingerprint \(String(Self.fingerprint(current[index].sql), radix: 16))): add a new migration instead")
        }
    }

    @Test func everyMigrationIsListedHere() {
        #expect(CacheSchema.migrations.map(\.identifier) == Self.shipped.map(\.identifier),
                "a new migration needs its line in MigrationHistoryTests.shipped")
    }

    @Test func theFingerprintSeesAOneCharacterChange() {
        #expect(Self.fingerprint("CREATE TABLE a (x)") != Self.fingerprint("CREATE TABLE a (y)"))
        #expect(Self.fingerprint("") == 0xCBF2_9CE4_8422_2325)
    }
}
