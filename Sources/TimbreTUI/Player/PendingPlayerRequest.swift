import Foundation
import TimbreCore

/// A player command waiting to be sent, which later ones of its kind replace: `+++++` typed
/// quickly is one volume request (the last target), `....` one seek — as `JJJJJ` is one move
/// (`KeyRun`, MoveCoalescer.swift).
typealias PendingPlayerRequest = KeyRun<PlayerRequest>

extension KeyRun where Value == PlayerRequest {
    convenience init(_ request: PlayerRequest, at now: ContinuousClock.Instant = .now) {
        self.init(request, at: now) { waiting, next in waiting.replaced(by: next) ? next : nil }
    }

    /// Whether a request of kind `request` joins others (else it is sent on its own at once).
    static func joins(_ request: PlayerRequest) -> Bool { request.replaced(by: request) }

    var request: PlayerRequest { value }
}
