/// Catalogue objects computed on demand from an index, so playlists share one pool of tracks.
public struct Pool: Sendable {
    public let seed: UInt64
    public let trackCount: Int
    public let episodeCount: Int
    public let localCount: Int
    let artistCount: Int
    let albumCount: Int

    init(seed: UInt64, trackCount: Int) {
        self.seed = seed
        self.trackCount = trackCount
        self.episodeCount = max(12, trackCount / 100)
        self.localCount = max(8, trackCount / 200)
        self.artistCount = max(40, trackCount / 12)
        self.albumCount = max(60, trackCount / 8)
    }

    public struct Artist: Sendable, Equatable {
        public var id: String
        public var name: String
    }

    public struct Album: Sendable, Equatable {
        public var id: String
        public var name: String
        public var albumType: String
        public var artists: [Artist]
        public var releaseDate: String
        public var totalTracks: Int
        public var imageKey: String
    }

    public struct Track: Sendable, Equatable {
        public var id: String
        public var name: String
        public var artists: [Artist]
        public var album: Album
        public var durationMs: Int
        public var explicit: Bool
        public var popularity: Int
        public var trackNumber: Int
        public var isrc: String
    }

    public struct Episode: Sendable, Equatable {
        public var id: String
        public var name: String
        public var description: String
        public var durationMs: Int
        public var releaseDate: String
        public var showID: String
        public var showName: String
        public var publisher: String
        public var imageKey: String
    }

    public struct LocalFile: Sendable, Equatable {
        public var artist: String
        public var album: String
        public var title: String
        public var seconds: Int

        /// `spotify:local:Artist:Album:Title:123`, each part form-encoded (`+` for spaces) like Spotify.
        public var uri: String {
            "spotify:local:\(Pool.formEncode(artist)):\(Pool.formEncode(album)):\(Pool.formEncode(title)):\(seconds)"
        }
    }

    // MARK: Lookup

    public func artist(_ index: Int) -> Artist {
        var rng = SplitMix64(seed: seed, stream: 1, index: UInt64(index))
        let name: String
        if index < Names.quirkyArtists.count {
            name = Names.quirkyArtists[index]
        } else if rng.chance(0.5) {
            name = "The \(rng.pick(Names.adjectives)) \(rng.pick(Names.pluralNouns))"
        } else {
            name = "\(rng.pick(Names.firstNames)) \(rng.pick(Names.lastNames))"
        }
        return Artist(id: SpotifyID.make(seed: seed, namespace: 1, index: index), name: name)
    }

    public func album(_ index: Int) -> Album {
        var rng = SplitMix64(seed: seed, stream: 2, index: UInt64(index))
        let artist = self.artist(rng.below(artistCount))
        let type = rng.chance(0.7) ? "album" : (rng.chance(0.5) ? "single" : "compilation")
        let year = 1965 + rng.below(61)
        let name =
            rng.chance(0.5)
            ? "\(rng.pick(Names.adjectives)) \(rng.pick(Names.nouns))"
            : "\(rng.pick(Names.nouns)) of \(rng.pick(Names.pluralNouns))"
        return Album(
            id: albumID(index),
            name: name, albumType: type, artists: [artist],
            releaseDate: String(format4: year) + "-" + String(pad2: 1 + rng.below(12)) + "-" + String(pad2: 1 + rng.below(28)),
            totalTracks: 1 + rng.below(18),
            imageKey: Pool.hex(rng.next()) + Pool.hex(rng.next()) + Pool.hex(rng.next()).prefix(8)
        )
    }

    public func trackID(_ index: Int) -> String { SpotifyID.make(seed: seed, namespace: 3, index: index) }
    public func episodeID(_ index: Int) -> String { SpotifyID.make(seed: seed, namespace: 4, index: index) }
    public func albumID(_ index: Int) -> String { SpotifyID.make(seed: seed, namespace: 2, index: index) }

    /// The album a track is on (the first draw of its stream), without building the track.
    public func albumIndex(ofTrack index: Int) -> Int {
        var rng = SplitMix64(seed: seed, stream: 3, index: UInt64(index))
        return rng.below(albumCount)
    }

    /// Re-releases of the first ordinary tracks, for fuzzy duplicate finding: track `trackCount + k`
    /// is track `quirkyTitles.count + k` as a remaster or mono/live cut ("Song - Remastered 2011",
    /// "Song (2009 Remaster)", "Song [Mono]"), same artists, on another album of theirs, its duration
    /// within a second and a half of the original's — or, every fourth, 2.5 s off (a different take,
    /// which fuzzy matching must not merge). They are outside the generated library and the search
    /// results, and reachable by id (`GET /tracks/{id}`, adds), like catalogue tracks no playlist holds.
    public static let variantCount = 32

    /// Pool index of variant `k` (0 ..< `variantCount`) and of the track it re-releases.
    public func variantIndex(_ k: Int) -> Int { trackCount + k }
    public func originalIndex(ofVariant k: Int) -> Int { Names.quirkyTitles.count + k }

