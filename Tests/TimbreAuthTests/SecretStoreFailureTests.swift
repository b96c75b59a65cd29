import Foundation
import Testing
import TimbreCore
@testable import TimbreAuth

/// No Secret Service, and one that never answers: private buses, so these run anywhere.
@Suite struct SecretStoreFailureTests {
    @Test func noBusFailsFastWithOneClearMessage() async throws {
        let store = LibSecretStore(busAddress: "unix:path=/nonexistent/timbre-bus")
        for tier in SecretTier.allCases {
            let start = ContinuousClock.now
            let error = await #expect(throws: SecretStoreError.self) {
                try await store.write(SecretBytes("x"), kind: .refreshToken, tier: tier, profile: "default")
            }
            #expect(ContinuousClock.now - start < .seconds(1))
            guard case .serviceUnavailable(let detail) = error else {
                Issue.record("expected .serviceUnavailable, got \(String(describing: error))")
                continue
            }
            #expect(detail.contains("Could not connect"), "\(detail)")
            Self.expectTheOneMessage(error)
        }
        await #expect(throws: SecretStoreError.self) { try await store.read(.refreshToken, profile: "default") }
        await #expect(throws: SecretStoreError.self) { try await store.delete(.refreshToken, profile: "default") }
    }

    @Test func busWithoutASecretServiceIsTheSameMessage() async throws {
        let bus = try await FakeBus.start("empty")
        let store = LibSecretStore(busAddress: bus.address)
        let start = ContinuousClock.now
        let error = await #expect(throws: SecretStoreError.self) { try await store.read(.refreshToken, profile: "default") }
        #expect(ContinuousClock.now - start < .seconds(1))
        guard case .serviceUnavailable(let detail) = error else {
            Issue.record("expected .serviceUnavailable, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("org.freedesktop.secrets"), "\(detail)")
        Self.expectTheOneMessage(error)
    }

    @Test func aServiceThatNeverAnswersTimesOutAfterThreeSeconds() async throws {
        let bus = try await FakeBus.start("hung")
        let store = LibSecretStore(busAddress: bus.address)
        let start = ContinuousClock.now
        let error = await #expect(throws: SecretStoreError.self) {
            try await store.write(SecretBytes("x"), kind: .refreshToken, tier: .high, profile: "default")
        }
        let elapsed = ContinuousClock.now - start
        #expect(error == .timeout(seconds: 3))
        #expect(elapsed >= .milliseconds(2900) && elapsed < .seconds(4), "\(elapsed)")
        #expect(error?.message == "The keyring (Secret Service) did not answer within 3 seconds.")
    }

    static func expectTheOneMessage(_ error: SecretStoreError?) {
        #expect(error?.message == "No keyring (Secret Service) is reachable to keep your Spotify credentials.")
        let hint = error?.hint ?? ""
        #expect(hint.contains("gnome-keyring") && hint.contains("KeePassXC"))
        #expect(hint.contains("TIMBRE_REFRESH_TOKEN"))
        #expect(hint.contains("timbre login --insecure-storage"))
        #expect(error?.exitStatus == .failure)
    }
}
