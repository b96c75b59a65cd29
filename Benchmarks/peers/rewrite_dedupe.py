"""The dedupe peer: what a client without timbre's planner does to drop duplicate entries now that
the Web API has no positional removal — read the playlist, keep the first copy of each URI, and
rewrite the whole list (`PUT …/items` with the first 100 URIs, then `POST`s of 100). Every entry's
added date is reset; timbre re-adds only the kept copies of duplicated tracks.

usage: rewrite_dedupe.py SESSION.json PLAYLIST_ID   → one JSON line {"requests", "removed", "entries"}
Standard library only, so it runs wherever the runner runs.
"""
import json
import sys

import common


def main():
    session = common.load_session(sys.argv[1])
    playlist = sys.argv[2]
    api = session["api_url"].rstrip("/")
    requests = 0

    def call(method, url, body=None):
        nonlocal requests
        requests += 1
        return common.api(session, method, url, body)

    uris = []
    url = f"{api}/playlists/{playlist}/items?limit={common.LIMIT}&fields=next,items(item(uri))"
    while url:
        page = call("GET", url)
        uris += [(entry.get("item") or {}).get("uri") for entry in page["items"]]
        url = page.get("next")
    seen, kept = set(), []
    for uri in uris:
        if uri not in seen:
            seen.add(uri)
            kept.append(uri)
    call("PUT", f"{api}/playlists/{playlist}/items", {"uris": kept[:100]})
    for start in range(100, len(kept), 100):
        call("POST", f"{api}/playlists/{playlist}/items", {"uris": kept[start:start + 100]})
    print(json.dumps({"requests": requests, "removed": len(uris) - len(kept), "entries": len(kept)}))


if __name__ == "__main__":
    main()
