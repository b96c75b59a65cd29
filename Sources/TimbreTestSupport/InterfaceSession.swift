import Foundation
import SandboxCore
import Testing

/// The interface under test, end to end: the sandbox, a CLI signed in to it, and the real binary
/// in tmux — the one harness every interface suite drives (send-keys) and reads (a settled
/// capture-pane).
public struct InterfaceSession: Sendable {
    public let sandbox: SandboxProcess
    public let cli: TimbreCLI
    public let tmux: Tmux
    /// Every screen read through `wait`, to check that nothing was written under curses.
    public let screens = ScreenLog()

    public init(sandbox: SandboxProcess, cli: TimbreCLI, tmux: Tmux) {
        self.sandbox = sandbox
        self.cli = cli
        self.tmux = tmux
    }

    /// The screen once it shows `text` and has settled (`Tmux.waitFor`); kept in `screens`.
    public func wait(_ text: String, settled: Bool = true) async throws -> String {
        let screen = try await tmux.waitFor(text, settled: settled)
        screens.add(screen)
        return screen
    }

    /// A `:` command, typed and entered.
    public func command(_ text: String) async throws {
        try await tmux.keys(":")
        try await tmux.type(text)
        try await tmux.keys("Enter")
    }

    /// The playlists pane: filter to `name`, select it, open it; the filter is cleared again.
    public func open(_ name: String) async throws {
        try await tmux.keys("h", "Escape", "/")
        try await tmux.type(name)
        try await tmux.keys("Enter", "Enter")
        _ = try await wait(" \(name) · ")
    }

    /// The sandbox's id of the playlist named `name`.
    public func id(of name: String) async throws -> String {
        let model = try await sandbox.library(includeItems: false)
        let playlists = model["playlists"] as? [[String: Any]] ?? []
        return try #require(playlists.first { ($0["name"] as? String) == name }?["id"] as? String, "no playlist named \(name)")
    }

    /// A sandbox, a CLI signed in to it and synced, and a tmux server, all ended after `body`.
    /// `refreshRotation` is the sandbox's `--refresh-rotation` (`rotate` hands out a new refresh
    /// token on the first refresh, which timbre cannot store for one from the environment, so it
    /// warns); `sync: false` leaves the cache empty for the interface's own first sync.
    public static func withSyncedSandbox(
        _ library: LibrarySize, refreshRotation: String = "same", sync: Bool = true,
        _ body: (SandboxProcess, TimbreCLI, Tmux) async throws -> Void
    ) async throws {
        let sandbox = try await SandboxProcess.start(library: library, extraArguments: ["--refresh-rotation", refreshRotation])
        try await withCleanup({ await sandbox.stop() }) {
            let token = try await sandbox.mintRefreshToken()
            let cli = try TimbreCLI(extraEnvironment: ["TIMBRE_REFRESH_TOKEN": token])
            try cli.configure(for: sandbox)
            let tmux = Tmux()
            try await withCleanup({
                await tmux.kill()
                cli.remove()
            }) {
                if sync { #expect(try await cli.run(["sync", "--quiet"]).status == 0) }
                try await body(sandbox, cli, tmux)
            }
        }
    }

    /// The interface over the small library, synced, 130×36: `body` drives it; then `q` must end
    /// it with status 0, and no screen may hold a line timbre wrote under curses.
    public static func withInterface(_ body: (InterfaceSession) async throws -> Void) async throws {
        try await withSyncedSandbox(.small) { sandbox, cli, tmux in
            let marker = try await tmux.startTimbre(cli, columns: 130, rows: 36)
            let session = InterfaceSession(sandbox: sandbox, cli: cli, tmux: tmux)
            _ = try await session.wait("synced")
            try await body(session)
            try await tmux.keys("q")
            #expect(try await Tmux.exitStatus(marker) == "0")
            for screen in session.screens.screens {
                #expect(!screen.contains("timbre: "), "stray output under the interface:\n\(screen)")
            }
        }
    }
}

/// Screens as they were read, from any task.
public final class ScreenLog: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [String] = []
    public init() {}
    public func add(_ screen: String) { lock.withLock { all.append(screen) } }
    public var screens: [String] { lock.withLock { all } }
}
