"""Shared by the Python peers: the sandbox session, the SQLite schema, and turning API entries into rows.

Every peer stores the same thing timbre's cache stores (playlists, and per playlist its items in
order: kind, id, uri, name, artists, album, duration, added_at), asks for the same `fields`, and
talks only to the loopback sandbox, trusting its CA through the file named in sandbox.json.
"""
import json
import sqlite3
import sys
import urllib.error
import urllib.parse
import urllib.request
import ssl

ITEM_FIELDS = ("id,uri,name,type,duration_ms,is_local,disc_number,track_number,explicit,external_ids(isrc),"
               "artists(id,name),album(id,name,release_date),show(name)")
# The same `fields` timbre's SyncFetching sends, so every client moves the same bytes.
ENTRY_FIELDS = f"next,total,items(added_at,added_by(id),is_local,item({ITEM_FIELDS}),track({ITEM_FIELDS}))"
LIMIT = 50  # the sandbox (like Spotify's spec) rejects limit=100 on /items


def load_session(path):
    """bench session file: {"api_url", "accounts_url", "ca_file", "secret_file", "access_token"}."""
    with open(path) as f:
        return json.load(f)


def access_token(accounts_url, client_id, refresh_token, ca_file):
    """A refresh-token grant against the sandbox's token endpoint."""
    body = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": refresh_token,
                                   "client_id": client_id}).encode()
    request = urllib.request.Request(accounts_url.rstrip("/") + "/api/token", data=body,
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    context = ssl.create_default_context(cafile=ca_file)
    with urllib.request.urlopen(request, context=context, timeout=30) as response:
        return json.load(response)["access_token"]


def api(session, method, url, body=None):
    """One Web API request with the session's access token: the decoded JSON answer (None when
    empty). `url` is absolute, or a path under the session's api_url. HTTP errors raise
    RuntimeError naming the request and Spotify's message."""
    if not url.startswith("https://"):
        url = session["api_url"].rstrip("/") + url
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={
        "Authorization": f"Bearer {session['access_token']}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, context=ssl.create_default_context(cafile=session["ca_file"]), timeout=120) as response:
            text = response.read()
            return json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        raise RuntimeError(f"{method} {url}: {error.code} {error.read()[:500]!r}") from None


SCHEMA = """
PRAGMA journal_mode=WAL;
CREATE TABLE IF NOT EXISTS playlists (id TEXT PRIMARY KEY, name TEXT NOT NULL, owner_id TEXT, owner_name TEXT,
  snapshot_id TEXT, track_count INTEGER, collaborative INTEGER, is_public INTEGER, unavailable INTEGER NOT NULL DEFAULT 0,
  position INTEGER);
CREATE TABLE IF NOT EXISTS items (playlist_id TEXT NOT NULL, position INTEGER NOT NULL, kind TEXT NOT NULL, id TEXT,
  uri TEXT NOT NULL, name TEXT NOT NULL, artists TEXT NOT NULL, album TEXT, duration_ms INTEGER NOT NULL, added_at TEXT,
  PRIMARY KEY (playlist_id, position)) WITHOUT ROWID;
"""


def open_db(path):
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    return db


def item_rows(playlist_id, entries, start=0):
    """Entries of one list → item rows; `item: null` and malformed ids are left out, as timbre does."""
    rows = []
    for offset, entry in enumerate(entries):
        obj = entry.get("item") or entry.get("track")
        if not obj:
            continue
        local = bool(entry.get("is_local") or obj.get("is_local"))
        kind = "local" if local else ("episode" if obj.get("type") == "episode" else "track")
        item_id = obj.get("id")
        if not local and (not isinstance(item_id, str) or len(item_id) != 22 or not item_id.isalnum()):
            continue
        if kind == "episode":
            show = (obj.get("show") or {}).get("name") or ""
            artists, album = [show], show
        else:
            artists = [a.get("name") or "" for a in (obj.get("artists") or [])]
            album = (obj.get("album") or {}).get("name")
        rows.append((playlist_id, start + offset, kind, None if local else item_id, obj.get("uri") or "",
                     obj.get("name") or "", json.dumps(artists, ensure_ascii=False), album,
                     obj.get("duration_ms") or 0, entry.get("added_at")))
    return rows


def playlist_row(p, position, unavailable=False):
    owner = p.get("owner") or {}
    total = (p.get("items") or p.get("tracks") or {}).get("total") or 0
    return (p["id"], p.get("name") or "", owner.get("id"), owner.get("display_name"), p.get("snapshot_id"), total,
            int(bool(p.get("collaborative"))), int(bool(p.get("public"))), int(unavailable), position)


def store_list(db, playlist, position, rows, unavailable=False):
    """One playlist and all its items, replaced in one transaction."""
    with db:
        db.execute("INSERT OR REPLACE INTO playlists VALUES (?,?,?,?,?,?,?,?,?,?)", playlist_row(playlist, position, unavailable))
        db.execute("DELETE FROM items WHERE playlist_id = ?", (playlist["id"],))
        db.executemany("INSERT INTO items VALUES (?,?,?,?,?,?,?,?,?,?)", rows)


def store_entries(db, playlist, position, entries):
    """A playlist and the rows of its API entries; returns how many rows were stored."""
    rows = item_rows(playlist["id"], entries)
    store_list(db, playlist, position, rows)
    return len(rows)


LIKED = {"id": "liked", "name": "Liked Songs", "owner": {"id": "me"}, "snapshot_id": None}


def store_liked(db, entries):
    """Liked Songs, stored like timbre's cache does (id `liked`, first in order)."""
    return store_entries(db, dict(LIKED, tracks={"total": len(entries)}), -1, entries)


def report(name, requests, items, playlists, unavailable):
    print(json.dumps({"peer": name, "requests": requests, "items_written": items, "playlists": playlists,
                      "unavailable": unavailable}))
    sys.stdout.flush()
