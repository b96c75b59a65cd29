extension Library {
    /// The signed-in user is `users[0]`; the others own playlists the user follows.
    static let defaultUsers = [
        User(id: "sandbox_user", displayName: "Sandbox Listener"),
        User(id: "spotify", displayName: "Spotify"),
        User(id: "alice.k", displayName: nil),
        User(id: "bob_1987", displayName: "Bob"),
        User(id: "dj-ana", displayName: nil),
    ]

    private enum Special {
        case mixed, empty, collaborative, editorial, friendNoDisplayName, tenThousand
    }

    /// Deterministic for (size, seed); generating `large` takes well under a second.
    public init(size: LibrarySize, seed: UInt64) {
        self.size = size
        self.seed = seed
        self.users = Library.defaultUsers
        let pool = Pool(seed: seed, trackCount: size.trackPool)
        self.pool = pool
        var rng = SplitMix64(seed: seed, stream: 100)

        // Where the special playlists go: early enough to be seen, after a few readable ones.
        var specials: [Int: Special]
        switch size {
        case .small: specials = [1: .mixed, 3: .empty, 4: .collaborative, 5: .editorial, 6: .friendNoDisplayName]
        case .medium: specials = [5: .mixed, 9: .empty, 12: .collaborative, 15: .editorial, 21: .friendNoDisplayName]
        case .large: specials = [5: .mixed, 9: .empty, 12: .collaborative, 15: .editorial, 21: .friendNoDisplayName, 40: .tenThousand]
        }
        let specialLengths: [Special: Int] = [
            .mixed: 0, .empty: 0, .collaborative: 25, .editorial: 50, .friendNoDisplayName: 30, .tenThousand: 10_000,
        ]
        let mixedEntries = Library.mixedEntries(pool: pool, rng: &rng)
        let normalCount = size.playlistCount - specials.count
        let fixed = specials.values.reduce(mixedEntries.count) { $0 + (specialLengths[$1] ?? 0) }
        var weights = (0..<normalCount).map { _ in 0.2 + Double(rng.below(1_600)) / 1_000 }
        let weightSum = weights.reduce(0, +)
        let remaining = max(0, size.itemTarget - fixed)
        var lengths = weights.map { Int(Double(remaining) * $0 / weightSum) }
        if !lengths.isEmpty { lengths[0] += remaining - lengths.reduce(0, +) }
        weights.removeAll()

        // Quirky names go on ordinary playlists after the first few readable ones.
        var quirkyNamePositions: [Int: String] = [:]
        let firstQuirky = size == .small ? 2 : 7
        var position = firstQuirky
        for name in Names.quirkyPlaylists where position < size.playlistCount {
            while specials[position] != nil || quirkyNamePositions[position] != nil { position += 1 }
            if position < size.playlistCount { quirkyNamePositions[position] = name }
            position += size == .small ? 1 : 5
        }

        var playlists: [Playlist] = []
        playlists.reserveCapacity(size.playlistCount)
        var normalIndex = 0
        for index in 0..<size.playlistCount {
            var playlist = Playlist(
                id: SpotifyID.make(seed: seed, namespace: 10, index: index),
                name: "", description: "", owner: 0, collaborative: false, isPublic: rng.chance(0.6),
                hasImages: !rng.chance(0.08), followers: rng.below(40), entries: [], version: 0
            )
            switch specials[index] {
            case let special?:
                Library.fill(special, &playlist, mixedEntries: mixedEntries, pool: pool, rng: &rng)
            case nil:
                let length = lengths[normalIndex]
                normalIndex += 1
                if let quirky = quirkyNamePositions[index] {
                    playlist.name = quirky
                } else if index < Names.playlistNames.count {
                    playlist.name = Names.playlistNames[index]
                } else {
                    playlist.name = "\(rng.pick(Names.adjectives)) \(rng.pick(Names.pluralNouns)) #\(index)"
                }
                playlist.description = rng.chance(0.25) ? nil : (rng.chance(0.5) ? "" : "Songs for \(rng.pick(Names.pluralNouns).lowercased()) &amp; more")
                playlist.entries = Library.ordinaryEntries(count: length, pool: pool, rng: &rng, quirks: index >= 8)
            }
            playlists.append(playlist)
        }
        self.playlists = playlists
        self.liked = Library.likedEntries(count: size.likedCount, pool: pool, rng: &rng)
    }

    /// One of the special playlists, filled in (draws from `rng` in the order the library's
    /// determinism depends on: do not reorder).
    private static func fill(_ special: Special, _ playlist: inout Playlist, mixedEntries: [Entry], pool: Pool, rng: inout SplitMix64) {
        switch special {
        case .mixed:
            playlist.name = "Mixed Bag: locals, podcasts & oddities"
            playlist.description = "Everything a client has to survive."
            playlist.entries = mixedEntries
        case .empty:
            playlist.name = "Empty Playlist"
            playlist.description = nil
            playlist.hasImages = false
        case .collaborative:
            playlist.name = "Shared with Friends"
            playlist.owner = 2
            playlist.collaborative = true
            playlist.isPublic = false
            playlist.entries = ordinaryEntries(count: 25, pool: pool, rng: &rng, addedBy: [0, 2, 3])
        case .editorial:
            playlist.name = "Today's Top Hits"
            playlist.description = "The hottest 50. Cover: <a href=\"spotify:artist:x\">Someone</a>"
            playlist.owner = 1
            playlist.isPublic = true  // editorial playlists are public (and not the user's to edit)
            playlist.followers = 35_123_456
            playlist.entries = ordinaryEntries(count: 50, pool: pool, rng: &rng, addedBy: [1])
        case .friendNoDisplayName:
            playlist.name = "ana's crate digging"
            playlist.description = nil
            playlist.owner = 4
            playlist.entries = ordinaryEntries(count: 30, pool: pool, rng: &rng, addedBy: [4])
        case .tenThousand:
            playlist.name = "Everything (10k)"
            playlist.entries = ordinaryEntries(count: 10_000, pool: pool, rng: &rng, quirks: true)
        }
    }

    /// Liked Songs, newest first, from 2026-01-01 back in time.
    private static func likedEntries(count: Int, pool: Pool, rng: inout SplitMix64) -> [Entry] {
        var liked: [Entry] = []
        liked.reserveCapacity(count)
        var time: Int64 = 1_767_225_600  // 2026-01-01, going back in time
        for index in 0..<count {
            // Hostile titles are spread out (every seventh song) so the list starts readable.
            let quirky = index % 7 == 3 && index / 7 < Names.quirkyTitles.count
            let ref = quirky ? index / 7 : Names.quirkyTitles.count + rng.below(pool.trackCount - Names.quirkyTitles.count)
            liked.append(Entry(kind: .track, ref: ref, addedAt: time))
            time -= Int64(60 + rng.below(3 * 86_400))
        }
        return liked
    }

    private static func ordinaryEntries(
        count: Int, pool: Pool, rng: inout SplitMix64, addedBy: [Int] = [0], quirks: Bool = false
    ) -> [Entry] {
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        var time = Int64(1_420_070_400 + rng.below(330_000_000))
        let quirkyCount = Names.quirkyTitles.count
        for _ in 0..<count {
            time += Int64(rng.below(5 * 86_400))
            let by = addedBy[rng.below(addedBy.count)]
            var entry = Entry(kind: .track, ref: quirkyCount + rng.below(pool.trackCount - quirkyCount), addedAt: time, addedBy: by)
            if quirks {
                switch rng.below(1_000) {
                case 0..<5: entry.kind = .null
                case 5..<10: entry = Entry(kind: .local, ref: rng.below(pool.localCount), addedAt: time, addedBy: by)
                case 10..<15: entry = Entry(kind: .episode, ref: rng.below(pool.episodeCount), addedAt: time, addedBy: by)
                case 15..<16: entry.kind = .malformed
                case 16..<21: entry.addedAt = nil
                case 21..<31: if let previous = entries.last(where: { $0.kind == .track }) { entry.ref = previous.ref }
                case 31..<34: entry.ref = Int32(rng.below(quirkyCount))
                default: break
                }
            }
            entries.append(entry)
        }
        return entries
    }

    /// One playlist holding every quirk, in every library size.
    private static func mixedEntries(pool: Pool, rng: inout SplitMix64) -> [Entry] {
        var entries: [Entry] = []
        var time: Int64 = 1_600_000_000
        func add(_ kind: Entry.Kind, _ ref: Int, addedAt: Int64?? = .none) {
            time += 86_400
            entries.append(Entry(kind: kind, ref: ref, addedAt: addedAt ?? time))
        }
        let normal = Names.quirkyTitles.count
        add(.track, normal + 1)
        add(.track, normal + 2)
        add(.null, 0)
        add(.local, 0)
        add(.episode, 0)
        add(.track, normal + 3, addedAt: .some(nil))
        add(.track, normal + 1)  // the same track twice
        add(.malformed, normal + 4)
        add(.malformed, normal + 5)
        for index in 0..<Names.quirkyTitles.count { add(.track, index) }
        for index in 1..<Names.quirkyLocals.count { add(.local, index) }
        add(.episode, 1)
        add(.null, 0, addedAt: .some(nil))
        add(.local, Names.quirkyLocals.count, addedAt: .some(nil))
        for _ in 0..<8 { add(.track, normal + rng.below(pool.trackCount - normal)) }
        return entries
    }

    /// The names of the Spotify-owned playlists `serve --spotify-owned N` adds (then numbered).
    static let spotifyOwnedNames = [
        "Discover Weekly", "Release Radar", "Daily Mix 1", "On Repeat", "Repeat Rewind", "Time Capsule",
        "Daily Mix 2", "Chill Vibes", "Daily Mix 3", "Rock Classics",
    ]

    /// Adds `count` playlists owned by `spotify` that the user follows, at the end of
    /// `/me/playlists`: Spotify's editorial and algorithmic playlists, which development-mode apps
    /// see listed but cannot read (404 by id and for their items). Deterministic for (seed, count).
    public mutating func addSpotifyOwned(count: Int) {
        guard count > 0 else { return }
        let names = Library.spotifyOwnedNames
        for index in 0..<count {
            var rng = SplitMix64(seed: seed, stream: 300, index: UInt64(index))
            let name = index < names.count ? names[index] : "\(names[index % names.count]) (\(index / names.count + 1))"
            var playlist = Playlist(
                id: SpotifyID.make(seed: seed, namespace: 11, index: index), name: name,
                description: "Made for \(me.displayName ?? me.id) by Spotify.", owner: 1, collaborative: false,
                isPublic: false, hasImages: true, followers: 0,
                entries: Library.ordinaryEntries(count: 20 + rng.below(31), pool: pool, rng: &rng, addedBy: [1]), version: 0
            )
            playlist.spotifyOwned = true
            playlists.append(playlist)
        }
    }
}
