"""Peer: spotipy, the way its docs page through a library — sequential, following `next`.

usage: spotipy_sync.py SESSION.json DB.sqlite
Trusts the sandbox CA through REQUESTS_CA_BUNDLE (set by the runner from sandbox.json).
"""
import sys

import spotipy

import common



def main():
    session = common.load_session(sys.argv[1])
    db = common.open_db(sys.argv[2])
    sp = spotipy.Spotify(auth=session["access_token"], requests_timeout=60, retries=3)
    sp.prefix = session["api_url"].rstrip("/") + "/"
    requests = 0

    def all_entries(first_page):
        """Every item of a paged list, following `next` one page at a time (one request each)."""
        nonlocal requests
        entries = []
        page = first_page
        requests += 1
        while page:
            entries += page["items"]
            page = sp.next(page) if page.get("next") else None
            requests += 1 if page else 0
        return entries

    playlists = all_entries(sp.current_user_playlists(limit=common.LIMIT))

    items = unavailable = 0
    for position, playlist in enumerate(playlists):
        try:
            entries = all_entries(sp.playlist_items(playlist["id"], fields=common.ENTRY_FIELDS, limit=common.LIMIT,
                                                    additional_types=("track", "episode")))
        except spotipy.SpotifyException as error:
            if error.http_status != 403:
                raise
            requests += 1
            unavailable += 1
            common.store_list(db, playlist, position, [], unavailable=True)
            continue
        items += common.store_entries(db, playlist, position, entries)

    items += common.store_liked(db, all_entries(sp.current_user_saved_tracks(limit=common.LIMIT)))
    common.report("spotipy", requests, items, len(playlists), unavailable)


if __name__ == "__main__":
    main()
