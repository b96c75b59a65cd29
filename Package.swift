// swift-tools-version:6.2
import Foundation
import PackageDescription

// Layers (arrows point down only; docs/ARCHITECTURE.md):
//   C shims → TimbreCore → TimbreNet → TimbreAuth, TimbreLibrary → TimbreTUI → TimbreApp → timbre
// TimbreAuth (sign-in, secrets, tokens) and TimbreLibrary (cache, sync) do not see each other:
// TimbreApp, the composition root, joins them behind the `SpotifyAPI` seam.
// The sandbox (a Spotify-compatible TLS server for tests and `timbre demo`) is its own
// executable; `timbre` never links it, it launches it as a process.
let package = Package(
    name: "timbre",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "timbre", targets: ["timbre"]),
        .executable(name: "timbre-sandbox", targets: ["TimbreSandbox"]),
        .executable(name: "timbre-bench", targets: ["TimbreBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/LebJe/TOMLKit.git", from: "0.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
    ],
    targets: [
        // One system-library module per C library; each header adds typed wrappers for the
        // variadic functions and macros that Swift cannot import.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibSecret", pkgConfig: "libsecret-1", providers: [.apt(["libsecret-1-dev"])]),
        .systemLibrary(name: "CNcursesw", pkgConfig: "ncursesw", providers: [.apt(["libncursesw5-dev"])]),
        // libjq ships no pkg-config file: the module map links "jq".
        .systemLibrary(name: "CJQ", providers: [.apt(["libjq-dev"])]),
        // GIO's GDBus, for the MPRIS bridge (GIO is already linked through libsecret).
        .systemLibrary(name: "CGio", pkgConfig: "gio-2.0", providers: [.apt(["libglib2.0-dev"])]),

        .target(
            name: "TimbreCore",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        .target(name: "TimbreNet", dependencies: ["TimbreCore", "CCurl", "COpenSSL"]),
        .target(name: "TimbreAuth", dependencies: ["TimbreNet", "CLibSecret"]),
        .target(
            name: "TimbreLibrary",
            dependencies: ["TimbreNet", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")]
        ),
        .target(name: "TimbreTUI", dependencies: ["TimbreLibrary", "CNcursesw"]),
        // `--jq EXPR`: one type over libjq, beside the layers (it knows no Timbre module).
        .target(name: "TimbreJQ", dependencies: ["CJQ"]),
        // The MPRIS bridge on the session bus: GDBus behind one type, driving an `MPRISPlayer`.
        .target(name: "TimbreMPRIS", dependencies: ["TimbreCore", "CGio"]),
        // Commands, the console, doctor, the demo, and the composition root that builds the live
        // Spotify API once.
        .target(name: "TimbreApp", dependencies: ["TimbreTUI", "TimbreAuth", "TimbreLibrary", "TimbreNet", "TimbreCore", "TimbreJQ", "TimbreMPRIS"]),
        // Thin: each subcommand parses its options and calls one TimbreApp function.
        .executableTarget(
            name: "timbre",
            dependencies: ["TimbreApp", "TimbreCore", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),

        .executableTarget(
            name: "TimbreBench", dependencies: ["TimbreTUI", "TimbreLibrary", .product(name: "ArgumentParser", package: "swift-argument-parser")]),

        // The sandbox: deterministic Spotify-like data, certificates, and the server.
        .target(name: "SandboxCore", dependencies: ["COpenSSL"]),
        .executableTarget(
            name: "TimbreSandbox",
            dependencies: [
                "SandboxCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
            ]
        ),

        .target(name: "TimbreTestSupport", dependencies: ["SandboxCore", "TimbreCore"]),
        .testTarget(name: "TimbreCoreTests", dependencies: ["TimbreCore", "TimbreTestSupport", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "TimbreLibraryTests", dependencies: ["TimbreLibrary", "TimbreAuth", "TimbreTestSupport"]),
        .testTarget(
            name: "TimbreAppTests",
            dependencies: ["TimbreApp", "TimbreLibrary", "TimbreTUI", "TimbreTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "TimbreNetTests", dependencies: ["TimbreNet", "TimbreTestSupport"]),
        .testTarget(name: "TimbreTUITests", dependencies: ["TimbreTUI", "TimbreTestSupport"]),
        .testTarget(name: "TimbreCLITests", dependencies: ["timbre", "TimbreApp", "TimbreLibrary", "TimbreTestSupport"]),
        .testTarget(name: "SandboxTests", dependencies: ["SandboxCore", "TimbreTestSupport"]),
        .testTarget(name: "TimbreAuthTests", dependencies: ["TimbreAuth", "TimbreTestSupport"]),
        .testTarget(name: "TimbreJQTests", dependencies: ["TimbreJQ"]),
        .testTarget(name: "TimbreMPRISTests", dependencies: ["TimbreMPRIS", "TimbreTestSupport"]),
    ]
)

// CI builds with TIMBRE_WARNINGS_AS_ERRORS=1 (`.ci/run`): a compiler warning in our own sources
// (not in the dependencies, whose warnings SwiftPM suppresses) fails the build there.
if ProcessInfo.processInfo.environment["TIMBRE_WARNINGS_AS_ERRORS"] == "1" {
    for target in package.targets where target.type == .regular || target.type == .executable {
        target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
    }
}
