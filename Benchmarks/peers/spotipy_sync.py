"""Peer: spotipy, the way its docs page through a library — sequential, following `next`.

usage: spotipy_sync.py SESSION.json DB.sqlite
Trusts the sandbox CA through REQUESTS_CA_BUNDLE (set by the runner from sandbox.json).
"""
import sys

import spotipy

import common

LIKED = {"id": "liked", "name": "Liked Songs", "owner": {"id": "me"}, "snapshot_id": None}


def main():
    session = common.load_session(sys.argv[1])
    db = common.open_db(sys.argv[2])
    sp = spotipy.Spotify(auth=session["access_token"], requests_timeout=60, retries=3)
    sp.prefix = session["api_url"].rstrip("/") + "/"
    requests = 0

    playlists = []
    page = sp.current_user_playlists(limit=common.LIMIT)
    requests += 1
    while page:
        playlists += page["items"]
        page = sp.next(page) if page.get("next") else None
        requests += 1 if page else 0

    items = unavailable = 0
    for position, playlist in enumerate(playlists):
        entries = []
        try:
            page = sp.playlist_items(playlist["id"], fields=common.ENTRY_FIELDS, limit=common.LIMIT,
                                     additional_types=("track", "episode"))
            requests += 1
            while page:
                entries += page["items"]
                page = sp.next(page) if page.get("next") else None
                requests += 1 if page else 0
        except spotipy.SpotifyException as error:
            if error.http_status != 403:
                raise
            requests += 1
            unavailable += 1
            common.store_list(db, playlist, position, [], unavailable=True)
            continue
        rows = common.item_rows(playlist["id"], entries)
        items += len(rows)
        common.store_list(db, playlist, position, rows)

    entries = []
    page = sp.current_user_saved_tracks(limit=common.LIMIT)
    requests += 1
    while page:
        entries += page["items"]
        page = sp.next(page) if page.get("next") else None
        requests += 1 if page else 0
    liked = dict(LIKED, tracks={"total": len(entries)})
    rows = common.item_rows("liked", entries)
    items += len(rows)
    common.store_list(db, liked, -1, rows)
    common.report("spotipy", requests, items, len(playlists), unavailable)


if __name__ == "__main__":
    main()