    public func track(_ index: Int) -> Track {
        if index >= trackCount { return variant(index - trackCount) }
        var rng = SplitMix64(seed: seed, stream: 3, index: UInt64(index))
        var album = self.album(rng.below(albumCount))
        var artists = album.artists
        if rng.chance(0.25) { artists.append(artist(rng.below(artistCount))) }
        let name: String
        if index < Names.quirkyTitles.count {
            name = Names.quirkyTitles[index]
            artists = [artist(index % Names.quirkyArtists.count)]
            album.artists = artists
        } else {
            switch rng.below(4) {
            case 0: name = "\(rng.pick(Names.adjectives)) \(rng.pick(Names.nouns))"
            case 1: name = "\(rng.pick(Names.verbs)) the \(rng.pick(Names.nouns))"
            case 2: name = "\(rng.pick(Names.nouns)) (\(rng.pick(Names.versions)))"
            default: name = "\(rng.pick(Names.adjectives)) \(rng.pick(Names.pluralNouns))"
            }
        }
        let isrcCountry = rng.pick(["US", "GB", "SE", "DE", "JP", "FR"])
        return Track(
            id: trackID(index),
            name: name, artists: artists, album: album,
            durationMs: 95_000 + rng.below(330_000),
            explicit: rng.chance(0.15),
            popularity: rng.below(100),
            trackNumber: 1 + rng.below(album.totalTracks),
            isrc: isrcCountry + "SBX" + String(pad2: rng.below(100)) + String(rng.below(90_000) + 10_000)
        )
    }

    private func variant(_ k: Int) -> Track {
        var track = self.track(originalIndex(ofVariant: k))
        let suffixes = [" - Remastered 2011", " (2009 Remaster)", " [Mono]", " - Live at the Roundhouse"]
        track.id = trackID(variantIndex(k))
        track.name += suffixes[k % suffixes.count]
        track.durationMs += k % 4 == 3 ? 2_500 : (k % 2 == 0 ? 1_400 : -900)
        track.album.id = albumID((albumIndex(ofTrack: originalIndex(ofVariant: k)) + 1 + k) % albumCount)
        track.album.name += " (Deluxe)"
        track.isrc = String(track.isrc.dropLast(3)) + String(900 + k)
        return track
    }

    public func episode(_ index: Int) -> Episode {
        var rng = SplitMix64(seed: seed, stream: 4, index: UInt64(index))
        let show = index % max(1, episodeCount / 4)
        var showRNG = SplitMix64(seed: seed, stream: 5, index: UInt64(show))
        let showName = show == 0 ? "Tech Talk 🎙️ Weekly" : "The \(showRNG.pick(Names.adjectives)) \(showRNG.pick(Names.nouns)) Podcast"
        return Episode(
            id: episodeID(index),
            name: "Episode \(index + 1): \(rng.pick(Names.verbs)) the \(rng.pick(Names.nouns))",
            description: "In this episode we talk about \(rng.pick(Names.pluralNouns).lowercased()).",
            durationMs: 900_000 + rng.below(4_500_000),
            releaseDate: "20" + String(pad2: 18 + rng.below(8)) + "-" + String(pad2: 1 + rng.below(12)) + "-" + String(pad2: 1 + rng.below(28)),
            showID: SpotifyID.make(seed: seed, namespace: 5, index: show),
            showName: showName,
            publisher: "\(showRNG.pick(Names.firstNames)) \(showRNG.pick(Names.lastNames))",
            imageKey: Pool.hex(showRNG.next()) + Pool.hex(showRNG.next())
        )
    }

    public func local(_ index: Int) -> LocalFile {
        if index < Names.quirkyLocals.count { return Names.quirkyLocals[index] }
        var rng = SplitMix64(seed: seed, stream: 6, index: UInt64(index))
        return LocalFile(
            artist: "\(rng.pick(Names.firstNames)) \(rng.pick(Names.lastNames))",
            album: "\(rng.pick(Names.adjectives)) Demos",
            title: "\(rng.pick(Names.nouns)) (home recording)",
            seconds: 60 + rng.below(400)
        )
    }

    /// A track for a well-formed id the pool lacks (added through the API): name, album and
    /// artists generated from the id, so it renders the same everywhere and in every run.
    public func foreignTrack(id: String) -> Track {
        var rng = SplitMix64(seed: Pool.hash(id, seed: seed))
        let album = self.album(rng.below(albumCount))
        let name = "\(rng.pick(Names.adjectives)) \(rng.pick(Names.nouns)) (\(rng.pick(Names.versions)))"
        return Track(
            id: id, name: name, artists: album.artists, album: album,
            durationMs: 95_000 + rng.below(330_000), explicit: false, popularity: rng.below(100),
            trackNumber: 1 + rng.below(album.totalTracks), isrc: "XXSBX" + String(pad2: rng.below(100)) + String(rng.below(90_000) + 10_000)
        )
    }

    /// An episode for a well-formed id the pool lacks: a pool episode's show and data, this id.
    public func foreignEpisode(id: String) -> Episode {
        var episode = self.episode(Int(Pool.hash(id, seed: seed) % UInt64(episodeCount)))
        episode.id = id
        return episode
    }

    static func hash(_ text: String, seed: UInt64) -> UInt64 {
        var hash = SplitMix64.mix(seed ^ 0xF0E1_D2C3)
        for byte in text.utf8 { hash = SplitMix64.mix(hash ^ UInt64(byte)) }
        return hash
    }

    /// The id a `.malformed` entry reports: 21 characters, or 22 with a `-`.
    public func malformedID(_ index: Int) -> String {
        let id = track(index).id
        return index % 2 == 0 ? String(id.dropLast()) : String(id.prefix(10)) + "-" + String(id.suffix(11))
    }

    // MARK: Helpers

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// application/x-www-form-urlencoded, as Spotify encodes local-file URIs.
    public static func formEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"),
                UInt8(ascii: "_"), UInt8(ascii: "*"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }
}

extension String {
    init(pad2 value: Int) { self = value < 10 ? "0\(value)" : "\(value)" }
    init(format4 value: Int) {
        var digits = "\(value)"
        while digits.count < 4 { digits = "0" + digits }
        self = digits
    }
}
