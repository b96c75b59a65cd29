import ArgumentParser
import TimbreApp
import TimbreCore

// Spotify Connect control (CONTRACT.md, Round 4): mpc-style verbs, each one request where the
// API allows. Every command but `now`, `devices` and `recent` needs Spotify Premium.

extension Root {
    struct Play: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Play a playlist from an entry, one track, or resume (Premium).",
            discussion: """
                REF is a playlist as other commands take it (name, start of a name, ID, URI, link) or `liked`; \
                no REF resumes. Liked Songs has no context on Spotify: its entries from N on are sent as a list \
                (at most 100). DEV is a device name (any case, or the start of one) or id, as `timbre devices` lists them.
                """)

        @Argument(help: "The playlist: its name (or the start of it), ID, spotify:playlist:ID, link, or liked.", completion: .playlists)
        var ref: String?

        @Option(help: "Start at this entry (from 1, as `timbre tracks` counts).")
        var track: Int?

        @Option(help: "A track or episode: played alone, or (with REF) where REF's playback starts.")
        var uri: String?

        @Option(help: "Play on this device (name, start of a name, or id).")
        var device: String?

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await PlayerCommand(.play(ref: ref, track: track, uri: uri, device: device)).run(invocation)
        }
    }

    struct Pause: Runnable {
        static let configuration = CommandConfiguration(abstract: "Pause playback (Premium); paused already is not an error.")
        func run(_ invocation: Invocation) async throws -> ExitStatus { try await PlayerCommand(.pause).run(invocation) }
    }

    struct Next: Runnable {
        static let configuration = CommandConfiguration(abstract: "Skip to the next track (Premium).")
        func run(_ invocation: Invocation) async throws -> ExitStatus { try await PlayerCommand(.next).run(invocation) }
    }

    struct Prev: Runnable {
        static let configuration = CommandConfiguration(abstract: "Go back to the previous track (Premium).")
        func run(_ invocation: Invocation) async throws -> ExitStatus { try await PlayerCommand(.previous).run(invocation) }
    }

    struct Seek: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Seek in the playing track (Premium): `seek 1:30`, `seek 90`, `seek +10`, `seek -0:15`.",
            discussion: "TIME is seconds or m:ss; + or - moves from where it plays (one read of the player first).")

        // `-10` looks like an option to the parser: every word is taken as it is and checked here.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("[+|-]TIME", valueName: "time"))
        var time: [String] = []

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            guard time.count == 1 else { throw UsageError(message: "seek takes one [+|-]TIME", hint: "for example `timbre seek 1:30` or `timbre seek -10`") }
            return try await PlayerCommand(.seek(time[0])).run(invocation)
        }
    }

    struct Volume: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "Set the device's volume, 0–100 (Premium): `volume 40`, `volume +5`, `volume -10`.",
            discussion: "+ or - moves from the current volume (one read of the player first), kept within 0–100.")

        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("[+|-]N", valueName: "n"))
        var amount: [String] = []

        func run(_ invocation: Invocation) async throws -> ExitStatus {
            guard amount.count == 1 else { throw UsageError(message: "volume takes one [+|-]N", hint: "for example `timbre volume 40` or `timbre volume -5`") }
            return try await PlayerCommand(.volume(amount[0])).run(invocation)
        }
    }

    struct Shuffle: Runnable {
        static let configuration = CommandConfiguration(abstract: "Shuffle on or off (Premium).")
        @Argument(help: "on or off.")
        var state: String
        func run(_ invocation: Invocation) async throws -> ExitStatus { try await PlayerCommand(.shuffle(state)).run(invocation) }
    }

    struct Repeat: Runnable {
        static let configuration = CommandConfiguration(abstract: "Repeat off, the track, or the context (Premium).")
        @Argument(help: "off, track or context.")
        var mode: String
        func run(_ invocation: Invocation) async throws -> ExitStatus { try await PlayerCommand(.repeatMode(mode)).run(invocation) }
    }

    struct Queue: Runnable {
        static let configuration = CommandConfiguration(abstract: "Add tracks or episodes to the queue, one request each (Premium).")
        @Argument(help: "Tracks or episodes: spotify:track:ID, spotify:episode:ID, or their links.")
        var items: [String] = []
        func run(_ invocation: Invocation) async throws -> ExitStatus { try await PlayerCommand(.queue(items)).run(invocation) }
    }

    struct Devices: Runnable {
        static let configuration = CommandConfiguration(abstract: "The account's Spotify Connect devices (`*` marks the active one).")
        @Flag(help: "Print a JSON array.")
        var json = false
        func run(_ invocation: Invocation) async throws -> ExitStatus { try await PlayerCommand(.devices, json: json).run(invocation) }
    }

    struct Transfer: Runnable {
        static let configuration = CommandConfiguration(abstract: "Move playback to a device (Premium).")
        @Argument(help: "The device: its name (any case, or the start of it) or id.")
        var device: String
        @Flag(help: "Start playing there (else the state is kept: paused stays paused).")
        var play = false
        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await PlayerCommand(.transfer(device, play: play)).run(invocation)
        }
    }

    struct Now: Runnable {
        static let configuration = CommandConfiguration(
            abstract: "What plays, in one line for a status bar: title — artist · device · progress · shuffle/repeat.",
            discussion: "Nothing playing is not an error (exit 0; `--json` says \"item\": null).")
        @Flag(help: "Print one JSON object.")
        var json = false
        func run(_ invocation: Invocation) async throws -> ExitStatus { try await PlayerCommand(.now, json: json).run(invocation) }
    }

    struct Recent: Runnable {
        static let configuration = CommandConfiguration(abstract: "Recently played tracks, newest first.")
        @Flag(help: "Print a JSON array.")
        var json = false
        @Option(help: "At most this many (1–50).")
        var limit = 20
        func run(_ invocation: Invocation) async throws -> ExitStatus {
            try await PlayerCommand(.recent(limit: limit), json: json).run(invocation)
        }
    }
}

extension Root {
    struct MPRIS: Runnable {
        static let configuration = CommandConfiguration(
            commandName: "mpris",
            abstract: "Bridge Spotify Connect to MPRIS (media keys, playerctl, status bars) until SIGTERM or Ctrl-C.",
            discussion: """
                Owns org.mpris.MediaPlayer2.timbre on the session bus (…timbre.instance<PID> when taken) and \
                drives whatever device plays: `playerctl -p timbre play-pause`, `next`, `metadata title`. \
                The player is read after each command, at each track's end, else every `player_poll` seconds \
                (config.toml, default 30; once a minute while nothing plays).
                """)
        func run(_ invocation: Invocation) async throws -> ExitStatus { try await MPRISCommand().run(invocation) }
    }
}
