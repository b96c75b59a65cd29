/// The pool looked up by id: what `spotify:track:ID` names, which tracks an album holds. Built
/// once per server (the large pool's 40,000 ids take a few milliseconds) and never changed.
public struct Catalog: Sendable {
    public let pool: Pool
    private let tracks: [String: Int32]
    private let episodes: [String: Int32]
    private let albums: [String: Int32]
    private let locals: [String: Int32]
    /// Track indexes of each album, in pool order.
    private let albumTracks: [[Int32]]

    public init(pool: Pool) {
        self.pool = pool
        var tracks: [String: Int32] = [:]
        tracks.reserveCapacity(pool.trackCount)
        var albumTracks = [[Int32]](repeating: [], count: pool.albumCount)
        for index in 0..<pool.trackCount {
            tracks[pool.trackID(index)] = Int32(index)
            albumTracks[pool.albumIndex(ofTrack: index)].append(Int32(index))
        }
        for k in 0..<Pool.variantCount { tracks[pool.trackID(pool.variantIndex(k))] = Int32(pool.variantIndex(k)) }
        var episodes: [String: Int32] = [:]
        for index in 0..<pool.episodeCount { episodes[pool.episodeID(index)] = Int32(index) }
        var albums: [String: Int32] = [:]
        for index in 0..<pool.albumCount { albums[pool.albumID(index)] = Int32(index) }
        var locals: [String: Int32] = [:]
        for index in 0..<pool.localCount where locals[pool.local(index).uri] == nil {
            locals[pool.local(index).uri] = Int32(index)
        }
        self.tracks = tracks
        self.episodes = episodes
        self.albums = albums
        self.locals = locals
        self.albumTracks = albumTracks
    }

    public func trackIndex(id: String) -> Int? { tracks[id].map(Int.init) }
    public func episodeIndex(id: String) -> Int? { episodes[id].map(Int.init) }
    public func albumIndex(id: String) -> Int? { albums[id].map(Int.init) }
    public func localIndex(uri: String) -> Int? { locals[uri].map(Int.init) }

    /// The pool tracks on album `index`, in pool order.
    public func tracks(onAlbum index: Int) -> [Int] { albumTracks[index].map(Int.init) }
}
