import Foundation
import Testing
import TimbreCore

@testable import TimbreNet

/// A backup pin matching is told once per host and pin for a transport's life (#34: a long
/// session wrote the same notice on every connection); every other event is told each time.
@Suite struct TrustObserversTests {
    static let backup = SPKIPin(digest: [UInt8](repeating: 1, count: 32))
    static let other = SPKIPin(digest: [UInt8](repeating: 2, count: 32))

    @Test func aBackupMatchIsToldOncePerHostAndPin() {
        let recorder = TrustEventRecorder()
        let observers = TrustObservers(all: [recorder])
        let backup = TrustEvent.pinMatched(host: "api.spotify.com", pin: Self.backup, position: .leaf, isPrimary: false)
        let primary = TrustEvent.pinMatched(host: "api.spotify.com", pin: Self.other, position: .leaf, isPrimary: true)
        let elsewhere = TrustEvent.pinMatched(host: "accounts.spotify.com", pin: Self.backup, position: .leaf, isPrimary: false)
        for _ in 0..<5 { observers.record(backup) }
        observers.record(primary)
        observers.record(primary)
        observers.record(elsewhere)
        observers.record(.pinMismatch(host: "api.spotify.com", presented: []))
        observers.record(.pinMismatch(host: "api.spotify.com", presented: []))
        #expect(
            recorder.events == [
                backup, primary, primary, elsewhere, .pinMismatch(host: "api.spotify.com", presented: []), .pinMismatch(host: "api.spotify.com", presented: []),
            ])
    }
}
