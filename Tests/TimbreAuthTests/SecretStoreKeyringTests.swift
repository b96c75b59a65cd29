import Foundation
import Testing
import TimbreCore
import TimbreTestSupport

@testable import TimbreAuth

/// Against the real Secret Service (gnome-keyring inside `dbus-run-session`, see scripts/test.sh).
/// Without one every test here fails with instructions.
@Suite(.tags(.integration), .integrationTier) struct SecretStoreKeyringTests {
    /// A deadline, not a bound: under a loaded CI run gnome-keyring has missed the product's 3 s.
    let store = LibSecretStore(timeout: 20)

    @Test(arguments: [SecretTier.standard, .high])
    func writeReadOverwriteDelete(tier: SecretTier) async throws {
        try await requireSecretService()
        let profile = uniqueProfile()
        #expect(try await store.read(.refreshToken, profile: profile) == nil)
        try await store.write(SecretBytes("first"), kind: .refreshToken, tier: tier, profile: profile)
        #expect(try await store.read(.refreshToken, profile: profile)?.string == "first")
        try await store.write(SecretBytes("second"), kind: .refreshToken, tier: tier, profile: profile)
        #expect(try await store.read(.refreshToken, profile: profile)?.string == "second")
        try await store.delete(.refreshToken, profile: profile)
        #expect(try await store.read(.refreshToken, profile: profile) == nil)
        try await store.delete(.refreshToken, profile: profile)  // missing = fine
    }

    @Test func profilesAndKindsAreIsolated() async throws {
        try await requireSecretService()
        let one = uniqueProfile(), two = uniqueProfile()
        try await store.write(SecretBytes("one-refresh"), kind: .refreshToken, tier: .high, profile: one)
        try await store.write(SecretBytes("two-refresh"), kind: .refreshToken, tier: .high, profile: two)
        try await store.write(SecretBytes("one-session"), kind: .session, tier: .standard, profile: one)
        #expect(try await store.read(.refreshToken, profile: one)?.string == "one-refresh")
        #expect(try await store.read(.refreshToken, profile: two)?.string == "two-refresh")
        #expect(try await store.read(.session, profile: one)?.string == "one-session")
        #expect(try await store.read(.session, profile: two) == nil)
        try await store.delete(.refreshToken, profile: one)
        #expect(try await store.read(.refreshToken, profile: two)?.string == "two-refresh")
        #expect(try await store.read(.session, profile: one)?.string == "one-session")
        for profile in [one, two] { for kind in SecretKind.allCases { try await store.delete(kind, profile: profile) } }
    }

    @Test func unicodeAndLongValuesRoundTrip() async throws {
        try await requireSecretService()
        let profile = uniqueProfile()
        let unicode = "AQD…токен✓🎵日本語\u{0301}\"quotes\"\n\ttab"
        let long = String(repeating: "0123456789abcdef", count: 4096)  // 64 KiB
        try await store.write(SecretBytes(unicode), kind: .session, tier: .standard, profile: profile)
        try await store.write(SecretBytes(long), kind: .refreshToken, tier: .high, profile: profile)
        #expect(try await store.read(.session, profile: profile)?.string == unicode)
        #expect(try await store.read(.refreshToken, profile: profile)?.string == long)
        try await store.delete(.session, profile: profile)
        try await store.delete(.refreshToken, profile: profile)
    }

    @Test func aWriteToAnotherTierLeavesOneCopy() async throws {
        try await requireSecretService()
        let profile = uniqueProfile()
        try await store.write(SecretBytes("standard"), kind: .refreshToken, tier: .standard, profile: profile)
        try await store.write(SecretBytes("high"), kind: .refreshToken, tier: .high, profile: profile)
        #expect(try await store.read(.refreshToken, profile: profile)?.string == "high")
        let search = try await runTool("/usr/bin/secret-tool", ["search", "--all", "profile", profile, "kind", "refresh_token"])
        #expect(search.output.components(separatedBy: "attribute.tier = ").count == 2, "\(search.output)")
        try await store.delete(.refreshToken, profile: profile)
        #expect(try await store.read(.refreshToken, profile: profile) == nil)
    }

    @Test func secretToolSeesOurSchemaButTheLabelCarriesNoSecret() async throws {
        try await requireSecretService()
        let profile = uniqueProfile()
        let value = "very-secret-\(UUID().uuidString)"
        try await store.write(SecretBytes(value), kind: .refreshToken, tier: .high, profile: profile)

        let lookup = try await runTool("/usr/bin/secret-tool", ["lookup", "profile", profile, "kind", "refresh_token", "tier", "high"])
        #expect(lookup.status == 0)
        #expect(lookup.output == value)

        let search = try await runTool("/usr/bin/secret-tool", ["search", "--all", "profile", profile])
        let lines = search.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("label = timbre refresh token (profile \(profile))"), "\(search.output)")
        #expect(lines.contains("attribute.profile = \(profile)"))
        #expect(lines.contains("attribute.kind = refresh_token"))
        #expect(lines.contains("attribute.tier = high"))
        #expect(lines.contains("schema = io.github.timbre.Secret"), "\(search.output)")
        let label = lines.first { $0.hasPrefix("label = ") }
        #expect(label?.contains(value) == false)
        try await store.delete(.refreshToken, profile: profile)
    }

    @Test func labelsNameKindAndProfileOnly() {
        #expect(LibSecretStore.label(kind: .refreshToken, profile: "X") == "timbre refresh token (profile X)")
        #expect(LibSecretStore.label(kind: .session, profile: "X") == "timbre session (profile X)")
        #expect(LibSecretStore.label(kind: .clientID, profile: "X") == "timbre client id (profile X)")
    }
}

