import GRDB

/// The user-data database's schema (`$XDG_DATA_HOME/timbre/timbre.sqlite`: the edit journal and
/// local folders) as a history, like the cache's (`CacheSchema`): a shipped migration is never
/// edited (`MigrationHistoryTests` holds a fingerprint of each).
enum UserDataSchema {
    /// In the journal's `edit` table, `kind` names what `edit` and `before` hold: `entries` (an
    /// `EntryEdit` and the playlist's URIs), `library` (a `LibraryEdit`: likes, follows,
    /// creations) or `details` (a `DetailsEdit`).
    static let migrations: [CacheSchema.Migration] = [
        CacheSchema.Migration(
            identifier: "journal v1: edits",
            sql: """
                CREATE TABLE edit (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    at TEXT NOT NULL,
                    op TEXT NOT NULL,
                    playlist TEXT NOT NULL,
                    summary TEXT NOT NULL,
                    state TEXT NOT NULL,
                    direction TEXT,
                    step INTEGER NOT NULL DEFAULT 0,
                    kind TEXT NOT NULL DEFAULT 'entries',
                    edit TEXT NOT NULL,
                    before TEXT NOT NULL,
                    redoable INTEGER NOT NULL DEFAULT 1
                )
                """),
        // Timor's folders: a name, an order, expanded or not, and the playlists in it (a playlist
        // is in one folder at most). Local only: Spotify's API has no folders.
        CacheSchema.Migration(
            identifier: "user data v2: local folders",
            sql: """
                CREATE TABLE folder (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL UNIQUE,
                    position INTEGER NOT NULL,
                    expanded INTEGER NOT NULL DEFAULT 1
                );
                CREATE TABLE folder_playlist (
                    playlist TEXT NOT NULL PRIMARY KEY,
                    folder INTEGER NOT NULL REFERENCES folder(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL
                );
                """),
        // Why an edit ended `failed` (Spotify's refusal, what was applied, or "abandoned"), for
        // `timbre history`.
        CacheSchema.Migration(
            identifier: "journal v3: failure reasons",
            sql: """
                ALTER TABLE edit ADD COLUMN reason TEXT
                """),
        // `timbre restore`'s journal (Sources/TimbreLibrary/Backup/RestoreJournal.swift): per
        // account and backed-up playlist, the create's intent before it is sent (with the ids of
        // the account's playlists of that name then), the new id once Spotify answered, and the
        // entries added since — so a restore run again never creates a playlist twice.
        CacheSchema.Migration(
            identifier: "user data: restore journal",
            sql: """
                CREATE TABLE restore_playlist (
                    account TEXT NOT NULL,
                    source TEXT NOT NULL,
                    name TEXT NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('creating', 'created', 'filled')),
                    existing TEXT NOT NULL DEFAULT '',
                    target TEXT,
                    added INTEGER NOT NULL DEFAULT 0,
                    at TEXT NOT NULL,
                    PRIMARY KEY (account, source)
                )
                """),
        // Playlist versions (`PlaylistVersions`): every URI, adder and unusual date once in
        // `history_text`, each version's entries as one blob of varints (`VersionCoding`), the
        // counts against the version before it, and a marker for playlists that left the library.
        CacheSchema.Migration(
            identifier: "history v4: playlist versions",
            sql: """
                CREATE TABLE history_text (
                    id INTEGER PRIMARY KEY,
                    text TEXT NOT NULL UNIQUE
                );
                CREATE TABLE playlist_version (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    playlist TEXT NOT NULL,
                    version INTEGER NOT NULL CHECK (version >= 1),
                    seen_at TEXT NOT NULL,
                    source TEXT NOT NULL CHECK (source IN ('sync', 'edit')),
                    edit INTEGER,
                    snapshot_id TEXT,
                    name TEXT NOT NULL,
                    description TEXT,
                    public INTEGER NOT NULL,
                    collaborative INTEGER NOT NULL,
                    entry_count INTEGER NOT NULL,
                    added INTEGER NOT NULL,
                    removed INTEGER NOT NULL,
                    moved INTEGER NOT NULL,
                    entries BLOB NOT NULL,
                    UNIQUE (playlist, version)
                );
                CREATE TABLE playlist_deleted (
                    playlist TEXT NOT NULL PRIMARY KEY,
                    deleted_at TEXT NOT NULL,
                    last_version INTEGER NOT NULL
                );
                """),
        // When the newest write of an edit in flight was sent, and the deadline its transport gave
        // it: a process that finishes the edit after a crash waits until that write cannot land
        // any more. `told`: what the user was told when a write failed in front of them — the
        // edit is then reconciled and reported by the next command, never pushed blindly.
        CacheSchema.Migration(
            identifier: "journal v5: writes in flight, failures told",
            sql: """
                ALTER TABLE edit ADD COLUMN sent_at TEXT;
                ALTER TABLE edit ADD COLUMN sent_deadline_ms INTEGER;
                ALTER TABLE edit ADD COLUMN told TEXT;
                """),
        // A version an undo or a redo made (source `edit`, `edit` the id of the edit undone or
        // redone): which of the two. NULL for the edit itself and for a sync.
        CacheSchema.Migration(
            identifier: "history v5: versions made by an undo or a redo",
            sql: "ALTER TABLE playlist_version ADD COLUMN step TEXT CHECK (step IN ('undo', 'redo'))"),
    ]

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in migrations {
            migrator.registerMigration(migration.identifier) { db in try db.execute(sql: migration.sql) }
        }
        return migrator
    }
}
