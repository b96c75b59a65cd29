import GRDB

/// The cache's schema as a history: each shipped migration is an identifier and its SQL, applied
/// in order. A shipped migration is never edited (a test holds a fingerprint of each); a schema
/// change is a new migration at the end.
enum CacheSchema {
    struct Migration {
        let identifier: String
        let sql: String
    }

    /// What SQL alone cannot compute, done after the history has brought a file up to date and
    /// only when the migration it follows was applied by this open: never inside a migration, so a
    /// shipped migration (and its fingerprint) never depends on today's code.
    struct FollowUp {
        /// The migration whose tables this fills.
        let after: String
        let run: @Sendable (Database) throws -> Void
    }

    static let migrations: [Migration] = [
        Migration(
            identifier: "v1: playlists, items, sync runs",
            sql: """
                CREATE TABLE playlist (
                    id TEXT NOT NULL PRIMARY KEY,
                    sort_order INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    owner_id TEXT NOT NULL,
                    owner_name TEXT,
                    snapshot_id TEXT,
                    track_count INTEGER NOT NULL CHECK (track_count >= 0),
                    collaborative BOOLEAN NOT NULL,
                    is_public BOOLEAN NOT NULL,
                    synced_at DATETIME,
                    unavailable BOOLEAN NOT NULL DEFAULT 0,
                    fingerprint TEXT
                );
                CREATE TABLE item (
                    playlist_id TEXT NOT NULL REFERENCES playlist(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL CHECK (position >= 0),
                    kind TEXT NOT NULL CHECK (kind IN ('track', 'local', 'episode')),
                    spotify_id TEXT,
                    uri TEXT NOT NULL,
                    name TEXT NOT NULL,
                    artists TEXT NOT NULL,
                    album TEXT,
                    duration_ms INTEGER NOT NULL,
                    added_at TEXT,
                    PRIMARY KEY (playlist_id, position)
                ) WITHOUT ROWID;
                CREATE TABLE sync_run (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    started_at DATETIME NOT NULL,
                    finished_at DATETIME NOT NULL,
                    status TEXT NOT NULL CHECK (status IN ('ok', 'partial', 'failed')),
                    report TEXT NOT NULL
                );
                """),
        // `kind IN (…)` in a CHECK builds a little lookup table every time an insert statement
        // runs, i.e. for every row: 1.7 µs a row, a third of a full sync's write time. The same
        // rule spelt as comparisons costs nothing measurable. Only a rebuilt table can change it.
        Migration(
            identifier: "v2: items check their kind without a lookup table",
            sql: """
                CREATE TABLE item_v2 (
                    playlist_id TEXT NOT NULL REFERENCES playlist(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL CHECK (position >= 0),
                    kind TEXT NOT NULL CHECK (kind = 'track' OR kind = 'local' OR kind = 'episode'),
                    spotify_id TEXT,
                    uri TEXT NOT NULL,
                    name TEXT NOT NULL,
                    artists TEXT NOT NULL,
                    album TEXT,
                    duration_ms INTEGER NOT NULL,
                    added_at TEXT,
                    PRIMARY KEY (playlist_id, position)
                ) WITHOUT ROWID;
                INSERT INTO item_v2 (playlist_id, position, kind, spotify_id, uri, name, artists, album, duration_ms, added_at)
                    SELECT playlist_id, position, kind, spotify_id, uri, name, artists, album, duration_ms, added_at FROM item;
                DROP TABLE item;
                ALTER TABLE item_v2 RENAME TO item;
                """),
        // Items were keyed by (playlist id, position): playlist ids are random, so every list
        // written went into the middle of the item tree, and each row paid a full descent with
        // 22-byte key comparisons and a half-empty page split now and then. Each write of a list
        // now takes a new number, larger than any before (`playlist.items_key`), so its rows are
        // appended at the end of the tree: the same 203,743 rows insert in 0.26 s of CPU instead
        // of 0.39 s (SQLite from C, same statements, foreign key kept).
        Migration(
            identifier: "v3: items keyed by a list number that only grows",
            sql: """
                ALTER TABLE playlist ADD COLUMN items_key INTEGER;
                UPDATE playlist SET items_key = rowid;
                CREATE UNIQUE INDEX playlist_items_key ON playlist(items_key);
                CREATE TABLE item_v3 (
                    list INTEGER NOT NULL REFERENCES playlist(items_key) ON DELETE CASCADE,
                    position INTEGER NOT NULL CHECK (position >= 0),
                    kind TEXT NOT NULL CHECK (kind = 'track' OR kind = 'local' OR kind = 'episode'),
                    spotify_id TEXT,
                    uri TEXT NOT NULL,
                    name TEXT NOT NULL,
                    artists TEXT NOT NULL,
                    album TEXT,
                    duration_ms INTEGER NOT NULL,
                    added_at TEXT,
                    PRIMARY KEY (list, position)
                ) WITHOUT ROWID;
                INSERT INTO item_v3 (list, position, kind, spotify_id, uri, name, artists, album, duration_ms, added_at)
                    SELECT p.items_key, i.position, i.kind, i.spotify_id, i.uri, i.name, i.artists, i.album, i.duration_ms, i.added_at
                    FROM item i JOIN playlist p ON p.id = i.playlist_id ORDER BY p.items_key, i.position;
                DROP TABLE item;
                ALTER TABLE item_v3 RENAME TO item;
                """),
        // v3's items were a WITHOUT ROWID table keyed by (list, position) with a foreign key to
        // the playlist: every row paid a descent of the key's tree, comparisons of two columns,
        // and a lookup of its parent. Now the key is one integer, `list << 24 | position`, and it
        // is the table's rowid: SQLite appends ascending rowids without a search, and a list's
        // rows are one range of keys. `list` and `position` are computed from the key; the
        // cascade the foreign key gave is two triggers on the playlist. The same 203,743 rows
        // insert in 0.20 s of CPU instead of 0.27 s (SQLite from C, same statements).
        Migration(
            identifier: "v4: items keyed by one integer, list and position computed from it",
            sql: """
                CREATE TABLE item_v4 (
                    key INTEGER PRIMARY KEY CHECK (key >= 0),
                    kind TEXT NOT NULL CHECK (kind = 'track' OR kind = 'local' OR kind = 'episode'),
                    spotify_id TEXT,
                    uri TEXT NOT NULL,
                    name TEXT NOT NULL,
                    artists TEXT NOT NULL,
                    album TEXT,
                    duration_ms INTEGER NOT NULL,
                    added_at TEXT,
                    list INTEGER GENERATED ALWAYS AS (key >> 24) VIRTUAL,
                    position INTEGER GENERATED ALWAYS AS (key & 16777215) VIRTUAL
                );
                -- A list with a position the key cannot hold (none was ever written: Spotify caps a
                -- playlist at 10,000) is not carried over; forgetting its snapshot makes the next
                -- sync fetch it again.
                UPDATE playlist SET snapshot_id = NULL, fingerprint = NULL
                    WHERE items_key IN (SELECT list FROM item WHERE position >= 16777216);
                INSERT INTO item_v4 (key, kind, spotify_id, uri, name, artists, album, duration_ms, added_at)
                    SELECT (list << 24) | position, kind, spotify_id, uri, name, artists, album, duration_ms, added_at
                    FROM item WHERE list NOT IN (SELECT list FROM item WHERE position >= 16777216) ORDER BY list, position;
                DROP TABLE item;
                ALTER TABLE item_v4 RENAME TO item;
                CREATE TRIGGER item_follows_deleted_playlist AFTER DELETE ON playlist WHEN old.items_key IS NOT NULL BEGIN
                    DELETE FROM item WHERE key >= (old.items_key << 24) AND key < ((old.items_key + 1) << 24);
                END;
                CREATE TRIGGER item_follows_new_list AFTER UPDATE OF items_key ON playlist
                    WHEN old.items_key IS NOT NULL AND old.items_key IS NOT new.items_key BEGIN
                    DELETE FROM item WHERE key >= (old.items_key << 24) AND key < ((old.items_key + 1) << 24);
                END;
                """),
        // Sorting by year, statistics and exports need the album's release date; adding a whole
        // album needs its id. Forgetting every snapshot and Liked Songs' fingerprint makes the next
        // sync fetch every list again, which fills the new columns.
        Migration(
            identifier: "v5: items keep their album's id and release date",
            sql: """
                ALTER TABLE item ADD COLUMN album_id TEXT;
                ALTER TABLE item ADD COLUMN release_date TEXT;
                UPDATE playlist SET snapshot_id = NULL, fingerprint = NULL;
                """),
        // `F` folded and matched every item of the cache on each query (~85 ms for 200,000). Each
        // list now keeps its items' folded text in one row (`SearchIndex`), written with its items;
        // the triggers drop it with them. Its follow-up indexes every list already stored.
        Migration(
            identifier: "v6: a folded-text index of each list for search",
            sql: """
                CREATE TABLE item_search (
                    list INTEGER PRIMARY KEY,
                    folded BLOB NOT NULL,
                    positions BLOB
                );
                CREATE TABLE item_search_state (
                    id INTEGER PRIMARY KEY CHECK (id = 0),
                    folding TEXT NOT NULL
                );
                CREATE TRIGGER item_search_follows_deleted_playlist AFTER DELETE ON playlist WHEN old.items_key IS NOT NULL BEGIN
                    DELETE FROM item_search WHERE list = old.items_key;
                END;
                CREATE TRIGGER item_search_follows_new_list AFTER UPDATE OF items_key ON playlist
                    WHEN old.items_key IS NOT NULL AND old.items_key IS NOT new.items_key BEGIN
                    DELETE FROM item_search WHERE list = old.items_key;
                END;
                """),
        // `export` writes Exportify's 19 columns; these are the ones the items pages can carry at
        // no extra request. `artist_ids`: the artists' ids joined by `,`, one per name in
        // `artists`. Forgetting every snapshot and fingerprint makes the next sync fill them.
        Migration(
            identifier: "v7: items keep what export writes: artist ids, disc and track number, explicit, ISRC, added by",
            sql: """
                ALTER TABLE item ADD COLUMN artist_ids TEXT;
                ALTER TABLE item ADD COLUMN disc_number INTEGER;
                ALTER TABLE item ADD COLUMN track_number INTEGER;
                ALTER TABLE item ADD COLUMN explicit BOOLEAN;
                ALTER TABLE item ADD COLUMN isrc TEXT;
                ALTER TABLE item ADD COLUMN added_by TEXT;
                UPDATE playlist SET snapshot_id = NULL, fingerprint = NULL;
                """),
        // A sync stopped part-way (the daily quota, `--max-requests`, a lost network) kept none
        // of the pages it had read of a list it had not finished, and the next sync read them
        // again: +24 % requests for a first sync cut at half. Each such page is kept here as
        // Spotify sent it, with the version of the list it belongs to (a playlist's snapshot id,
        // Liked Songs' fingerprint) and the page size, until the list is stored whole; a later
        // sync reuses the pages of a list whose version has not changed. Not tied to `playlist`
        // by a foreign key: Liked Songs has no row until it is stored whole.
        Migration(
            identifier: "v8: pages read of a list not yet stored whole",
            sql: """
                CREATE TABLE partial_page (
                    list_id TEXT NOT NULL,
                    version TEXT NOT NULL,
                    page_limit INTEGER NOT NULL CHECK (page_limit > 0),
                    page_offset INTEGER NOT NULL CHECK (page_offset >= 0),
                    body BLOB NOT NULL,
                    PRIMARY KEY (list_id, page_offset)
                ) WITHOUT ROWID;
                """),
    ]

    static let followUps: [FollowUp] = [
        // v6: every list already stored gets its row of the search index (a list the follow-up
        // misses — the process stopped in between — is indexed at the end of the next sync).
        FollowUp(after: "v6: a folded-text index of each list for search", run: { db in try SearchIndex.refresh(db) })
    ]

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in migrations {
            migrator.registerMigration(migration.identifier) { db in try db.execute(sql: migration.sql) }
        }
        return migrator
    }

    /// Brings `writer` up to date: the migrations it lacks, then the follow-ups of those.
    static func migrate(_ writer: some DatabaseWriter) throws {
        let migrator = self.migrator
        let applied = try writer.read { db in try migrator.appliedIdentifiers(db) }
        try migrator.migrate(writer)
        let due = followUps.filter { !applied.contains($0.after) }
        guard !due.isEmpty else { return }
        try writer.write { db in
            for followUp in due { try followUp.run(db) }
        }
    }
}