/// The `sensitive` tier: its own collection, locked after every use. The test plays the user's part
/// (create/unlock with a master password through gnome-keyring's internal interface) where the
/// product relies on the desktop prompt. One collection shared by every test here: serialized.
@Suite(.serialized, .tags(.integration), .integrationTier) struct SecretStoreSensitiveTests {
    /// A longer deadline per D-Bus call than the product's 3 s: with every suite running at once
    /// on two cores, gnome-keyring has missed 3 s (a delete of a locked item ended in `.timeout`
    /// instead of `.sensitiveLocked`). What these tests check is the lock's behaviour, not speed.
    let store = LibSecretStore(timeout: 20)
    let label = LibSecretStore.sensitiveCollectionLabel

    @Test func missingCollectionIsCreatedThroughThePromptAndHeadlessThatFailsClearly() async throws {
        try await requireSecretService()
        try await KeyringHelper.run("remove", label)
        let error = await #expect(throws: SecretStoreError.self) {
            try await store.write(SecretBytes("s"), kind: .refreshToken, tier: .sensitive, profile: uniqueProfile())
        }
        // Headless there is no prompter: libsecret's create fails, and says so. On a loaded machine
        // (CI runs every suite at once) gnome-keyring may instead miss the 3 s deadline of a call
        // before the create; that is the other clear failure this path can end in — but never the
        // prompt's deadline (`promptTimeout`, 120 s): headless, nothing may wait for a user.
        if case .timeout(let seconds)? = error {
            #expect(seconds == store.timeout && seconds != store.promptTimeout)
            return
        }
        guard case .sensitiveCollectionUnavailable = error else {
            Issue.record("expected .sensitiveCollectionUnavailable, got \(String(describing: error))")
            return
        }
        #expect(error?.hint?.contains("secret_tier_refresh_token") == true)
    }

    @Test func writeAndReadLeaveTheCollectionLocked() async throws {
        try await requireSecretService()
        try await KeyringHelper.run("create", label, KeyringHelper.sensitivePassword)
        try await KeyringHelper.run("unlock", label, KeyringHelper.sensitivePassword)
        let profile = uniqueProfile()

        try await store.write(SecretBytes("sensitive-token"), kind: .refreshToken, tier: .sensitive, profile: profile)
        #expect(try await KeyringHelper.sensitiveIsLocked(), "locked again after the write")
        let items = try await KeyringHelper.items(in: label).filter { $0.attributes["profile"] == profile }
        #expect(items.count == 1)
        #expect(items.first?.attributes["tier"] == "sensitive")
        #expect(items.first?.label == "timbre refresh token (profile \(profile))")

        // The user unlocks when asked (here: the helper, before timbre's unlock call finds it open).
        try await KeyringHelper.run("unlock", label, KeyringHelper.sensitivePassword)
        #expect(try await store.read(.refreshToken, profile: profile)?.string == "sensitive-token")
        #expect(try await KeyringHelper.sensitiveIsLocked(), "locked again after the read")

        // The keyring refuses to delete a locked item: deleting needs the user's unlock as well.
        try await KeyringHelper.run("unlock", label, KeyringHelper.sensitivePassword)
        try await store.delete(.refreshToken, profile: profile)
        #expect(try await KeyringHelper.sensitiveIsLocked(), "locked again after the delete")
        try await KeyringHelper.run("unlock", label, KeyringHelper.sensitivePassword)
        #expect(try await KeyringHelper.items(in: label).filter { $0.attributes["profile"] == profile }.isEmpty)
        try await KeyringHelper.run("lock", label)
    }

    @Test func readWhileItCannotBeUnlockedIsAnAuthenticationError() async throws {
        try await requireSecretService()
        try await KeyringHelper.run("create", label, KeyringHelper.sensitivePassword)
        try await KeyringHelper.run("unlock", label, KeyringHelper.sensitivePassword)
        let profile = uniqueProfile()
        try await store.write(SecretBytes("sensitive-token"), kind: .refreshToken, tier: .sensitive, profile: profile)
        #expect(try await KeyringHelper.sensitiveIsLocked())

        // Nobody answers the unlock prompt (headless: no prompter at all).
        let error = await #expect(throws: SecretStoreError.self) { try await store.read(.refreshToken, profile: profile) }
        guard case .sensitiveLocked = error else {
            Issue.record("expected .sensitiveLocked, got \(String(describing: error))")
            return
        }
        #expect(error?.exitStatus == .authenticationRequired)
        #expect(error?.message == "unlock the timbre-sensitive keyring to use your Spotify session")
        #expect(try await KeyringHelper.sensitiveIsLocked())

        // Deleting (logout) needs the unlock too.
        let deleteError = await #expect(throws: SecretStoreError.self) { try await store.delete(.refreshToken, profile: profile) }
        #expect(deleteError?.exitStatus == .authenticationRequired)
        try await KeyringHelper.run("unlock", label, KeyringHelper.sensitivePassword)
        try await store.delete(.refreshToken, profile: profile)
        #expect(try await KeyringHelper.sensitiveIsLocked())
    }

    @Test func writingAnotherTierRemovesTheSensitiveCopy() async throws {
        try await requireSecretService()
        try await KeyringHelper.run("create", label, KeyringHelper.sensitivePassword)
        try await KeyringHelper.run("unlock", label, KeyringHelper.sensitivePassword)
        let profile = uniqueProfile()
        try await store.write(SecretBytes("sensitive"), kind: .refreshToken, tier: .sensitive, profile: profile)
        // Replacing the sensitive copy means deleting it, which needs the user's unlock.
        try await KeyringHelper.run("unlock", label, KeyringHelper.sensitivePassword)
        try await store.write(SecretBytes("high"), kind: .refreshToken, tier: .high, profile: profile)
        #expect(try await KeyringHelper.sensitiveIsLocked())
        #expect(try await store.read(.refreshToken, profile: profile)?.string == "high")
        try await KeyringHelper.run("unlock", label, KeyringHelper.sensitivePassword)
        #expect(try await KeyringHelper.items(in: label).filter { $0.attributes["profile"] == profile }.isEmpty)
        try await KeyringHelper.run("lock", label)
        try await store.delete(.refreshToken, profile: profile)
        #expect(try await store.read(.refreshToken, profile: profile) == nil)
    }
}
